/**
 * The alert engine's own statements, a fixed few per report whatever the number of rules: one upsert
 * locks and moves the device's watermarks, one select reads everything else the rules need (active
 * alerts, sustained-breach starts, rate windows), and one write stores the breaches that changed. On
 * PostgreSQL the upsert and the select are one statement, for a report or a group of them
 * (report-state.ts, which reads a report's state on either engine).
 */
import { type ExpressionBuilder, type OnConflictBuilder, type RawBuilder, type SqlBool, sql } from 'kysely';
import { jsonArrayFrom as pgJsonArrayFrom } from 'kysely/helpers/postgres';
import { jsonArrayFrom as sqliteJsonArrayFrom } from 'kysely/helpers/sqlite';
import { jsonList, num, record, text, tuple } from '../../db/decode.ts';
import { isPostgres } from '../../db/engine.ts';
import { prepared } from '../../db/prepared.ts';
import type { DB, Db } from '../../db/schema.ts';
import { ALERT_COLUMNS, upsertWatermarks } from '../../db/statements/alerts.ts';
import { ACTIVE_STATUS_LITERALS, type AlertRow } from '../alerts/repository.ts';

/**
 * Moves the device's watermark of each metric to the report's latest reading time (never back) and
 * returns, per metric, the watermark before this report (null: none yet), below which the report's
 * readings are late. The upsert writes every row, so on PostgreSQL it holds them to the end of the
 * transaction: a second report of the device waits here, then reads this one's watermarks. `prev_at`
 * is set from the row the upsert locked (the latest committed one), since RETURNING gives the new row.
 * Rows are inserted, and so locked, in the order given: callers sort them by metric, so concurrent
 * reports of one device take the locks in the same order and never deadlock.
 */
export async function advanceWatermarks(
  db: Db,
  key: { farmId: string; deviceId: string; futureBound: number },
  latest: ReadonlyArray<{ metric: string; at: number }>,
): Promise<Map<string, number | null>> {
  if (latest.length === 0) return new Map();
  return watermarksBefore(await upsertWatermarkRows(db, { ...key, latest }));
}

/** Per metric, the watermark the upsert replaced (null: none yet); PostgreSQL gives int8 as text. */
export function watermarksBefore(
  rows: ReadonlyArray<{ metric: string; prev_at: number | string | null }>,
): Map<string, number | null> {
  return new Map(rows.map((r) => [r.metric, r.prev_at === null ? null : Number(r.prev_at)]));
}

const upsertWatermarkRows = prepared((db, q: WatermarkMoves) =>
  upsertWatermarks(db, watermarkMoves(q), q.futureBound),
);

/** A report's watermark moves as the table's rows (db/statements/alerts.ts). */
export function watermarkMoves(q: WatermarkMoves) {
  return q.latest.map(({ metric, at }) => ({ device_id: q.deviceId, metric, farm_id: q.farmId, at }));
}

export interface WatermarkMoves {
  farmId: string;
  deviceId: string;
  latest: ReadonlyArray<{ metric: string; at: number }>;
  /**
   * The latest time a watermark may sanely hold (the server's clock plus the clock tolerance): one stored
   * beyond it (by a device with a wrong clock, before ingest refused such times) is no watermark at all.
   */
  futureBound: number;
}

export interface ReportStateQuery {
  farmId: string;
  deviceId: string;
  /** Whose active alerts to read: the readings' subject, and the device when the report has alarms. */
  subjects: ReadonlyArray<{ type: string; id: string }>;
  /** Whether any rule evaluated is sustained (`for_s`): then the device's breach starts are read. */
  breaches: boolean;
  /** The device's stored readings the rate rules' windows need, one span per metric (none: no rate rule). */
  spans: readonly ReadingSpan[];
}

/**
 * One rate window: for each stored reading time of `metric` in [first, last], the extreme (highest when
 * `falling`, else lowest) of the metric's stored readings in the `window_ms` up to and including it.
 */
export interface RateWindow {
  metric: string;
  window_ms: number;
  falling: boolean;
  first: number;
  last: number;
}

/**
 * The stored readings of one metric of the device from `from` on. Open-ended, so that what is read is
 * all there is from `from` (readings newer than the report's, stored unevaluated, included), which is
 * what recent-readings.ts keeps.
 */
export interface ReadingSpan {
  metric: string;
  from: number;
}

export interface ReportState {
  alerts: AlertRow[];
  /** Rule name → reading time its sustained breach on this device started. */
  breaches: Map<string, number>;
  /** Per span asked for (in order): its stored readings as [at, value], in time order. */
  stored: Array<Array<[number, number]>>;
}

