/** Distances and offsets on the Earth, for routes, thinning and places a few hundred metres apart (no Farmstead fact here). */

/** The mean Earth radius (IUGG), in metres. */
const EARTH_RADIUS_M = 6_371_008.8;

/** Great-circle distance between two [longitude, latitude] points in metres (haversine). */
export function distanceM(a: readonly number[], b: readonly number[]): number {
  const rad = Math.PI / 180;
  const [lon1 = 0, lat1 = 0] = a;
  const [lon2 = 0, lat2 = 0] = b;
  const dLat = (lat2 - lat1) * rad;
  const dLon = (lon2 - lon1) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Metres in a degree of latitude (WGS 84, the mean over a degree). */
export const METRES_PER_DEGREE_LAT = 111_132;

/** Metres in a degree of longitude at latitude `lat`. */
export function metresPerDegreeLon(lat: number): number {
  return 111_320 * Math.cos((lat * Math.PI) / 180);
}

/** The [longitude, latitude] `east` and `north` metres from `from` (flat at a farm's scale). */
export function offsetM(from: readonly number[], east: number, north: number): [number, number] {
  const [lon = 0, lat = 0] = from;
  return [lon + east / metresPerDegreeLon(lat), lat + north / METRES_PER_DEGREE_LAT];
}
