/**
 * What makes a paddock outline look wrong on a farm (docs/map.md, "Import"): the import's dry run warns
 * about it (never refuses: a farm may really have a field 80 km away), and the console's map fits the farm,
 * not an outlier. Written once for the server's checks (paddocks/import-warnings.ts) and the map
 * (console/web/farm-map.ts).
 */
import { distanceM } from '../lib/geo.ts';

export const IMPORT_WARNING_LIMITS = {
  /** An outline further than this from the farm (its location, else the middle of its paddocks), in km. */
  farKm: 50,
  /** Smaller than this (about 200 m², a large shed) is a pin or a slip drawn as an outline, in acres. */
  minAcres: 0.05,
  /** Larger than this (about 80 km²) is a county's parcel or a stray vertex, not one paddock, in acres. */
  maxAcres: 20_000,
  /** Two outlines overlap when they share more than this part of the smaller one (hand-drawn shared fences overlap by slivers). */
  overlapShare: 0.05,
} as const;

/** [longitude, latitude]. */
export type LonLat = readonly [number, number];

/** The median of each coordinate: the middle of most points, which one far outlier does not move. */
function medianPoint(points: readonly LonLat[]): LonLat | null {
  if (points.length === 0) return null;
  const middle = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const i = Math.floor(sorted.length / 2);
    return sorted.length % 2
      ? (sorted[i] as number)
      : ((sorted[i - 1] as number) + (sorted[i] as number)) / 2;
  };
  return [middle(points.map((p) => p[0])), middle(points.map((p) => p[1]))];
}

/** Where the farm is for these checks: its location when set, else the middle of its paddocks (or of the file's). */
export function farmCentre(location: LonLat | null, paddockCentres: readonly LonLat[]): LonLat | null {
  return location ?? medianPoint(paddockCentres);
}

/** Whether a point is further from the farm's centre than IMPORT_WARNING_LIMITS.farKm. */
export function isFarFromFarm(centre: LonLat, point: LonLat): boolean {
  return distanceM(centre, point) > IMPORT_WARNING_LIMITS.farKm * 1000;
}
