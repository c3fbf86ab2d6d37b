import type { Selectable } from 'kysely';
import type { DevicesTable } from '../../db/tables/devices.ts';
import { parseJson } from '../../lib/json.ts';
import { toIso } from '../../lib/time.ts';
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