/**
 * What the rules need besides the report, in one select (each part a JSON array; PostgreSQL parses
 * it, SQLite returns its text). Read after the watermarks are locked, so on PostgreSQL it sees what
 * the previous report of the device committed.
 */
export async function findReportState(db: Db, q: ReportStateQuery): Promise<ReportState> {
  const [row] = (await selectReportState(db, q)) as Array<Record<string, unknown>>;
  return stateOf(q, row);
}

export function stateOf(q: ReportStateQuery, row: Record<string, unknown> | undefined): ReportState {
  return {
    alerts: jsonList(row?.alerts, 'alerts').map(alertOf),
    breaches: new Map(jsonList(row?.breaches, 'breaches').map(breachOf)),
    stored: q.spans.map((_, i) => storedOf(row?.[`span_${i}`], `span_${i}`)),
  };
}

const ALERT_TEXTS = ['id', 'farm_id', 'rule', 'subject_type', 'subject_id', 'status', 'severity'] as const;

/** Reads an active alert of the state select (every column of ALERT_COLUMNS). */
export function alertOf(value: unknown): AlertRow {
  const alert = record(value, 'alert');
  for (const c of ALERT_TEXTS) if (typeof alert[c] !== 'string') text(alert[c], `alert.${c}`);
  num(alert.created_at, 'alert.created_at');
  return alert as unknown as AlertRow;
}

/** Reads a breach start of the state select: { rule, since }. */
function breachOf(value: unknown): [string, number] {
  const breach = record(value, 'breach');
  return [text(breach.rule, 'breach.rule'), num(breach.since, 'breach.since')];
}

/**
 * Reads a span's stored readings: [at, value] pairs, in time order (PostgreSQL's JSON may give `at` as
 * text). The pairs are the most a report reads (a window's every reading): checked without a call or a
 * label built per pair unless one is wrong.
 */
export function storedOf(value: unknown, what: string): Array<[number, number]> {
  const list = jsonList(value, what);
  const pairs = new Array<[number, number]>(list.length);
  for (let i = 0; i < list.length; i++) {
    const pair = list[i];
    if (Array.isArray(pair) && pair.length === 2) {
      const [at, v] = pair as [unknown, unknown];
      if (typeof at === 'number' && typeof v === 'number') {
        pairs[i] = [at, v];
        continue;
      }
    }
    const [at, v] = tuple(pair, 2, what);
    pairs[i] = [num(at, `${what}[${i}] at`), num(v, `${what}[${i}] value`)];
  }
  return inTimeOrder(pairs);
}

/**
 * A span's stored readings as one JSON array of [at, value], straight off the readings index (which
 * carries the value, so no table row is read), in the index's time order: an ORDER BY inside the
 * aggregate would sort again, which on PostgreSQL costs more than the scan. The window extremes are
 * worked out from them in JavaScript in one pass (rule-inputs.ts); a window function in SQL rescans
 * each reading's frame, and an aggregate for the part every window holds, with the edges read one by
 * one, measured slower on PostgreSQL (three subqueries a window instead of one a metric).
 */
export function spanReadings(
  db: Db,
  deviceId: string | RawBuilder<string>,
  metric: string | RawBuilder<string>,
  from: RawBuilder<number> | number,
): RawBuilder<unknown> {
  const rows = sql`select at, value from readings where device_id = ${deviceId} and metric = ${metric}
      and at >= ${from} order by at`;
  return isPostgres(db)
    ? sql`(select coalesce(json_agg(json_build_array(r.at, r.value)), '[]'::json) from (${rows}) r)`
    : sql`(select json_group_array(json_array(r.at, r.value)) from (${rows}) r)`;
}

/**
 * Both engines aggregate in the order of the subquery (PostgreSQL documents that it "usually" does), so
 * the order is checked, and restored in the rare case it was not kept.
 */
function inTimeOrder(rows: Array<[number, number]>): Array<[number, number]> {
  for (let i = 1; i < rows.length; i++) {
    if ((rows[i] as [number, number])[0] < (rows[i - 1] as [number, number])[0]) {
      return rows.sort((a, b) => a[0] - b[0]);
    }
  }
  return rows;
}

/** Built once per engine and shape (the number of subjects and spans, whether breaches are read). */
const selectReportState = prepared((db, q: ReportStateQuery) =>
  db.selectNoFrom((eb) => reportStateColumns(db, eb, q)),
);

