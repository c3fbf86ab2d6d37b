/**
 * The alert engine's own statements, a fixed few per report whatever the number of rules: one upsert
 * locks and moves the device's watermarks, one select reads everything else the rules need (active
 * alerts, sustained-breach starts, rate windows), and one write stores the breaches that changed.
 */
import { type OnConflictBuilder, type RawBuilder, type SqlBool, sql } from 'kysely';
import { jsonArrayFrom as pgJsonArrayFrom } from 'kysely/helpers/postgres';
import { jsonArrayFrom as sqliteJsonArrayFrom } from 'kysely/helpers/sqlite';
import { isPostgres } from '../../db/engine.ts';
import { prepared } from '../../db/prepared.ts';
import type { DB, Db } from '../../db/schema.ts';
import type { AlertsTable } from '../../db/tables/alerts.ts';
import { ACTIVE_STATUSES, type AlertRow } from './repository.ts';

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
  key: { farmId: string; deviceId: string },
  latest: ReadonlyArray<{ metric: string; at: number }>,
): Promise<Map<string, number | null>> {
  if (latest.length === 0) return new Map();
  const rows = await upsertWatermarks(db, { ...key, latest });
  return new Map(rows.map((r) => [r.metric, r.prev_at === null ? null : Number(r.prev_at)]));
}

const upsertWatermarks = prepared(
  (db, q: { farmId: string; deviceId: string; latest: ReadonlyArray<{ metric: string; at: number }> }) =>
    db
      .insertInto('alert_watermarks')
      .values(
        q.latest.map(({ metric, at }) => ({
          device_id: q.deviceId,
          metric,
          farm_id: q.farmId,
          at,
          prev_at: null,
        })),
      )
      .onConflict((oc) =>
        oc.columns(['device_id', 'metric']).doUpdateSet({
          prev_at: sql<number | null>`alert_watermarks.at`,
          at: sql<number>`case when alert_watermarks.at is null or excluded.at > alert_watermarks.at then excluded.at else alert_watermarks.at end`,
        }),
      )
      .returning(['metric', 'prev_at']),
);

/** Every column of an alert, named: SQLite's JSON aggregate needs explicit selections. */
const ALERT_COLUMNS = [
  'id',
  'farm_id',
  'severity',
  'severity_rank',
  'title',
  'reason',
  'rule',
  'subject_type',
  'subject_id',
  'status',
  'created_at',
  'updated_at',
  'acknowledged_at',
  'resolved_at',
] as const satisfies ReadonlyArray<keyof AlertsTable>;

export interface ReportStateQuery {
  farmId: string;
  deviceId: string;
  /** Whose active alerts to read: the readings' subject, and the device when the report has alarms. */
  subjects: ReadonlyArray<{ type: string; id: string }>;
  /** Whether any rule evaluated is sustained (`for_s`): then the device's breach starts are read. */
  breaches: boolean;
  /** The rate rules' windows over the device's stored readings (none when no rate rule runs). */
  windows: readonly RateWindow[];
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

export interface ReportState {
  alerts: AlertRow[];
  /** Rule name → reading time its sustained breach on this device started. */
  breaches: Map<string, number>;
  /** Per window asked for (in order): reading time → the extreme over the window ending there. */
  extremes: Array<Map<number, number>>;
}

/**
 * What the rules need besides the report, in one select (each part a JSON array; PostgreSQL parses
 * it, SQLite returns its text). Read after the watermarks are locked, so on PostgreSQL it sees what
 * the previous report of the device committed.
 */
export async function findReportState(db: Db, q: ReportStateQuery): Promise<ReportState> {
  const [row] = (await selectReportState(db, q)) as Array<Record<string, unknown>>;
  return {
    alerts: parsed<AlertRow>(row?.alerts),
    breaches: new Map(
      parsed<{ rule: string; since: number }>(row?.breaches).map((b) => [b.rule, Number(b.since)]),
    ),
    extremes: q.windows.map(
      (_, i) => new Map(parsed<[number, number]>(row?.[`window_${i}`]).map(([at, v]) => [Number(at), v])),
    ),
  };
}

/**
 * A rate window's extremes, worked out by the database with a window function over the readings index
 * (a RANGE frame: every reading of the metric from `window_ms` before each reading to it, ties included),
 * so only one pair per reading time of the report comes back, not every stored reading of the window.
 */
function windowExtremes(db: Db, deviceId: string, w: RateWindow): RawBuilder<unknown> {
  const extreme = w.falling ? sql`max(value)` : sql`min(value)`;
  const frame = isPostgres(db) ? sql`cast(${w.window_ms} as bigint)` : sql`${w.window_ms}`;
  const rows = sql`select at, ${extreme} over (order by at range between ${frame} preceding and current row) as x
    from readings where device_id = ${deviceId} and metric = ${w.metric}
      and at >= ${w.first} - ${frame} and at <= ${w.last}`;
  return isPostgres(db)
    ? sql`(select coalesce(json_agg(json_build_array(w.at, w.x)), '[]'::json) from (${rows}) w where w.at >= ${w.first})`
    : sql`(select json_group_array(json_array(w.at, w.x)) from (${rows}) w where w.at >= ${w.first})`;
}

/** Built once per engine and shape (the number of subjects and rate windows, whether breaches are read). */
const selectReportState = prepared((db, q: ReportStateQuery) => {
  const jsonArrayFrom = isPostgres(db) ? pgJsonArrayFrom : sqliteJsonArrayFrom;
  const none = sql<SqlBool>`1 = 0`;
  return db.selectNoFrom((eb) => [
    jsonArrayFrom(
      eb
        .selectFrom('alerts')
        .select(ALERT_COLUMNS)
        .where('farm_id', '=', q.farmId)
        .where('status', 'in', ACTIVE_STATUSES)
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
    ...q.windows.map((w, i) => windowExtremes(db, q.deviceId, w).as(`window_${i}`)),
  ]);
});

function parsed<T>(value: unknown): T[] {
  if (value == null) return [];
  return (typeof value === 'string' ? JSON.parse(value) : value) as T[];
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

/** What alert wording needs of an animal: its name, tag and group. */
export interface AnimalLabelRow {
  name: string | null;
  tag: string | null;
  group_id: string | null;
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
    .select(['name', 'tag', 'group_id'])
    .where('id', '=', q.animalId)
    .where('farm_id', '=', q.farmId),
);
