/**
 * PostgreSQL ingest's report statement: a report's device, readings, latest values and command hand-out, with
 * the farm and the device's animal read back, in one statement (data-modifying CTEs), for one report or a
 * group's at once (db/statement-batch.ts). Both forms are built once per shape (db/prepared.ts), their rows
 * going as array literals. The columns they write come from the tables' statement modules (db/statements:
 * devices.ts, readings.ts, device-latest.ts, device-positions.ts). SQLite's statements, one each, are in
 * repository.ts.
 */
import { type RawBuilder, sql } from 'kysely';
import { jsonList, nullable, num, record, text } from '../../db/decode.ts';
import { type PgColumnArrays, pgArray, pgBools, pgNumbers, pgTexts } from '../../db/pg-arrays.ts';
import { prepared } from '../../db/prepared.ts';
import type { Db } from '../../db/schema.ts';
import { type BatchKind, batchedCall } from '../../db/statement-batch.ts';
import { latestArrays, latestColumns, upsertLatestFrom } from '../../db/statements/device-latest.ts';
import { insertPositionsFrom } from '../../db/statements/device-positions.ts';
import {
  type DeviceTouch,
  reportGap,
  statusIsNewer,
  TOUCH_OPTIONAL,
  TOUCH_OPTIONAL_COLUMNS,
  touchColumns,
} from '../../db/statements/devices.ts';
import {
  insertReadingsFrom,
  readingArrays,
  readingColumns,
  readingRef,
} from '../../db/statements/readings.ts';
import type { AnimalLabelRow } from '../alert-engine/repository.ts';
import { type CommandRow, handOutStatement, handOutToEachStatement } from '../commands/repository.ts';
import type { PreparedReading } from '../readings/service.ts';
import type { DeviceRow, FarmRow } from './repository.ts';

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

interface TouchCall {
  deviceId: string;
  touch: DeviceTouch;
  readings: readonly PreparedReading[];
  latest: readonly PreparedReading[];
}

/**
 * The report statement, for one report or a group's: `d`, the updated device rows (with `place`, and
 * `batch_now` for a group), is made by `devices`; then the readings and latest values from `unnest` rows `r`
 * and `l` joined to `d` by `join`, the hand-out, and per device row its farm, commands and animal. Both forms
 * share every piece but the device update and the join. Two forms, because a group's statement made for one
 * report costs that report more than the statement written for one: measured in one process, lone reports
 * on PostgreSQL alternating between the two (this statement and the state statement, report-state.ts),
 * 500 reports each a run, two runs: 1-reading reports 15.0 → 22.0 and 21.6 → 25.2 ms median wall time, 1,555 → 1,957 and
 * 1,665 → 1,988 µs CPU; 100-reading reports 13.8 → 16.9 and 34.8 → 42.4 ms, 1,904 → 2,348 and 2,440 →
 * 2,926 µs (BENCHMARKS.md, "One home per hot statement").
 */
function reportStatement(
  trx: Db,
  parts: {
    devices: RawBuilder<unknown>;
    readings: RawBuilder<unknown>;
    latest: RawBuilder<unknown>;
    /** How `unnest` rows named by the alias meet `d`: `from` (a lone report's cross join) or by place. */
    join: (alias: string, rows: RawBuilder<unknown>) => RawBuilder<unknown>;
    handOut: { compile(db: Db): unknown } | RawBuilder<unknown>;
    commandsOf: RawBuilder<unknown>;
    /** The positions to store (db/statements/device-positions.ts): only when a report carries one. */
    positions?: { compile(db: Db): unknown };
  },
) {
  const positioned = parts.positions ? sql`, positioned as (${parts.positions})` : sql``;
  return sql<Record<string, unknown>>`
    with ${parts.devices}, stored as (${insertReadingsFrom(
      sql`d.id`,
      sql`d.farm_id`,
      readingRef('r'),
      parts.join('r', parts.readings),
    )}), moved as (${upsertLatestFrom(trx, sql`d.id`, 'l', parts.join('l', parts.latest))}), handed_out as (${parts.handOut})${positioned}
    select d.*, to_jsonb(f.*) as farm_row,
      (select coalesce(json_agg(h), '[]'::json) from handed_out h${parts.commandsOf}) as command_rows,
      (select json_build_object('name', a.name, 'tag', a.tag, 'eid', a.eid, 'group_id', a.group_id,
          'group_name', g.name)
        from animals a left join animal_groups g on g.id = a.group_id
        where a.id = d.animal_id and a.farm_id = d.farm_id) as animal_row
    from d join farms f on f.id = d.farm_id`;
}

