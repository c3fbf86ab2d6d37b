import type { Selectable } from 'kysely';
import type { Db } from '../../db/schema.ts';
import type { DevicesTable } from '../../db/tables/devices.ts';
import { notFound } from '../../http/errors.ts';
import { parseJson } from '../../lib/json.ts';
import { toIso } from '../../lib/time.ts';
import { farmInScope, type Scope } from '../farms/access.ts';
import type { Device } from './schemas.ts';

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
    battery: row.battery,
    state: parseJson<Record<string, unknown>>(row.state, {}),
    key_prefix: row.key_prefix,
    last_seen_at: toIso(row.last_seen_at),
    created_at: toIso(row.created_at),
  };
}

/** A device row with what callers need to know of its farm. */
export type ScopedDeviceRow = DeviceRow & { farm_sample: number };

/**
 * The device if its farm is in the scope, else 404 `not_found` (`what` names it in the message, e.g.
 * "house"). Other accounts' and the other mode's devices look exactly like missing ones.
 */
export async function loadDevice(
  db: Db,
  scope: Scope,
  deviceId: string,
  what = 'device',
): Promise<ScopedDeviceRow> {
  const row = await db
    .selectFrom('devices')
    .innerJoin('farms', 'farms.id', 'devices.farm_id')
    .selectAll('devices')
    .select('farms.sample as farm_sample')
    .where('devices.id', '=', deviceId)
    .where('farms.account_id', '=', scope.accountId)
    .where('farms.mode', '=', scope.mode)
    .where(farmInScope(scope))
    .executeTakeFirst();
  if (!row) throw notFound(what, deviceId);
  return row;
}
