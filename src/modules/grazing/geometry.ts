/**
 * Which paddock a position is in: point in polygon over the farm's paddock outlines. A stored geometry that
 * is absent, not JSON, not a Polygon or MultiPolygon (or a Feature holding one), or malformed simply
 * contains nothing: outlines stored before validation existed must never fail a report or a read.
 */
import { area } from '@turf/area';
import { booleanPointInPolygon } from '@turf/boolean-point-in-polygon';
import { METRES_PER_DEGREE_LAT, metresPerDegreeLon } from '../../lib/geo.ts';
import { type PaddockGeometry, readPaddockGeometry } from '../paddocks/geometry.ts';

/** A paddock's outline as stored: its id and the geometry's JSON text (or null). */
export interface PaddockShape {
  id: string;
  geometry: string | null;
}

/**
 * The stored outline as a Polygon or MultiPolygon that point-in-polygon can use, or null: the paddocks'
 * own tolerant reading of a stored geometry (paddocks/geometry.ts, readPaddockGeometry).
 */
export function usableOutline(text: string | null): PaddockGeometry | null {
  if (text === null) return null;
  let stored: unknown;
  try {
    stored = JSON.parse(text);
  } catch {
    return null;
  }
  return readPaddockGeometry(stored).geometry;
}

function contains(outline: PaddockGeometry, lat: number, lon: number): boolean {
  try {
    return booleanPointInPolygon([lon, lat], outline);
  } catch {
    return false;
  }
}

/**
 * The paddock the position is in, or null. Where outlines overlap (a small paddock drawn inside a field),
 * the smallest one holding the position wins: that is the one a grazier means.
 */
export function paddockAt(shapes: readonly PaddockShape[], lat: number, lon: number): string | null {
  let best: { id: string; size: number } | null = null;
  for (const shape of shapes) {
    const outline = usableOutline(shape.geometry);
    if (!outline || !contains(outline, lat, lon)) continue;
    const size = area(outline);
    if (!best || size < best.size) best = { id: shape.id, size };
  }
  return best?.id ?? null;
}

/**
 * How far (metres) a position lies outside a paddock's outline: 0 inside it (or on its edge), else the
 * distance to the nearest edge; null when the outline is unusable. Flat at a farm's scale: metres east and
 * north of the position.
 */
export function metresOutside(shape: PaddockShape, lat: number, lon: number): number | null {
  const outline = usableOutline(shape.geometry);
  if (!outline) return null;
  if (contains(outline, lat, lon)) return 0;
  const eastM = metresPerDegreeLon(lat);
  const northM = METRES_PER_DEGREE_LAT;
  const polygons = outline.type === 'Polygon' ? [outline.coordinates] : outline.coordinates;
  let nearest = Number.POSITIVE_INFINITY;
  for (const ring of polygons.flat()) {
    for (let i = 1; i < ring.length; i++) {
      const a = ring[i - 1] as number[];
      const b = ring[i] as number[];
      const ax = ((a[0] as number) - lon) * eastM;
      const ay = ((a[1] as number) - lat) * northM;
      const bx = ((b[0] as number) - lon) * eastM;
      const by = ((b[1] as number) - lat) * northM;
      const dx = bx - ax;
      const dy = by - ay;
      const length2 = dx * dx + dy * dy;
      const along = length2 === 0 ? 0 : Math.max(0, Math.min(1, -(ax * dx + ay * dy) / length2));
      nearest = Math.min(nearest, Math.hypot(ax + along * dx, ay + along * dy));
    }
  }
  return nearest;
}
