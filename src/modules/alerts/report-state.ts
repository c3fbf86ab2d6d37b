/**
 * A report's state read for the alert engine: moves the device's watermarks and reads everything the rules
 * need besides the report (active alerts, sustained-breach starts, rate windows' stored readings). On
 * PostgreSQL one statement, made once for a whole group of reports (db/statement-batch.ts); on SQLite the
 * upsert and the select of engine-repository.ts in turn.
 */
import { type ExpressionBuilder, sql } from 'kysely';
import { jsonArrayFrom as pgJsonArrayFrom } from 'kysely/helpers/postgres';
import { isPostgres } from '../../db/engine.ts';
import { nameStatement } from '../../db/named-statements.ts';
import { pgNumbers, pgTexts } from '../../db/pg-arrays.ts';
import { prepared } from '../../db/prepared.ts';
import type { DB, Db } from '../../db/schema.ts';
import { type BatchKind, batchedCall } from '../../db/statement-batch.ts';
import {
  ALERT_COLUMNS,
  advanceWatermarks,
  findReportState,
  moveWatermarkForward,
  parsed,
  type ReadingSpan,
  type ReportState,
  type ReportStateQuery,
  reportStateColumns,
  stateOf,
  upsertWatermarksQuery,
  type WatermarkMoves,
  watermarksBefore,
} from './engine-repository.ts';
import { ACTIVE_STATUSES } from './repository.ts';

/** A span to read that may start later, once its metric's watermark is known (spanStart). */
export interface ClippableSpan extends ReadingSpan {
  /** The longest window over the span's metric. */
  keepMs: number;
}

export interface MoveAndReadQuery extends ReportStateQuery, WatermarkMoves {
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

/**
 * Moves the watermarks (as advanceWatermarks) and reads the report's state (as findReportState), each
 * span from its spanStart: one statement on PostgreSQL (for a group of reports one for all of them:
 * MOVE_AND_READ_BATCH), the two in turn on SQLite, where a statement costs no round trip. Returns the spans
 * as read (their `from`s moved to where reading started).
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
  async run(trx: Db, queries: readonly MoveAndReadQuery[]) {
    const moves = queries.flatMap((q) => q.latest.map((l) => ({ q, ...l })));
    const subjects = queries.flatMap((q, place) => q.subjects.map((s) => ({ place, q, s })));
    const spans = queries.flatMap((q, place) => q.spans.map((span, index) => ({ place, q, span, index })));
    const columns = ALERT_COLUMNS.map((c) => sql.ref(`a.${c}`));
    const upsert = trx
      .insertInto('alert_watermarks')
      .columns(['device_id', 'metric', 'farm_id', 'at', 'prev_at'])
      .expression(
        sql`select w.device_id, w.metric, w.farm_id, w.at, null
          from unnest(${pgTexts(moves.map((m) => m.q.deviceId))}::text[], ${pgTexts(moves.map((m) => m.metric))}::text[],
            ${pgTexts(moves.map((m) => m.q.farmId))}::text[], ${pgNumbers(moves.map((m) => m.at))}::int8[]) as w(device_id, metric, farm_id, at)
          order by w.device_id, w.metric`,
      )
      // One bound for the group: its reports were received within the same moment.
      .onConflict(moveWatermarkForward(Math.max(...queries.map((q) => q.futureBound))))
      .returning(['device_id', 'metric', 'prev_at']);
    const statement = sql<{ watermarks: unknown; alerts: unknown; breaches: unknown; spans: unknown }>`
      with moved as (${upsert})
      select
        (select coalesce(json_agg(json_build_array(m.device_id, m.metric, m.prev_at)), '[]'::json) from moved m)
          as watermarks,
        (select coalesce(json_agg(x), '[]'::json) from (
          select s.place, ${sql.join(columns)}
          from unnest(${pgNumbers(subjects.map((x) => x.place))}::int4[], ${pgTexts(subjects.map((x) => x.q.farmId))}::text[],
            ${pgTexts(subjects.map((x) => x.s.type))}::text[], ${pgTexts(subjects.map((x) => x.s.id))}::text[])
            as s(place, farm_id, subject_type, subject_id)
          join alerts a on a.farm_id = s.farm_id and a.subject_type = s.subject_type and a.subject_id = s.subject_id
          where a.status in (${sql.join(ACTIVE_STATUSES)})) x) as alerts,
        (select coalesce(json_agg(json_build_array(b.device_id, b.rule, b.since)), '[]'::json)
          from alert_breaches b where b.device_id = any(${pgTexts(queries.filter((q) => q.breaches).map((q) => q.deviceId))}::text[]))
          as breaches,
        (select coalesce(json_agg(json_build_array(sp.place, sp.index, (
            select coalesce(json_agg(json_build_array(r.at, r.value)), '[]'::json) from (
              select at, value from readings where device_id = sp.device_id and metric = sp.metric
                and at >= greatest(sp.from_at, coalesce((select m.prev_at from moved m
                  where m.device_id = sp.device_id and m.metric = sp.metric) - sp.keep_ms, sp.from_at))
              order by at) r))), '[]'::json)
          from unnest(${pgNumbers(spans.map((x) => x.place))}::int4[], ${pgNumbers(spans.map((x) => x.index))}::int4[],
            ${pgTexts(spans.map((x) => x.q.deviceId))}::text[], ${pgTexts(spans.map((x) => x.span.metric))}::text[],
            ${pgNumbers(spans.map((x) => x.span.from))}::int8[], ${pgNumbers(spans.map((x) => x.span.keepMs))}::int8[])
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
