/**
 * Grazing's queries: a paddock's stays as its history pages them, the farm's paddock outlines, and the
 * devices' derived paddock. The stays themselves are written by modules/stays.
 */
import { beforeCondition, type Page, type PageRequest, toPage } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import { toIso } from '../../lib/time.ts';
import type { StayRow } from '../stays/repository.ts';
import type { PaddockShape } from './geometry.ts';
import type { GrazingStay } from './schemas.ts';

export function toGrazingStay(row: StayRow): GrazingStay {
  return {
    subject_type: row.subject_type,
    subject_id: row.subject_id,
    name: row.name,
    from: toIso(row.from_at),
    until: toIso(row.until_at),
  };
}

/** A paddock's stays, newest `from` first, one page. */
export async function stayPage(db: Db, paddockId: string, page: PageRequest): Promise<Page<GrazingStay>> {
  const rows = await db
    .selectFrom('grazing_stays')
    .selectAll()
    .where('paddock_id', '=', paddockId)
    .where(beforeCondition('from_at', 'id', page))
    .orderBy('from_at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit + 1)
    .execute();
  return toPage(rows, page, (r) => ({ at: Number(r.from_at), id: r.id }), toGrazingStay);
}

/** The farm's paddock outlines. */
export async function paddockShapes(db: Db, farmId: string): Promise<PaddockShape[]> {
  return db
    .selectFrom('paddocks')
    .select(['id', 'geometry'])
    .where('farm_id', '=', farmId)
    .orderBy('id')
    .execute();
}

/** A device as its placing needs it. */
export interface PlacedDevice {
  id: string;
  farm_id: string;
  type: string;
  name: string;
  group_id: string | null;
  lat: number | null;
  lon: number | null;
  paddock_id: string | null;
  /** The position paddock_id was derived from; null for a device never placed. */
  placed_lat: number | null;
  placed_lon: number | null;
}

const PLACED_COLUMNS = [
  'id',
  'farm_id',
  'type',
  'name',
  'group_id',
  'lat',
  'lon',
  'paddock_id',
  'placed_lat',
  'placed_lon',
] as const;

export async function findPlacedDevice(db: Db, id: string): Promise<PlacedDevice | undefined> {
  return db.selectFrom('devices').select(PLACED_COLUMNS).where('id', '=', id).executeTakeFirst();
}

/** The farm's devices that have a position, in id order (the order their rows are locked in). */
export async function devicesWithPosition(db: Db, farmId: string): Promise<PlacedDevice[]> {
  return db
    .selectFrom('devices')
    .select(PLACED_COLUMNS)
    .where('farm_id', '=', farmId)
    .where((eb) => eb.or([eb('lat', 'is not', null), eb('paddock_id', 'is not', null)]))
    .orderBy('id')
    .execute();
}

/** Stores the device's paddock and the position it was derived from. */
export async function setDevicePlace(
  db: Db,
  id: string,
  place: { paddock_id: string | null; lat: number | null; lon: number | null },
): Promise<void> {
  await db
    .updateTable('devices')
    .set({ paddock_id: place.paddock_id, placed_lat: place.lat, placed_lon: place.lon })
    .where('id', '=', id)
    .execute();
}
