/**
 * Which paddock a position is in: point in polygon over the farm's paddock outlines. A stored geometry that
 * is absent, not JSON, not a Polygon or MultiPolygon (or a Feature holding one), or malformed simply
 * contains nothing: outlines stored before validation existed must never fail a report or a read.
 */
import { area } from '@turf/area';
import { booleanPointInPolygon } from '@turf/boolean-point-in-polygon';
import type { MultiPolygon, Polygon, Position } from 'geojson';

/** A paddock's outline as stored: its id and the geometry's JSON text (or null). */
export interface PaddockShape {
  id: string;
  geometry: string | null;
}

function isPosition(value: unknown): value is Position {
  return (
    Array.isArray(value) &&
    value.length >= 2 &&
    Number.isFinite(value[0]) &&
    Number.isFinite(value[1]) &&
    Math.abs(value[0] as number) <= 180 &&
    Math.abs(value[1] as number) <= 90
  );
}

/** A ring of at least four positions (closed or not: the test below does not need it closed). */
function isRing(value: unknown): value is Position[] {
  return Array.isArray(value) && value.length >= 4 && value.every(isPosition);
}

function isRings(value: unknown): value is Position[][] {
  return Array.isArray(value) && value.length > 0 && value.every(isRing);
}

/** The stored outline as a Polygon or MultiPolygon that point-in-polygon can use, or null. */
export function usableOutline(text: string | null): Polygon | MultiPolygon | null {
  if (text === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const object = value as { type?: unknown; geometry?: unknown; coordinates?: unknown } | null;
  if (object?.type === 'Feature') return usableOutline(JSON.stringify(object.geometry ?? null));
  if (object?.type === 'Polygon' && isRings(object.coordinates)) {
    return { type: 'Polygon', coordinates: object.coordinates };
  }
  if (
    object?.type === 'MultiPolygon' &&
    Array.isArray(object.coordinates) &&
    object.coordinates.length > 0 &&
    object.coordinates.every(isRings)
  ) {
    return { type: 'MultiPolygon', coordinates: object.coordinates as Position[][][] };
  }
  return null;
}

function contains(outline: Polygon | MultiPolygon, lat: number, lon: number): boolean {
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
