/**
 * The alert engine's own statements, a fixed few per report whatever the number of rules: one upsert
 * locks and moves the device's watermarks, one select reads everything else the rules need (active
 * alerts, sustained-breach starts, rate windows), and one write stores the breaches that changed. On
 * PostgreSQL the upsert and the select are one statement (moveWatermarksAndReadState).
 */
import {
  type ExpressionBuilder,
  type OnConflictBuilder,
  type QueryCreator,
  type RawBuilder,
  type SqlBool,
  sql,
} from 'kysely';
import { jsonArrayFrom as pgJsonArrayFrom } from 'kysely/helpers/postgres';
import { jsonArrayFrom as sqliteJsonArrayFrom } from 'kysely/helpers/sqlite';
import { isPostgres } from '../../db/engine.ts';
import { nameStatement } from '../../db/named-statements.ts';
import { prepared } from '../../db/prepared.ts';
import type { DB, Db, Trx } from '../../db/schema.ts';
import { type BatchKind, batchedCall } from '../../db/statement-batch.ts';
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
async function advanceWatermarks(
  db: Db,
  key: { farmId: string; deviceId: string },
  latest: ReadonlyArray<{ metric: string; at: number }>,
): Promise<Map<string, number | null>> {
  if (latest.length === 0) return new Map();
  return watermarksBefore(await upsertWatermarks(db, { ...key, latest }));
}

/** Per metric, the watermark the upsert replaced (null: none yet); PostgreSQL's JSON gives int8 as text. */
function watermarksBefore(
  rows: ReadonlyArray<{ metric: string; prev_at: number | string | null }>,
): Map<string, number | null> {
  return new Map(rows.map((r) => [r.metric, r.prev_at === null ? null : Number(r.prev_at)]));
}

const upsertWatermarks = prepared((db, q: WatermarkMoves) => upsertWatermarksQuery(db, q));

interface WatermarkMoves {
  farmId: string;
  deviceId: string;
  latest: ReadonlyArray<{ metric: string; at: number }>;
}

function upsertWatermarksQuery(db: QueryCreator<DB>, q: WatermarkMoves) {
  return db
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
    .returning(['metric', 'prev_at']);
}

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
async function findReportState(db: Db, q: ReportStateQuery): Promise<ReportState> {
  const [row] = (await selectReportState(db, q)) as Array<Record<string, unknown>>;
  return stateOf(q, row);
}

function stateOf(q: ReportStateQuery, row: Record<string, unknown> | undefined): ReportState {
  return {
    alerts: parsed<AlertRow>(row?.alerts),
    breaches: new Map(
      parsed<{ rule: string; since: number }>(row?.breaches).map((b) => [b.rule, Number(b.since)]),
    ),
    stored: q.spans.map((_, i) =>
      inTimeOrder(parsed<[number | string, number]>(row?.[`span_${i}`]).map(([at, v]) => [Number(at), v])),
    ),
  };
}

/**
 * A span's stored readings as one JSON array of [at, value], straight off the readings index (which
 * carries the value, so no table row is read), in the index's time order: an ORDER BY inside the
 * aggregate would sort again, which on PostgreSQL costs more than the scan. The window extremes are
 * worked out from them in JavaScript in one pass (rule-inputs.ts); a window function in SQL rescans
 * each reading's frame, and an aggregate for the part every window holds, with the edges read one by
 * one, measured slower on PostgreSQL (three subqueries a window instead of one a metric).
 */