/** Reads a report statement's row (the device's own columns, and its farm, animal and commands as JSON). */
function touchedOf(row: Record<string, unknown>): TouchedDevicePg {
  const { farm_row, animal_row, command_rows, place: _place, batch_now: _now, ...device } = row;
  text(device.id, 'device.id');
  text(device.farm_id, 'device.farm_id');
  const farm = record(farm_row, 'farm_row');
  text(farm.id, 'farm_row.id');
  num(farm.rules_version, 'farm_row.rules_version');
  const animal = nullable(record)(animal_row, 'animal_row');
  const commands = jsonList(command_rows, 'command_rows').map((c) => {
    const command = record(c, 'command_rows[]');
    text(command.id, 'command_rows[].id');
    text(command.command, 'command_rows[].command');
    return command as unknown as CommandRow;
  });
  return {
    device: device as unknown as DeviceRow,
    farm: farm as unknown as FarmRow,
    animal: animal as AnimalLabelRow | null,
    commands,
  };
}

function touchOneDeviceAndStorePg(
  trx: Db,
  { deviceId, touch, readings, latest }: TouchCall,
): Promise<TouchedDevicePg | undefined> {
  return reportOne(trx, {
    deviceId,
    touch,
    readings: readingColumns(readings),
    latest: latestColumns(latest),
    positioned: touch.lat !== undefined && touch.lon !== undefined,
  }).then(([row]) => (row ? touchedOf(row) : undefined));
}

/**
 * A lone report's statement, built once per set of touched columns and whether a position is stored
 * (db/prepared.ts): its readings and latest values come as array literals, which the builder puts in place
 * without reading them. A named statement, parsed and planned once per connection.
 */
const reportOne = prepared(
  (
    db,
    q: {
      deviceId: string;
      touch: DeviceTouch;
      readings: PgColumnArrays;
      latest: PgColumnArrays;
      positioned: boolean;
    },
  ) => {
    const sets = sql.join(
      Object.entries(touchColumns(q.touch)).map(([column, value]) => sql`${sql.ref(column)} = ${value}`),
      sql`, `,
    );
    const statement = reportStatement(db, {
      devices: sql`d as (update devices set ${sets} where id = ${q.deviceId} returning *)`,
      readings: readingArrays('r', q.readings),
      latest: latestArrays('l', q.latest),
      join: (_, rows) => sql`d, ${rows}`,
      handOut: handOutStatement(db, { deviceId: q.deviceId, now: q.touch.last_seen_at, everyOpen: false }),
      commandsOf: sql``,
      ...(q.positioned
        ? {
            positions: insertPositionsFrom(
              db,
              sql`select d.id, d.farm_id, ${q.touch.lat}::float8, ${q.touch.lon}::float8, ${q.touch.status_at}::int8 from d`,
            ),
          }
        : {}),
    });
    return { compile: () => statement.compile(db) };
  },
);

/**
 * The report statement for a group's reports at once (statement-batch.ts), one text whatever their number:
 * each report's device row, readings and latest values as arrays (`unnest`, the readings tagged with their
 * report's place), each column the report leaves out (TOUCH_OPTIONAL) kept as it was. The device rows are
 * updated in id order. Answers each report as the statement for one does (undefined: no such device).
 */
