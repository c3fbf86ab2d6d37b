/**
 * A paddock's outline: the one check every way in uses (REST create and PATCH, the import, MCP, the sample
 * farm), the tolerant reading every way out uses (a geometry stored before the check, or by hand in the
 * database, never breaks a read), and its geodesic area in acres (docs/map.md).
 *
 * Structure is checked by @placemarkio/check-geojson (after our own walk, which names the ring or position
 * at fault and checks what the checker does not: coordinate ranges, an area of zero), self-intersections by
 * @turf/kinks, overlapping parts of a MultiPolygon by @turf/intersect, the area by @turf/area (on the WGS 84
 * ellipsoid's mean radius).
 */
import { getIssues } from '@placemarkio/check-geojson';
import { area } from '@turf/area';
import { intersect } from '@turf/intersect';
import { kinks } from '@turf/kinks';
import type { Feature, MultiPolygon, Polygon, Position } from 'geojson';
import { SQUARE_METRES_PER_ACRE } from '../../domain/display-units.ts';
import { invalid } from '../../domain/errors.ts';
import { freeFormProblem } from '../../lib/free-form.ts';

export type PaddockGeometry = Polygon | MultiPolygon;

/** What is wrong with a geometry, and where (the Error object's `param`). */
export interface GeometryProblem {
  param: string;
  message: string;
}

class Refusal extends Error {
  readonly param: string;
  constructor(param: string, message: string) {
    super(message);
    this.param = param;
  }
}

const OTHER_TYPES = new Set([
  'Point',
  'MultiPoint',
  'LineString',
  'MultiLineString',
  'GeometryCollection',
  'FeatureCollection',
  'Feature',
]);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function checkPosition(value: unknown, param: string): Position {
  if (!Array.isArray(value) || value.length < 2 || value.length > 3) {
    throw new Refusal(param, `${param} must be a position [longitude, latitude] (an altitude may follow)`);
  }
  if (!value.every((n) => typeof n === 'number' && Number.isFinite(n))) {
    throw new Refusal(param, `${param} must hold numbers: [longitude, latitude]`);
  }
  const [lon, lat] = value as number[] as [number, number];
  if (lat < -90 || lat > 90) {
    const swapped = lon >= -90 && lon <= 90 ? ' (GeoJSON puts longitude first: [longitude, latitude])' : '';
    throw new Refusal(
      param,
      `${param} has latitude ${lat}, out of range: it must be from -90 to 90${swapped}`,
    );
  }
  if (lon < -180 || lon > 180) {
    throw new Refusal(param, `${param} has longitude ${lon}, out of range: it must be from -180 to 180`);
  }
  return value as Position;
}

function checkRing(value: unknown, param: string): Position[] {
  if (!Array.isArray(value)) throw new Refusal(param, `${param} must be a ring: an array of positions`);
  const ring = value.map((p, i) => checkPosition(p, `${param}[${i}]`));
  if (ring.length < 4) {
    throw new Refusal(
      param,
      `${param} has ${ring.length} position${ring.length === 1 ? '' : 's'}: a ring needs at least 4 (three corners and the first repeated to close it)`,
    );
  }
  const first = ring[0] as Position;
  const last = ring[ring.length - 1] as Position;
  if (first[0] !== last[0] || first[1] !== last[1]) {
    throw new Refusal(
      param,
      `${param} is not closed: its last position [${last.join(', ')}] must repeat its first [${first.join(', ')}]`,
    );
  }
  return ring;
}

function checkPolygonRings(value: unknown, param: string): Position[][] {
  if (!Array.isArray(value) || value.length === 0) {
    throw new Refusal(param, `${param} must be an array of rings: the outline, then any holes`);
  }
  return value.map((ring, i) => checkRing(ring, `${param}[${i}]`));
}