function spanReadings(
  db: Db,
  deviceId: string,
  span: ReadingSpan,
  from: RawBuilder<number> | number = span.from,
): RawBuilder<unknown> {
  const rows = sql`select at, value from readings where device_id = ${deviceId} and metric = ${span.metric}
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

/**
 * PostgreSQL: the watermark upsert and the state select in one statement (a data-modifying CTE), one
 * round trip instead of two. Its select sees what was committed when the statement began: the report
 * already holds its device row's lock (ingest's first statement takes it), so every earlier report of the
 * device has committed by then, as with the two statements.
 */
const moveWatermarksAndSelectState = prepared((db, q: MoveAndReadQuery) =>
  db
    .with('moved', (qc) => upsertWatermarksQuery(qc, q))
    .selectNoFrom((eb) => [
      pgJsonArrayFrom(eb.selectFrom('moved').select(['moved.metric', 'moved.prev_at'])).as('watermarks'),
      // Each span from where spanStart says, with the watermark as it was before this report.
      ...reportStateColumns(db, eb as unknown as ExpressionBuilder<DB, never>, q, (i) => {
        const { metric, from, keepMs } = q.spans[i] as ClippableSpan;
        return sql<number>`greatest(${from}, coalesce((select m.prev_at from moved m where m.metric = ${metric}) - ${keepMs}, ${from}))`;
      }),
    ]),
);

function reportStateColumns(
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
    ...q.spans.map((span, i) => spanReadings(db, q.deviceId, span, from?.(i)).as(`span_${i}`)),
  ];
}

/** A span to read that may start later, once its metric's watermark is known (spanStart). */
export interface ClippableSpan extends ReadingSpan {
  /** The longest window over the span's metric. */
  keepMs: number;
}

interface MoveAndReadQuery extends ReportStateQuery, WatermarkMoves {
  spans: readonly ClippableSpan[];
}

/**
 * Where a span's reading starts, given its metric's watermark before this report (null: none yet): a
 * reading older than the watermark is late and not evaluated, so no window reaches further back than its
 * length before the watermark. Worked out from the candidate metrics, before their late readings are
 * dropped, a span could otherwise start at a late reading and reach back over every reading since.
 */
export function spanStart(span: ClippableSpan, watermark: number | null | undefined): number {
  return watermark == null ? span.from : Math.max(span.from, watermark - span.keepMs);
}

/**
 * Moves the watermarks (as advanceWatermarks) and reads the report's state (as findReportState), each
 * span from its spanStart: one statement on PostgreSQL, the two in turn on SQLite, where a statement
 * costs no round trip. Returns the spans as read (their `from`s moved to where reading started).
 */
export async function moveWatermarksAndReadState(
  db: Db,
  q: MoveAndReadQuery,
): Promise<{ watermarks: Map<string, number | null>; state: ReportState; spans: ClippableSpan[] }> {
  const started = (watermarks: ReadonlyMap<string, number | null>) =>
    q.spans.map((span) => ({ ...span, from: spanStart(span, watermarks.get(span.metric)) }));
  if (!isPostgres(db) || q.latest.length === 0) {
    const watermarks = await advanceWatermarks(db, q, q.latest);
    const spans = started(watermarks);
    return { watermarks, spans, state: await findReportState(db, { ...q, spans }) };
  }
  const row = await batchedCall(db, MOVE_AND_READ_BATCH, q, async (one, query) => {
    const [first] = (await moveWatermarksAndSelectState(one, query)) as Array<Record<string, unknown>>;
    return first;
  });
  const watermarks = watermarksBefore(parsed(row?.watermarks));
  return { watermarks, spans: started(watermarks), state: stateOf(q, row) };
}

/**
 * PostgreSQL: moveWatermarksAndSelectState for a group's reports at once (statement-batch.ts), one text
 * whatever their number: the watermark rows of every report in one upsert (in device and metric order),
 * then the active alerts of every report's subjects, the breach starts of the devices that need them and
 * every span's stored readings, each tagged with its report. Answers each report with the row the
 * statement for one gives.
 */
const MOVE_AND_READ_BATCH: BatchKind<MoveAndReadQuery, Record<string, unknown> | undefined> = {
  async run(trx: Trx, queries: readonly MoveAndReadQuery[]) {
    const moves = queries.flatMap((q) => q.latest.map((l) => ({ q, ...l })));
    const subjects = queries.flatMap((q, place) => q.subjects.map((s) => ({ place, q, s })));
    const spans = queries.flatMap((q, place) => q.spans.map((span, index) => ({ place, q, span, index })));
    const columns = ALERT_COLUMNS.map((c) => sql.ref(`a.${c}`));
    const statement = sql<{ watermarks: unknown; alerts: unknown; breaches: unknown; spans: unknown }>`
      with moved as (
        insert into alert_watermarks (device_id, metric, farm_id, at, prev_at)
        select w.device_id, w.metric, w.farm_id, w.at, null
        from unnest(${moves.map((m) => m.q.deviceId)}::text[], ${moves.map((m) => m.metric)}::text[],
          ${moves.map((m) => m.q.farmId)}::text[], ${moves.map((m) => m.at)}::int8[]) as w(device_id, metric, farm_id, at)
        order by w.device_id, w.metric
        on conflict (device_id, metric) do update set prev_at = alert_watermarks.at,
          at = case when alert_watermarks.at is null or excluded.at > alert_watermarks.at then excluded.at
            else alert_watermarks.at end
        returning device_id, metric, prev_at
      )
      select
        (select coalesce(json_agg(json_build_array(m.device_id, m.metric, m.prev_at)), '[]'::json) from moved m)
          as watermarks,
        (select coalesce(json_agg(x), '[]'::json) from (
          select s.place, ${sql.join(columns)}
          from unnest(${subjects.map((x) => x.place)}::int4[], ${subjects.map((x) => x.q.farmId)}::text[],
            ${subjects.map((x) => x.s.type)}::text[], ${subjects.map((x) => x.s.id)}::text[])
            as s(place, farm_id, subject_type, subject_id)
          join alerts a on a.farm_id = s.farm_id and a.subject_type = s.subject_type and a.subject_id = s.subject_id
          where a.status in (${sql.join(ACTIVE_STATUSES)})) x) as alerts,
        (select coalesce(json_agg(json_build_array(b.device_id, b.rule, b.since)), '[]'::json)
          from alert_breaches b where b.device_id = any(${queries.filter((q) => q.breaches).map((q) => q.deviceId)}::text[]))
          as breaches,
        (select coalesce(json_agg(json_build_array(sp.place, sp.index, (
            select coalesce(json_agg(json_build_array(r.at, r.value)), '[]'::json) from (
              select at, value from readings where device_id = sp.device_id and metric = sp.metric
                and at >= greatest(sp.from_at, coalesce((select m.prev_at from moved m
                  where m.device_id = sp.device_id and m.metric = sp.metric) - sp.keep_ms, sp.from_at))
              order by at) r))), '[]'::json)
          from unnest(${spans.map((x) => x.place)}::int4[], ${spans.map((x) => x.index)}::int4[],
            ${spans.map((x) => x.q.deviceId)}::text[], ${spans.map((x) => x.span.metric)}::text[],
            ${spans.map((x) => x.span.from)}::int8[], ${spans.map((x) => x.span.keepMs)}::int8[])
            as sp(place, index, device_id, metric, from_at, keep_ms)) as spans`.compile(trx);
    nameStatement(statement.sql);
    const [row] = (await trx.executeQuery(statement)).rows;
    const answers = queries.map((q) => {
      const answer: Record<string, unknown[]> = { watermarks: [], alerts: [], breaches: [] };
      for (const [i] of q.spans.entries()) answer[`span_${i}`] = [];
      return answer;
    });
    const placeOf = new Map(queries.map((q, place) => [q.deviceId, place]));
    for (const [deviceId, metric, prevAt] of parsed<[string, string, number | null]>(row?.watermarks)) {
      answers[placeOf.get(deviceId) as number]?.watermarks?.push({ metric, prev_at: prevAt });
    }
    for (const { place, ...alert } of parsed<{ place: number }>(row?.alerts))
      answers[place]?.alerts?.push(alert);
    for (const [deviceId, rule, since] of parsed<[string, string, number]>(row?.breaches)) {
      answers[placeOf.get(deviceId) as number]?.breaches?.push({ rule, since });
    }
    for (const [place, index, readings] of parsed<[number, number, unknown[]]>(row?.spans)) {
      const answer = answers[place];
      if (answer) answer[`span_${index}`] = readings;
    }
    return answers;
  },
};

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
