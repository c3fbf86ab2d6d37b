/**
 * Ingest's own statements: on PostgreSQL a report's device, readings, latest values, farm and the device's
 * animal in one; on SQLite, where a statement costs no round trip, one each, the device update also reading
 * the farm's rules version and whether commands are due.
 */
import { type RawBuilder, type Selectable, sql } from 'kysely';
import { nameStatement } from '../../db/named-statements.ts';
import { pgBools, pgNumbers, pgTexts } from '../../db/pg-arrays.ts';
import { prepared } from '../../db/prepared.ts';
import type { Db } from '../../db/schema.ts';
import { type BatchKind, batchedCall } from '../../db/statement-batch.ts';
import type { DevicesTable } from '../../db/tables/devices.ts';
import type { FarmsTable } from '../../db/tables/foundation.ts';
import type { AnimalLabelRow } from '../alerts/engine-repository.ts';
import type { EngineFarm } from '../alerts/rule-cache.ts';
import { type CommandRow, handOutStatement, handOutToEachStatement, isDue } from '../commands/repository.ts';
import { moveLatestForward } from '../readings/repository.ts';
import type { PreparedReading } from '../readings/service.ts';

export type DeviceRow = Selectable<DevicesTable>;
export type FarmRow = Selectable<FarmsTable>;

/**
 * What a report sets on its device row (last_seen_at always, and from it the smoothed gap between reports;
 * the rest when the report carries them).
 */
export interface DeviceTouch {
  last_seen_at: number;
  /** The report's own random token (alerts/recent-readings.ts); the row keeps the one it replaces. */
  report_token: string;
  battery?: number;
  lat?: number;
  lon?: number;
  firmware?: string;
}

/**
 * The device's usual gap between reports, for device.quiet: each new gap weighs a fifth, so the value
 * follows a mean of roughly its last ten gaps (as the brief's usual interval does) without reading
 * them back. Computed in the UPDATE from the old row, so it costs no statement.
 */
export function reportGap(now: number | RawBuilder<number>): RawBuilder<number | null> {
  return sql<
    number | null
  >`case when last_seen_at is null or last_seen_at >= ${now} then report_gap_ms when report_gap_ms is null then ${now} - last_seen_at else report_gap_ms * 0.8 + (${now} - last_seen_at) * 0.2 end`;
}

/**
 * What the PostgreSQL statement returns besides the device: what the alert engine would read next, and
 * the device's commands it handed out.
 */
export interface TouchedDevicePg {
  device: DeviceRow;
  farm: FarmRow;
  /** The device's animal (null: none, or not on the farm). */
  animal: AnimalLabelRow | null;
  /** The commands handed out to the device with this report (marked delivered), in no order. */
  commands: CommandRow[];
}

/**
 * PostgreSQL: one statement (data-modifying CTEs) instead of five round trips: it updates the device
 * (locking its row, so concurrent reports of one device queue here), inserts the readings (`unnest`
 * arrays, a fixed handful of parameters whatever their number), moves the latest value per metric forward
 * (`latest` holds one row per metric), hands out the device's commands (as commands/repository.ts's
 * handOutStatement, which SQLite runs last) and reads the device's farm and the label of the device's
 * animal, which the alert engine would read next (the farm's custom rules it keeps per process:
 * alerts/rule-cache.ts). Readings and latest values are written only when the device exists (they join
 * the updated row). Undefined: no such device, nothing written.
 */
export function touchDeviceAndStorePg(
  trx: Db,
  deviceId: string,
  touch: DeviceTouch,
  readings: readonly PreparedReading[],
  latest: readonly PreparedReading[],
): Promise<TouchedDevicePg | undefined> {
  return batchedCall(trx, TOUCH_BATCH, { deviceId, touch, readings, latest }, touchOneDeviceAndStorePg);
}