const TOUCH_BATCH: BatchKind<TouchCall, TouchedDevicePg | undefined> = {
  async run(trx: Db, calls: readonly TouchCall[]) {
    const given: Record<string, { has: string; value: string }> = {};
    for (const column of TOUCH_OPTIONAL_COLUMNS) {
      given[column] = {
        has: pgBools(calls.map((c) => c.touch[column] !== undefined)),
        value: pgArray(
          TOUCH_OPTIONAL[column],
          calls.map((c) => c.touch[column] ?? null),
        ),
      };
    }
    const places = (pick: (c: TouchCall) => readonly PreparedReading[]) => {
      const place: number[] = [];
      const rows: PreparedReading[] = [];
      for (const [i, call] of calls.entries()) {
        for (const reading of pick(call)) {
          place.push(i + 1);
          rows.push(reading);
        }
      }
      return { place, rows };
    };
    const r = places((c) => c.readings);
    const l = places((c) => c.latest);
    const rows = await reportGroup(trx, {
      deviceIds: pgTexts(calls.map((c) => c.deviceId)),
      nows: pgNumbers(calls.map((c) => c.touch.last_seen_at)),
      statusAts: pgNumbers(calls.map((c) => c.touch.status_at ?? c.touch.last_seen_at)),
      tokens: pgTexts(calls.map((c) => c.touch.report_token)),
      given,
      readings: readingColumns(r.rows, r.place),
      latest: latestColumns(l.rows, l.place),
      // A second text, used only when some report of the group carries a position.
      positioned: calls.some((c) => c.touch.lat !== undefined && c.touch.lon !== undefined),
    });
    const answers: Array<TouchedDevicePg | undefined> = calls.map(() => undefined);
    for (const row of rows) answers[num(row.place, 'place') - 1] = touchedOf(row);
    return answers;
  },
};

/**
 * The group's statement, built once with and once without positions (db/prepared.ts): every argument is an
 * array literal, which the builder puts in place without reading it.
 */
const reportGroup = prepared(
  (
    db,
    q: {
      deviceIds: string;
      nows: string;
      /** When each report's status was read (receipt for a report that carries none: it sets nothing). */
      statusAts: string;
      tokens: string;
      /** Per column a report may leave out: whether each report gives it, and its values. */
      given: Readonly<Record<string, { has: string; value: string }>>;
      readings: PgColumnArrays;
      latest: PgColumnArrays;
      positioned: boolean;
    },
  ) => {
    const now = sql<number>`v.now_ms`;
    const newer = statusIsNewer(sql`v.status_at`, sql`devices.`);
    // A column the report carries, unless the row's status is newer; else kept as it was.
    const keep = (column: string) =>
      sql`${sql.ref(column)} = case when ${sql.ref(`v.has_${column}`)} and ${newer} then ${sql.ref(`v.${column}_v`)} else devices.${sql.ref(column)} end`;
    const carries = sql.join(
      TOUCH_OPTIONAL_COLUMNS.map((c) => sql.ref(`v.has_${c}`)),
      sql` or `,
    );
    const given = TOUCH_OPTIONAL_COLUMNS.flatMap((column) => {
      const { has, value } = q.given[column] as { has: string; value: string };
      return [sql`${has}::bool[]`, sql`${value}::${sql.raw(TOUCH_OPTIONAL[column])}[]`];
    });
    const devices = sql`v as (
        select * from unnest(
          ${q.deviceIds}::text[], ${q.nows}::int8[], ${q.statusAts}::int8[], ${q.tokens}::text[], ${sql.join(given)}
        ) with ordinality as v(device_id, now_ms, status_at, token, ${sql.join(
          TOUCH_OPTIONAL_COLUMNS.flatMap((c) => [sql.id(`has_${c}`), sql.id(`${c}_v`)]),
        )}, place)
      ), locked as (
        select devices.id from devices join v on v.device_id = devices.id order by devices.id for no key update of devices
      ), d as (
        update devices set last_seen_at = ${now}, report_token = v.token, report_gap_ms = ${reportGap(now)},
          report_token_prev = devices.report_token, ${sql.join(TOUCH_OPTIONAL_COLUMNS.map(keep))},
          status_at = case when (${carries}) and ${newer} then v.status_at else devices.status_at end
        from v where devices.id = v.device_id and devices.id in (select id from locked)
        returning devices.*, v.place::int4 as place, v.now_ms as batch_now
      )`;
    const statement = reportStatement(db, {
      devices,
      readings: readingArrays('r', q.readings),
      latest: latestArrays('l', q.latest),
      join: (alias, unnested) => sql`${unnested} join d on d.place = ${sql.ref(`${alias}.place`)}`,
      handOut: handOutToEachStatement(db),
      commandsOf: sql` where h.device_id = d.id`,
      ...(q.positioned
        ? {
            positions: insertPositionsFrom(
              db,
              sql`select d.id, d.farm_id, v.lat_v, v.lon_v, v.status_at from d join v on v.place = d.place where v.has_lat and v.has_lon`,
            ),
          }
        : {}),
    });
    return { compile: () => statement.compile(db) };
  },
);
