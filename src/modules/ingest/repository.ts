/**
 * Ingest's own statements on SQLite, where a statement costs no round trip: one each, the device update also
 * reading the farm's rules version and whether commands are due (PostgreSQL's one report statement is in
 * report-statement.ts); the device's state, and MQTT reports' idempotence keys on both engines. The columns
 * they write come from the tables' statement modules (db/statements: devices.ts).
 */
import { type Selectable, sql } from 'kysely';
import { prepared } from '../../db/prepared.ts';
import type { Db } from '../../db/schema.ts';
import {
  type DeviceTouch,
  PLACING_DEVICE_COLUMNS,
  REPORTING_DEVICE_COLUMNS,
  touchColumns,
} from '../../db/statements/devices.ts';
import type { DevicesTable } from '../../db/tables/devices.ts';
import type { FarmsTable } from '../../db/tables/foundation.ts';
import type { EngineFarm } from '../alert-engine/rule-cache.ts';
import { isDue } from '../commands/repository.ts';

export type { DeviceTouch } from '../../db/statements/devices.ts';
export type DeviceRow = Selectable<DevicesTable>;
export type FarmRow = Selectable<FarmsTable>;

/** Whether a report carries a position (then its device update reads the position columns back). */
export function carriesPosition(touch: DeviceTouch): boolean {
  return touch.lat !== undefined || touch.lon !== undefined;
}

export type ReportingDevice = Pick<DeviceRow, (typeof REPORTING_DEVICE_COLUMNS)[number]> & {
  /** Read only when asked for (`withState`). */
  state?: string;
} & Partial<Pick<DeviceRow, (typeof PLACING_DEVICE_COLUMNS)[number]>>;

/** What SQLite's device update returns besides the row: what the report needs next, in the same statement. */
export interface TouchedDeviceSqlite {
  device: ReportingDevice;
  /** The farm's columns the alert engine reads (alerts/rule-cache.ts). */
  farm: EngineFarm;
  /** Whether the device has commands due (commands/repository.ts, isDue): only then are they handed out. */
  commandsDue: boolean;
}

/**
 * SQLite: stamps the device's report on its row (locking nothing: SQLite transactions are exclusive) and, in
 * the same statement, reads what the report would otherwise read in two more: the farm's rules version and
 * settings, and whether any command is due to the device. `withState`: read the device's state too (the
 * report merges into it). Undefined: no such device.
 */
export async function touchDevice(
  trx: Db,
  deviceId: string,
  touch: DeviceTouch,
  withState: boolean,
): Promise<TouchedDeviceSqlite | undefined> {
  const [row] = await updateTouched(trx, { deviceId, touch, withState });
  if (!row) return undefined;
  const { farm_settings, farm_rules_version, commands_due, ...device } = row;
  // A device's farm is there (a foreign key): a missing one is a broken database, not a bad report.
  if (farm_settings === null || farm_rules_version === null)
    throw new Error(`farm ${device.farm_id} not found`);
  return {
    device,
    farm: { id: device.farm_id, settings: farm_settings, rules_version: farm_rules_version },
    commandsDue: Boolean(commands_due),
  };
}

/** Built once per engine, the set of columns the report carries, and with or without the state. */
const updateTouched = prepared((db, q: { deviceId: string; touch: DeviceTouch; withState: boolean }) =>
  db
    .updateTable('devices')
    .set(touchColumns(q.touch))
    .where('id', '=', q.deviceId)
    .returning(REPORTING_DEVICE_COLUMNS)
    .$if(q.withState, (qb) => qb.returning('state'))
    .$if(carriesPosition(q.touch), (qb) => qb.returning(PLACING_DEVICE_COLUMNS))
    .returning((eb) => [
      eb
        .selectFrom('farms')
        .select('settings')
        .whereRef('farms.id', '=', 'devices.farm_id')
        .as('farm_settings'),
      eb
        .selectFrom('farms')
        .select('rules_version')
        .whereRef('farms.id', '=', 'devices.farm_id')
        .as('farm_rules_version'),
      eb
        .exists(
          eb
            .selectFrom('commands')
            .select(sql.lit(1).as('due'))
            .whereRef('commands.device_id', '=', 'devices.id')
            .where((c) => isDue(c, q.touch.last_seen_at)),
        )
        .$castTo<number>()
        .as('commands_due'),
    ]),
);

export async function saveDeviceState(trx: Db, deviceId: string, state: string): Promise<void> {
  await trx.updateTable('devices').set({ state }).where('id', '=', deviceId).execute();
}

/**
 * Records an MQTT report's idempotence key; false when `redelivered` and the key was recorded less than
 * `windowMs` ago (the report is stored already). A first delivery always records (refreshing an old key):
 * a device may send the same bytes twice on purpose.
 */
export async function claimReportKey(
  trx: Db,
  deviceId: string,
  delivery: { digest: string; redelivered: boolean },
  now: number,
  windowMs: number,
): Promise<boolean> {
  const row = await trx
    .insertInto('mqtt_report_keys')
    .values({ device_id: deviceId, digest: delivery.digest, received_at: now })
    .onConflict((oc) => {
      const update = oc.columns(['device_id', 'digest']).doUpdateSet({ received_at: now });
      return delivery.redelivered
        ? update.where('mqtt_report_keys.received_at', '<', now - windowMs)
        : update;
    })
    .returning('device_id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Forgets MQTT report keys recorded before `before` (the `mqtt.prune` job); returns how many went. */
export async function pruneReportKeys(db: Db, before: number): Promise<number> {
  const result = await db.deleteFrom('mqtt_report_keys').where('received_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
