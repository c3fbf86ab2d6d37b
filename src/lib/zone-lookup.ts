/**
 * The time zone of a place, from its coordinates (@photostructure/tz-lookup: the timezone-boundary-builder
 * shapes, kept current with the IANA database). A farm created with lat/lon and no timezone takes it, so
 * its days and due dates are the farm's own rather than UTC's.
 */
import tzlookup from '@photostructure/tz-lookup';

/** The IANA zone at lat/lon (at sea, the nautical zone, e.g. Etc/GMT+2); null for coordinates it refuses. */
export function zoneAt(lat: number, lon: number): string | null {
  try {
    return tzlookup(lat, lon);
  } catch {
    return null;
  }
}