/** Our walk: the shape of `coordinates`, each position's range, rings closed and long enough. */
function walk(value: Record<string, unknown>, param: string): PaddockGeometry {
  const type = value.type;
  if (typeof type === 'string' && OTHER_TYPES.has(type)) {
    throw new Refusal(
      `${param}.type`,
      `${param} is a ${type}: a paddock is an area, so it must be a GeoJSON Polygon or MultiPolygon`,
    );
  }
  if (type !== 'Polygon' && type !== 'MultiPolygon') {
    throw new Refusal(`${param}.type`, `${param}.type must be "Polygon" or "MultiPolygon" (GeoJSON)`);
  }
  const coordinates = value.coordinates;
  const at = `${param}.coordinates`;
  if (type === 'Polygon') return { type, coordinates: checkPolygonRings(coordinates, at) };
  if (!Array.isArray(coordinates) || coordinates.length === 0) {
    throw new Refusal(at, `${at} must be an array of polygons, each an array of rings`);
  }
  return { type, coordinates: coordinates.map((rings, i) => checkPolygonRings(rings, `${at}[${i}]`)) };
}

function polygonsOf(geometry: PaddockGeometry): Position[][][] {
  return geometry.type === 'Polygon' ? [geometry.coordinates] : geometry.coordinates;
}

/** Self-intersections, one polygon at a time (two parts of a MultiPolygon may touch). */
function checkKinks(geometry: PaddockGeometry, param: string): void {
  polygonsOf(geometry).forEach((rings, i) => {
    const crossing = kinks({ type: 'Polygon', coordinates: rings }).features[0];
    if (!crossing) return;
    const where = crossing.geometry.coordinates.map((n) => Number(n.toFixed(7))).join(', ');
    const at = geometry.type === 'Polygon' ? `${param}.coordinates` : `${param}.coordinates[${i}]`;
    throw new Refusal(
      at,
      `${at} crosses itself at [${where}] (a self-intersection): draw the outline so no two edges cross`,
    );
  });
}

/** Overlaps smaller than this (square metres) are rounding where two parts share an edge, not an overlap. */
const OVERLAP_TOLERANCE_M2 = 1;

/** The outline's bounding box, [west, south, east, north]. */
function boundsOf(rings: Position[][]): [number, number, number, number] {
  const outline = rings[0] ?? [];
  const lons = outline.map((p) => p[0] as number);
  const lats = outline.map((p) => p[1] as number);
  return [Math.min(...lons), Math.min(...lats), Math.max(...lons), Math.max(...lats)];
}

/**
 * The parts of a MultiPolygon may touch (at a corner or along a fence line) but not overlap, as Simple
 * Features says: an overlap would be counted twice in the acres, and a point in it would be in the paddock
 * twice. Parts whose boxes do not meet are not intersected.
 */
function checkParts(geometry: PaddockGeometry, param: string): void {
  if (geometry.type !== 'MultiPolygon') return;
  const parts = geometry.coordinates;
  const bounds = parts.map(boundsOf);
  const feature = (rings: Position[][]): Feature<Polygon> => ({
    type: 'Feature',
    properties: {},
    geometry: { type: 'Polygon', coordinates: rings },
  });
  for (let j = 1; j < parts.length; j++) {
    for (let i = 0; i < j; i++) {
      const [a, b] = [bounds[i], bounds[j]] as [number[], number[]];
      if ((a[0] as number) > (b[2] as number) || (b[0] as number) > (a[2] as number)) continue;
      if ((a[1] as number) > (b[3] as number) || (b[1] as number) > (a[3] as number)) continue;
      const shared = intersect({
        type: 'FeatureCollection',
        features: [feature(parts[i] as Position[][]), feature(parts[j] as Position[][])],
      });
      const overlap = shared ? area(shared) : 0;
      if (overlap <= OVERLAP_TOLERANCE_M2) continue;
      const at = `${param}.coordinates[${j}]`;
      throw new Refusal(
        at,
        `${at} overlaps ${param}.coordinates[${i}] by ${Math.round(overlap).toLocaleString('en')} m²: the parts of a MultiPolygon may touch but not overlap (draw them as one polygon, or move the shared edge)`,
      );
    }
  }
}

/** Unwraps a Feature (its geometry is what is stored); the param names where the geometry sat. */
function unwrap(value: unknown, param: string): { geometry: Record<string, unknown>; param: string } {
  if (!isObject(value)) {
    throw new Refusal(param, `${param} must be a GeoJSON Polygon or MultiPolygon object`);
  }
  if (value.type !== 'Feature') return { geometry: value, param };
  if (!isObject(value.geometry)) {
    throw new Refusal(
      `${param}.geometry`,
      `${param} is a Feature without a geometry: give a Polygon or MultiPolygon`,
    );
  }
  return { geometry: value.geometry, param: `${param}.geometry` };
}