async function touchOneDeviceAndStorePg(
  trx: Db,
  { deviceId, touch, readings, latest }: TouchCall,
): Promise<TouchedDevicePg | undefined> {
  const sets = sql.join(
    Object.entries(touchColumns(touch)).map(([column, value]) => sql`${sql.ref(column)} = ${value}`),
    sql`, `,
  );
  const cols = (rows: readonly PreparedReading[]) => ({
    metrics: pgTexts(rows.map((r) => r.metric)),
    values: pgNumbers(rows.map((r) => r.value)),
    units: pgTexts(rows.map((r) => r.unit)),
    ats: pgNumbers(rows.map((r) => r.at)),
    rawValues: pgNumbers(rows.map((r) => r.raw_value)),
    rawUnits: pgTexts(rows.map((r) => r.raw_unit)),
  });
  const r = cols(readings);
  const l = cols(latest);
  const handOut = handOutStatement(trx, { deviceId, now: touch.last_seen_at, everyOpen: false });
  const statement = sql<
    DeviceRow & { farm_row: FarmRow; animal_row: AnimalLabelRow | null; command_rows: CommandRow[] }
  >`
    with d as (
      update devices set ${sets} where id = ${deviceId} returning *
    ), stored as (
      insert into readings (device_id, farm_id, metric, value, unit, at, raw_value, raw_unit)
      select d.id, d.farm_id, r.metric, r.value, r.unit, r.at, r.raw_value, r.raw_unit
      from d, unnest(${r.metrics}::text[], ${r.values}::float8[], ${r.units}::text[], ${r.ats}::int8[],
        ${r.rawValues}::float8[], ${r.rawUnits}::text[])
        as r(metric, value, unit, at, raw_value, raw_unit)
    ), moved as (${latestMoved(
      trx,
      sql`select d.id, l.metric, l.value, l.unit, l.at
        from d, unnest(${l.metrics}::text[], ${l.values}::float8[], ${l.units}::text[], ${l.ats}::int8[])
          as l(metric, value, unit, at)`,
    )}), handed_out as (${handOut})
    select d.*, to_jsonb(f.*) as farm_row,
      (select coalesce(json_agg(h), '[]'::json) from handed_out h) as command_rows,
      (select json_build_object('name', a.name, 'tag', a.tag, 'group_id', a.group_id)
        from animals a where a.id = d.animal_id and a.farm_id = d.farm_id) as animal_row
    from d join farms f on f.id = d.farm_id`.compile(trx);
  // One text per set of touched columns: a named statement, parsed and planned once per connection.
  nameStatement(statement.sql);
  const result = await trx.executeQuery(statement);
  const row = result.rows[0];
  if (!row) return undefined;
  const { farm_row: farm, animal_row: animal, command_rows: commands, ...device } = row;
  return { device, farm, animal, commands };
}

/** The latest-value upsert of the report statements, from `rows` (device_id, metric, value, unit, at). */
function latestMoved(db: Db, rows: RawBuilder<unknown>) {
  return db
    .insertInto('device_latest')
    .columns(['device_id', 'metric', 'value', 'unit', 'at'])
    .expression(rows)
    .onConflict(moveLatestForward);
}

interface TouchCall {
  deviceId: string;
  touch: DeviceTouch;
  readings: readonly PreparedReading[];
  latest: readonly PreparedReading[];
}

/**
 * The report statement for a group's reports at once (statement-batch.ts), one text whatever their number:
 * each report's device row, readings and latest values as arrays (`unnest`, the readings tagged with their
 * report's place), each column the report leaves out kept as it was. The device rows are updated in id
 * order. Answers each report as the statement for one does (undefined: no such device).
 */
