import type { Selectable, Updateable } from 'kysely';
import { prepared } from '../../db/prepared.ts';
import type { Db } from '../../db/schema.ts';
import type { DevicesTable } from '../../db/tables/devices.ts';
import { parseJson } from '../../lib/json.ts';
import { toIso } from '../../lib/time.ts';
import type { Device, DeviceListFilters } from './schemas.ts';

export type DeviceRow = Selectable<DevicesTable>;

/** The API object of a device row; never carries the key or its hash. */
export function toDevice(row: DeviceRow): Device {
  return {
    id: row.id,
    farm_id: row.farm_id,
    type: row.type,
    name: row.name,
    serial: row.serial,
    animal_id: row.animal_id,
    group_id: row.group_id,
    firmware: row.firmware,
    lat: row.lat,
    lon: row.lon,
    paddock_id: row.paddock_id,
    battery: row.battery,
    state: parseJson<Record<string, unknown>>(row.state, {}),
    key_prefix: row.key_prefix,
    last_seen_at: toIso(row.last_seen_at),
    created_at: toIso(row.created_at),
  };
}

/** Whether an animal or group with this id is on the farm. */
export async function existsOnFarm(
  db: Db,
  table: 'animals' | 'animal_groups',
  id: string,
  farmId: string,
): Promise<boolean> {
  const row = await db
    .selectFrom(table)
    .select('id')
    .where('id', '=', id)
    .where('farm_id', '=', farmId)
    .executeTakeFirst();
  return row !== undefined;
}

/** A farm's devices matching the filters, as a query to page through. */
export function devicesOnFarm(db: Db, farmId: string, filters: DeviceListFilters) {
  let query = db.selectFrom('devices').selectAll().where('farm_id', '=', farmId);
  if (filters.type !== undefined) query = query.where('type', '=', filters.type);
  if (filters.animal_id !== undefined) query = query.where('animal_id', '=', filters.animal_id);
  if (filters.group_id !== undefined) query = query.where('group_id', '=', filters.group_id);
  return query;
}

/** The device's derived paddock and the position it was derived from. */
export async function placeOf(
  db: Db,
  deviceId: string,
): Promise<Pick<DeviceRow, 'paddock_id' | 'placed_lat' | 'placed_lon'>> {
  return db
    .selectFrom('devices')
    .select(['paddock_id', 'placed_lat', 'placed_lon'])
    .where('id', '=', deviceId)
    .executeTakeFirstOrThrow();
}

export async function insertDevice(db: Db, row: DeviceRow): Promise<void> {
  await db.insertInto('devices').values(row).execute();
}

export async function updateDeviceRow(
  db: Db,
  deviceId: string,
  patch: Updateable<DevicesTable>,
): Promise<void> {
  await db.updateTable('devices').set(patch).where('id', '=', deviceId).execute();
}

/** Deletes a device (its readings and commands cascade) and the breaches its readings opened. */
export async function deleteDeviceRows(db: Db, deviceId: string): Promise<void> {
  await db.deleteFrom('alert_breaches').where('device_id', '=', deviceId).execute();
  await db.deleteFrom('devices').where('id', '=', deviceId).execute();
}

/** The device a key hash belongs to, with its farm's account and mode. */
export async function deviceByKeyHash(db: Db, keyHash: string) {
  const [row] = await deviceByKeyHashRow(db, { keyHash });
  return row;
}

/** Built once: every device request whose key is not in the process's cache runs it. */
const deviceByKeyHashRow = prepared((db, q: { keyHash: string }) =>
  db
    .selectFrom('devices')
    .innerJoin('farms', 'farms.id', 'devices.farm_id')
    .select(['devices.id as deviceId', 'devices.farm_id as farmId', 'farms.account_id', 'farms.mode'])
    .where('devices.key_hash', '=', q.keyHash),
);

/** The current key hash of each of these devices that still exists (the MQTT broker's key check). */
export async function keyHashesOf(db: Db, deviceIds: readonly string[]): Promise<Map<string, string>> {
  if (deviceIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('devices')
    .select(['id', 'key_hash'])
    .where('id', 'in', deviceIds)
    .execute();
  return new Map(rows.map((r) => [r.id, r.key_hash]));
}

/** The account each of these devices' farms belongs to (an external broker's usage counts). */
export async function accountsOf(db: Db, deviceIds: readonly string[]): Promise<Map<string, string>> {
  if (deviceIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('devices')
    .innerJoin('farms', 'farms.id', 'devices.farm_id')
    .select(['devices.id', 'farms.account_id'])
    .where('devices.id', 'in', deviceIds)
    .execute();
  return new Map(rows.map((r) => [r.id, r.account_id]));
}

/** Every device id, in pages after `after` (an external broker's login repair pass). */
export async function deviceIdsAfter(
  db: Db,
  after: string,
  limit: number,
): Promise<Array<{ id: string; sample: boolean }>> {
  const rows = await db
    .selectFrom('devices')
    .innerJoin('farms', 'farms.id', 'devices.farm_id')
    .select(['devices.id', 'farms.sample'])
    .where('devices.id', '>', after)
    .orderBy('devices.id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ id: r.id, sample: Number(r.sample) === 1 }));
}
