/**
 * The import's warnings (docs/map.md, "Import"): what looks wrong in a file that is otherwise importable
 * (a Google Earth file of fields on another continent, twelve outlines all named "Farm"). Each outline the
 * import would create gets a list of sentences; nothing is refused for them. Limits: src/domain/paddock-import.ts.
 */
import { area } from '@turf/area';
import { intersect } from '@turf/intersect';
import type { Feature, MultiPolygon, Polygon } from 'geojson';
import { SQUARE_METRES_PER_ACRE } from '../../domain/display-units.ts';
import {
  farmCentre,
  IMPORT_WARNING_LIMITS,
  isFarFromFarm,
  type LonLat,
} from '../../domain/paddock-import.ts';
import { distanceM } from '../../lib/geo.ts';
import { type PaddockGeometry, pointInside } from './geometry.ts';

export interface Outline {
  name: string;
  geometry: PaddockGeometry;
}

/** What the checks know of the farm: its location and its paddocks as stored. */
export interface ImportContext {
  location: LonLat | null;
  existing: readonly Outline[];
}

const asFeature = (geometry: PaddockGeometry): Feature<Polygon | MultiPolygon> => ({
  type: 'Feature',
  properties: {},
  geometry,
});

/** The part of the smaller outline the two share (0 when they do not touch). */
function overlapShare(a: PaddockGeometry, b: PaddockGeometry, boxA: number[], boxB: number[]): number {
  const [ax0, ay0, ax1, ay1] = boxA as [number, number, number, number];
  const [bx0, by0, bx1, by1] = boxB as [number, number, number, number];
  if (ax0 > bx1 || bx0 > ax1 || ay0 > by1 || by0 > ay1) return 0;
  const shared = intersect({ type: 'FeatureCollection', features: [asFeature(a), asFeature(b)] });
  if (!shared) return 0;
  return area(shared) / Math.min(area(a), area(b));
}

/** [west, south, east, north] of the outline's outer rings. */
function boxOf(geometry: PaddockGeometry): number[] {
  const rings =
    geometry.type === 'Polygon'
      ? [geometry.coordinates[0] ?? []]
      : geometry.coordinates.map((p) => p[0] ?? []);
  const points = rings.flat();
  const xs = points.map((p) => p[0] as number);
  const ys = points.map((p) => p[1] as number);
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

const key = (name: string) => name.trim().toLowerCase();

/** One list of warnings per outline of `created`, in its order. */
export function importWarnings(created: readonly Outline[], context: ImportContext): string[][] {
  const limits = IMPORT_WARNING_LIMITS;
  const centres = created.map((o) => pointInside(o.geometry) as unknown as LonLat);
  const existingCentres = context.existing.map((o) => pointInside(o.geometry) as unknown as LonLat);
  const centre = farmCentre(context.location, existingCentres.length ? existingCentres : centres);
  const from = context.location ? "the farm's location" : "the farm's other paddocks";
  const boxes = created.map((o) => boxOf(o.geometry));
  const existingBoxes = context.existing.map((o) => boxOf(o.geometry));
  const existingNames = new Set(context.existing.map((o) => key(o.name)));
  const counts = new Map<string, number>();
  for (const o of created) counts.set(key(o.name), (counts.get(key(o.name)) ?? 0) + 1);

  return created.map((outline, i) => {
    const warnings: string[] = [];
    const point = centres[i] as LonLat;
    if (centre && isFarFromFarm(centre, point)) {
      const km = Math.round(distanceM(centre, point) / 1000).toLocaleString('en');
      warnings.push(`It is ${km} km from ${from} (more than ${limits.farKm} km).`);
    }
    if ((counts.get(key(outline.name)) ?? 0) > 1)
      warnings.push(`The name "${outline.name}" is used twice in the file.`);
    if (existingNames.has(key(outline.name)))
      warnings.push(`The farm already has a paddock named "${outline.name}".`);
    const acres = area(outline.geometry) / SQUARE_METRES_PER_ACRE;
    if (acres < limits.minAcres)
      warnings.push(`It is implausibly small for a paddock (under ${limits.minAcres} acres).`);
    if (acres > limits.maxAcres) {
      warnings.push(
        `It is implausibly large for a paddock (over ${limits.maxAcres.toLocaleString('en')} acres).`,
      );
    }
    const overlapping = created.flatMap((other, j) =>
      j !== i &&
      overlapShare(outline.geometry, other.geometry, boxes[i] as number[], boxes[j] as number[]) >
        limits.overlapShare
        ? [`"${other.name}" (feature ${j + 1})`]
        : [],
    );
    if (overlapping.length) warnings.push(`It overlaps ${overlapping.join(', ')} in the file.`);
    const overlappingExisting = context.existing.flatMap((other, j) =>
      overlapShare(outline.geometry, other.geometry, boxes[i] as number[], existingBoxes[j] as number[]) >
      limits.overlapShare
        ? [`"${other.name}"`]
        : [],
    );
    if (overlappingExisting.length) {
      warnings.push(`It overlaps the farm's paddock ${overlappingExisting.join(', ')}.`);
    }
    return warnings;
  });
}
