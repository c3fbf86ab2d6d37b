/**
 * Which paddock a position is in: point in polygon over the farm's paddock outlines. A stored geometry that
 * is absent, not JSON, not a Polygon or MultiPolygon (or a Feature holding one), or malformed simply
 * contains nothing: outlines stored before validation existed must never fail a report or a read.
 */
import { area } from '@turf/area';
import { booleanPointInPolygon } from '@turf/boolean-point-in-polygon';
import { pointToPolygonDistance } from '@turf/point-to-polygon-distance';
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
 * How far (metres) a position lies outside a paddock's outline: 0 inside it or on its edge, else the
 * geodesic distance to the nearest edge (a hole's, when the position is in one); null when the outline
 * is unusable.
 */
export function metresOutside(shape: PaddockShape, lat: number, lon: number): number | null {
  const outline = usableOutline(shape.geometry);
  if (!outline) return null;
  try {
    // Negative inside (the distance to the edge from within): inside is simply 0 here.
    return Math.max(0, pointToPolygonDistance([lon, lat], outline, { units: 'meters' }));
  } catch {
    return null;
  }
}