export function reportStateColumns(
  db: Db,
  eb: ExpressionBuilder<DB, never>,
  q: ReportStateQuery,
  from?: (index: number) => RawBuilder<number>,
) {
  const jsonArrayFrom = isPostgres(db) ? pgJsonArrayFrom : sqliteJsonArrayFrom;
  const none = sql<SqlBool>`1 = 0`;
  return [
    jsonArrayFrom(
      eb
        .selectFrom('alerts')
        .select(ALERT_COLUMNS)
        .where('farm_id', '=', q.farmId)
        .where('status', 'in', ACTIVE_STATUS_LITERALS)
        .where((w) =>
          w.or(q.subjects.map((s) => w.and([w('subject_type', '=', s.type), w('subject_id', '=', s.id)]))),
        ),
    ).as('alerts'),
    jsonArrayFrom(
      eb
        .selectFrom('alert_breaches')
        .select(['rule', 'since'])
        .where('device_id', '=', q.deviceId)
        .$if(!q.breaches, (qb) => qb.where(none)),
    ).as('breaches'),
    ...q.spans.map((span, i) =>
      spanReadings(db, q.deviceId, span.metric, from?.(i) ?? span.from).as(`span_${i}`),
    ),
  ];
}

/**
 * Stores the sustained breaches this report started, moved or ended (null: ended) for the device. One
 * statement on PostgreSQL (the deletes in a data-modifying CTE); on SQLite, where a statement costs no
 * round trip, a delete and an upsert when both are needed.
 */
export async function saveBreaches(
  db: Db,
  key: { farmId: string; deviceId: string },
  changes: ReadonlyArray<{ rule: string; since: number | null }>,
): Promise<void> {
  if (changes.length === 0) return;
  const ended = changes.filter((c) => c.since === null).map((c) => c.rule);
  const held = changes.flatMap((c) =>
    c.since === null ? [] : [{ device_id: key.deviceId, rule: c.rule, farm_id: key.farmId, since: c.since }],
  );
  const deleteEnded = db
    .deleteFrom('alert_breaches')
    .where('device_id', '=', key.deviceId)
    .where('rule', 'in', ended);
  if (held.length === 0) {
    if (ended.length > 0) await deleteEnded.execute();
    return;
  }
  const onConflict = (oc: OnConflictBuilder<DB, 'alert_breaches'>) =>
    oc.columns(['device_id', 'rule']).doUpdateSet((eb) => ({ since: eb.ref('excluded.since') }));
  if (ended.length > 0 && isPostgres(db)) {
    await db
      .with('ended', () => deleteEnded)
      .insertInto('alert_breaches')
      .values(held)
      .onConflict(onConflict)
      .execute();
    return;
  }
  if (ended.length > 0) await deleteEnded.execute();
  await db.insertInto('alert_breaches').values(held).onConflict(onConflict).execute();
}

/**
 * What alert wording needs of an animal: its name, tag, EID and group (its id for group-scoped rules, its
 * name for an animal known by neither name, tag nor EID). Ingest's PostgreSQL report statement reads the
 * same columns (ingest/report-statement.ts `reportStatement`).
 */
export interface AnimalLabelRow {
  name: string | null;
  tag: string | null;
  eid: string | null;
  group_id: string | null;
  group_name: string | null;
}

export async function findAnimalLabel(
  db: Db,
  farmId: string,
  animalId: string,
): Promise<AnimalLabelRow | undefined> {
  const [row] = await selectAnimalLabel(db, { farmId, animalId });
  return row;
}

const selectAnimalLabel = prepared((db, q: { farmId: string; animalId: string }) =>
  db
    .selectFrom('animals')
    .leftJoin('animal_groups', 'animal_groups.id', 'animals.group_id')
    .select([
      'animals.name',
      'animals.tag',
      'animals.eid',
      'animals.group_id',
      'animal_groups.name as group_name',
    ])
    .where('animals.id', '=', q.animalId)
    .where('animals.farm_id', '=', q.farmId),
);

/** A reporting device is no longer quiet (the quiet pass set the mark: alert-passes/repository.ts). */
export async function clearDeviceQuiet(db: Db, deviceId: string): Promise<void> {
  await db.updateTable('devices').set({ quiet_level: null }).where('id', '=', deviceId).execute();
}

/** Marks (or clears) a device whose report carried times too far ahead (device.clock; clock.ts). */
export async function markDeviceClock(db: Db, deviceId: string, skewed: boolean): Promise<void> {
  await db
    .updateTable('devices')
    .set({ clock_skewed: skewed ? 1 : 0 })
    .where('id', '=', deviceId)
    .execute();
}