function check(value: unknown, param: string, full: boolean): PaddockGeometry {
  const found = unwrap(value, param);
  const geometry = walk(found.geometry, found.param);
  if (full) {
    const size = freeFormProblem(geometry);
    if (size) throw new Refusal(param, `${param} ${size}`);
    // Anything our walk does not look at (a bad bbox, members that confuse GeoJSON readers).
    const issue = getIssues(JSON.stringify(found.geometry))[0];
    if (issue) throw new Refusal(found.param, `${found.param} is not valid GeoJSON: ${issue.message}`);
    checkKinks(geometry, found.param);
    checkParts(geometry, found.param);
  }
  if (!(area(geometry) > 0)) throw new Refusal(found.param, `${found.param} encloses no area`);
  return geometry;
}

/**
 * The paddock geometry to store, from what a caller sent: a GeoJSON Polygon or MultiPolygon in WGS 84 (or a
 * Feature holding one, of which only the geometry is kept), as `{type, coordinates}` (a bbox or other
 * members are dropped). Else a 400 naming the member at fault (`geometry.coordinates[0]`) and the problem.
 */
export function checkPaddockGeometry(value: unknown, param = 'geometry'): PaddockGeometry {
  try {
    return check(value, param, true);
  } catch (err) {
    if (err instanceof Refusal) throw invalid(err.param, err.message);
    throw err;
  }
}

/** The same check, answering the problem instead of throwing (the import's preview lists each). */
export function checkedPaddockGeometry(
  value: unknown,
  param = 'geometry',
): { geometry: PaddockGeometry } | { problem: GeometryProblem } {
  try {
    return { geometry: check(value, param, true) };
  } catch (err) {
    if (err instanceof Refusal) return { problem: { param: err.param, message: err.message } };
    throw err;
  }
}

/**
 * A stored geometry read back: the polygon when its shape can be drawn and measured, else why not. Reads
 * do not look for self-intersections (costly on every list; stored ones were checked when written).
 */
export function readPaddockGeometry(
  stored: unknown,
): { geometry: PaddockGeometry; problem: null } | { geometry: null; problem: string } {
  try {
    return { geometry: check(stored, 'geometry', false), problem: null };
  } catch (err) {
    if (err instanceof Refusal) return { geometry: null, problem: err.message };
    throw err;
  }
}

/** Geodesic area in acres, to two decimals (about 8 m², finer than any outline is drawn). */
export function acresOf(geometry: PaddockGeometry): number {
  return Math.round((area(geometry) / SQUARE_METRES_PER_ACRE) * 100) / 100;
}

/** The drawn area of a stored geometry, or null when there is none or it cannot be measured. */
export function drawnAcres(stored: unknown): number | null {
  if (stored === null || stored === undefined) return null;
  const { geometry } = readPaddockGeometry(stored);
  return geometry ? acresOf(geometry) : null;
}

/**
 * A point inside the geometry, for placing what is in the paddock (an alert about it, a group in it): on
 * the horizontal line through the middle of the first polygon's outline, halfway between the first two
 * crossings of any ring (inside even where the outline is concave or has holes).
 */
export function pointInside(geometry: PaddockGeometry): Position {
  const rings = polygonsOf(geometry)[0] ?? [];
  const outline = rings[0] ?? [];
  const lats = outline.map((p) => p[1] as number);
  const y = (Math.min(...lats) + Math.max(...lats)) / 2;
  const crossings: number[] = [];
  for (const ring of rings) {
    for (let i = 0; i < ring.length - 1; i++) {
      const [x1, y1] = ring[i] as [number, number];
      const [x2, y2] = ring[i + 1] as [number, number];
      // Half-open, so a vertex on the line counts once.
      if (y1 <= y !== y2 <= y) crossings.push(x1 + ((y - y1) / (y2 - y1)) * (x2 - x1));
    }
  }
  crossings.sort((a, b) => a - b);
  const [a, b] = crossings;
  if (a === undefined || b === undefined) return outline[0] ?? [0, 0];
  return [(a + b) / 2, y];
}