const TOUCH_BATCH: BatchKind<TouchCall, TouchedDevicePg | undefined> = {
  async run(trx: Db, calls: readonly TouchCall[]) {
    const optional = <T>(
      column: 'battery' | 'lat' | 'lon' | 'firmware',
      format: (v: (T | null)[]) => string,
    ) => ({
      has: pgBools(calls.map((c) => c.touch[column] !== undefined)),
      value: format(calls.map((c) => (c.touch[column] ?? null) as T | null)),
    });
    const [battery, lat, lon, firmware] = [
      optional<number>('battery', pgNumbers),
      optional<number>('lat', pgNumbers),
      optional<number>('lon', pgNumbers),
      optional<string>('firmware', pgTexts),
    ];
    const rows = (pick: (c: TouchCall) => readonly PreparedReading[]) => {
      const r = {
        place: [] as number[],
        metric: [] as string[],
        value: [] as number[],
        unit: [] as (string | null)[],
        at: [] as number[],
        rawValue: [] as (number | null)[],
        rawUnit: [] as (string | null)[],
      };
      for (const [place, call] of calls.entries()) {
        for (const reading of pick(call)) {
          r.place.push(place + 1);
          r.metric.push(reading.metric);
          r.value.push(reading.value);
          r.unit.push(reading.unit);
          r.at.push(reading.at);
          r.rawValue.push(reading.raw_value);
          r.rawUnit.push(reading.raw_unit);
        }
      }
      return {
        place: pgNumbers(r.place),
        metric: pgTexts(r.metric),
        value: pgNumbers(r.value),
        unit: pgTexts(r.unit),
        at: pgNumbers(r.at),
        rawValue: pgNumbers(r.rawValue),
        rawUnit: pgTexts(r.rawUnit),
      };
    };
    const r = rows((c) => c.readings);
    const l = rows((c) => c.latest);
    const now = sql<number>`v.now_ms`;
    const keep = (column: string, has: string, value: string) =>
      sql`${sql.ref(column)} = case when ${sql.ref(`v.${has}`)} then ${sql.ref(`v.${value}`)} else devices.${sql.ref(column)} end`;
    const statement = sql<
      DeviceRow & {
        place: number;
        farm_row: FarmRow;
        animal_row: AnimalLabelRow | null;
        command_rows: CommandRow[];
      }
    >`
      with v as (
        select * from unnest(
          ${pgTexts(calls.map((c) => c.deviceId))}::text[], ${pgNumbers(calls.map((c) => c.touch.last_seen_at))}::int8[],
          ${pgTexts(calls.map((c) => c.touch.report_token))}::text[],
          ${battery.has}::bool[], ${battery.value}::float8[], ${lat.has}::bool[], ${lat.value}::float8[],
          ${lon.has}::bool[], ${lon.value}::float8[], ${firmware.has}::bool[], ${firmware.value}::text[]
        ) with ordinality as v(device_id, now_ms, token, has_battery, battery_v, has_lat, lat_v, has_lon, lon_v,
          has_firmware, firmware_v, place)
      ), locked as (
        select devices.id from devices join v on v.device_id = devices.id order by devices.id for no key update of devices
      ), d as (
        update devices set last_seen_at = ${now}, report_token = v.token, report_gap_ms = ${reportGap(now)},
          report_token_prev = devices.report_token,
          ${keep('battery', 'has_battery', 'battery_v')}, ${keep('lat', 'has_lat', 'lat_v')},
          ${keep('lon', 'has_lon', 'lon_v')}, ${keep('firmware', 'has_firmware', 'firmware_v')}
        from v where devices.id = v.device_id and devices.id in (select id from locked)
        returning devices.*, v.place::int4 as place, v.now_ms as batch_now
      ), stored as (
        insert into readings (device_id, farm_id, metric, value, unit, at, raw_value, raw_unit)
        select d.id, d.farm_id, r.metric, r.value, r.unit, r.at, r.raw_value, r.raw_unit
        from unnest(${r.place}::int4[], ${r.metric}::text[], ${r.value}::float8[], ${r.unit}::text[], ${r.at}::int8[],
          ${r.rawValue}::float8[], ${r.rawUnit}::text[])
          as r(place, metric, value, unit, at, raw_value, raw_unit) join d on d.place = r.place
      ), moved as (${latestMoved(
        trx,
        sql`select d.id, l.metric, l.value, l.unit, l.at
          from unnest(${l.place}::int4[], ${l.metric}::text[], ${l.value}::float8[], ${l.unit}::text[], ${l.at}::int8[])
            as l(place, metric, value, unit, at) join d on d.place = l.place`,
      )}), handed_out as (${handOutToEachStatement(trx)})
      select d.*, to_jsonb(f.*) as farm_row,
        (select coalesce(json_agg(h), '[]'::json) from handed_out h where h.device_id = d.id) as command_rows,
        (select json_build_object('name', a.name, 'tag', a.tag, 'group_id', a.group_id)
          from animals a where a.id = d.animal_id and a.farm_id = d.farm_id) as animal_row
      from d join farms f on f.id = d.farm_id`.compile(trx);
    nameStatement(statement.sql);
    const result = await trx.executeQuery(statement);
    const answers: Array<TouchedDevicePg | undefined> = calls.map(() => undefined);
    for (const row of result.rows) {
      const {
        place,
        farm_row: farm,
        animal_row: animal,
        command_rows: commands,
        batch_now: _,
        ...device
      } = row as typeof row & { batch_now: unknown };
      answers[place - 1] = { device, farm, animal, commands };
    }
    return answers;
  },
};

function touchColumns(touch: DeviceTouch) {
  // Every right-hand side reads the row as it was, so report_token_prev gets the replaced token.
  return {
    ...touch,
    report_gap_ms: reportGap(touch.last_seen_at),
    report_token_prev: sql<string | null>`report_token`,
  };
}

/**
 * The device's columns a report reads on SQLite (the service, the readings, the alert engine): not its key,
 * place or battery, and its state only when the report carries some to merge into it. In isolation the
 * update took 12.4 µs returning every column and 9.6 µs returning these.
 */
const REPORTING_DEVICE_COLUMNS = [
  'id',
  'farm_id',
  'name',
  'type',
  'animal_id',
  'group_id',
  'quiet_level',
  'report_token',
  'report_token_prev',
  'clock_skewed',
] as const;

export type ReportingDevice = Pick<DeviceRow, (typeof REPORTING_DEVICE_COLUMNS)[number]> & {
  /** Read only when asked for (`withState`). */
  state?: string;
};

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
