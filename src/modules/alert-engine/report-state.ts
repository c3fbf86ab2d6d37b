/**
 * A report's state read for the alert engine: moves the device's watermarks and reads everything the rules
 * need besides the report (active alerts, sustained-breach starts, rate windows' stored readings). On
 * PostgreSQL one statement, made once for a whole group of reports (db/statement-batch.ts); on SQLite the
 * upsert and the select of engine-repository.ts in turn.
 */
import { type ExpressionBuilder, sql } from 'kysely';
import { jsonArrayFrom as pgJsonArrayFrom } from 'kysely/helpers/postgres';
import { jsonList, nullable, num, record, text } from '../../db/decode.ts';
import { isPostgres } from '../../db/engine.ts';
import { type PgColumnArrays, pgNumbers, pgTexts } from '../../db/pg-arrays.ts';
import { prepared } from '../../db/prepared.ts';
import type { DB, Db } from '../../db/schema.ts';
import { type BatchKind, batchedCall } from '../../db/statement-batch.ts';
import {
  ALERT_COLUMNS,
  type ClippableSpan,
  spanStart,
  spanStartSql,
  upsertWatermarks,
  watermarkColumns,
} from '../../db/statements/alerts.ts';
import { ACTIVE_STATUS_LITERALS } from '../alerts/repository.ts';
import {
  advanceWatermarks,
  findReportState,
  type ReportState,
  type ReportStateQuery,
  reportStateColumns,
  spanReadings,
  stateOf,
  type WatermarkMoves,
  watermarkMoves,
  watermarksBefore,
} from './repository.ts';

export type { ClippableSpan } from '../../db/statements/alerts.ts';

export interface MoveAndReadQuery extends ReportStateQuery, WatermarkMoves {
  spans: readonly ClippableSpan[];
}

/**
 * PostgreSQL: the watermark upsert and the state select in one statement (a data-modifying CTE), one
 * round trip instead of two. Its select sees what was committed when the statement began: the report
 * already holds its device row's lock (ingest's first statement takes it), so every earlier report of the
 * device has committed by then, as with the two statements.
 */
const moveWatermarksAndSelectState = prepared((db, q: MoveAndReadQuery) =>
  db
    .with('moved', (qc) => upsertWatermarks(qc, watermarkMoves(q), q.futureBound))
    .selectNoFrom((eb) => [
      pgJsonArrayFrom(eb.selectFrom('moved').select(['moved.metric', 'moved.prev_at'])).as('watermarks'),
      // Each span from where spanStart says, with the watermark as it was before this report.
      ...reportStateColumns(db, eb as unknown as ExpressionBuilder<DB, never>, q, (i) => {
        const { metric, from, keepMs } = q.spans[i] as ClippableSpan;
        return spanStartSql(from, sql`(select m.prev_at from moved m where m.metric = ${metric})`, keepMs);
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
  // A lone report runs the statement written for one: the group's statement made for one report costs
  // it a fifth more (ingest/report-statement.ts, reportStatement, has the numbers).
  const row = await batchedCall(db, MOVE_AND_READ_BATCH, q, async (one, query) => {
    const [first] = (await moveWatermarksAndSelectState(one, query)) as Array<Record<string, unknown>>;
    return first;
  });
  const watermarks = watermarksBefore(jsonList(row?.watermarks, 'watermarks').map(watermarkOf));
  return { watermarks, spans: started(watermarks), state: stateOf(q, row) };
}

/** Reads a moved watermark: its metric and the watermark it replaced. */
function watermarkOf(value: unknown): { metric: string; prev_at: number | null } {
  const w = record(value, 'watermark');
  return {
    metric: text(w.metric, 'watermark.metric'),
    prev_at: nullable(num)(w.prev_at, 'watermark.prev_at'),
  };
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
    const subjects = queries.flatMap((q, place) => q.subjects.map((s) => ({ place, q, s })));
    const spans = queries.flatMap((q, place) => q.spans.map((span, index) => ({ place, q, span, index })));
    const [row] = (await moveAndReadGroup(trx, {
      moves: watermarkColumns(queries.flatMap(watermarkMoves)),
      // One bound for the group: its reports were received within the same moment.
      futureBound: Math.max(...queries.map((q) => q.futureBound)),
      subjects: {
        place: pgNumbers(subjects.map((x) => x.place)),
        farm_id: pgTexts(subjects.map((x) => x.q.farmId)),
        subject_type: pgTexts(subjects.map((x) => x.s.type)),
        subject_id: pgTexts(subjects.map((x) => x.s.id)),
      },
      breachDevices: pgTexts(queries.filter((q) => q.breaches).map((q) => q.deviceId)),
      spans: {
        place: pgNumbers(spans.map((x) => x.place)),
        index: pgNumbers(spans.map((x) => x.index)),
        device_id: pgTexts(spans.map((x) => x.q.deviceId)),
        metric: pgTexts(spans.map((x) => x.span.metric)),
        from_at: pgNumbers(spans.map((x) => x.span.from)),
        keep_ms: pgNumbers(spans.map((x) => x.span.keepMs)),
      },
    })) as Array<Record<string, unknown>>;
    return answersOf(queries, row);
  },
};

/**
 * The group's statement, one text whatever the group's size, built once (db/prepared.ts): its arguments are
 * the group's array literals, which the builder puts in place without reading them.
 */
const moveAndReadGroup = prepared(
  (
    db,
    q: {
      moves: PgColumnArrays;
      futureBound: number;
      subjects: Record<'place' | 'farm_id' | 'subject_type' | 'subject_id', string>;
      breachDevices: string;
      spans: Record<'place' | 'index' | 'device_id' | 'metric' | 'from_at' | 'keep_ms', string>;
    },
  ) => {
    const columns = ALERT_COLUMNS.map((c) => sql.ref(`a.${c}`));
    const moved = upsertWatermarks(db, { columns: q.moves }, q.futureBound);
    const from = spanStartSql(
      sql`sp.from_at`,
      sql`(select m.prev_at from moved m where m.device_id = sp.device_id and m.metric = sp.metric)`,
      sql`sp.keep_ms`,
    );
    const statement = sql<{ watermarks: unknown; alerts: unknown; breaches: unknown; spans: unknown }>`
      with moved as (${moved})
      select
        (select coalesce(json_agg(json_build_object('device_id', m.device_id, 'metric', m.metric,
          'prev_at', m.prev_at)), '[]'::json) from moved m) as watermarks,
        (select coalesce(json_agg(x), '[]'::json) from (
          select s.place, ${sql.join(columns)}
          from unnest(${q.subjects.place}::int4[], ${q.subjects.farm_id}::text[],
            ${q.subjects.subject_type}::text[], ${q.subjects.subject_id}::text[])
            as s(place, farm_id, subject_type, subject_id)
          join alerts a on a.farm_id = s.farm_id and a.subject_type = s.subject_type and a.subject_id = s.subject_id
          where a.status in (${sql.join(ACTIVE_STATUS_LITERALS)})) x) as alerts,
        (select coalesce(json_agg(json_build_object('device_id', b.device_id, 'rule', b.rule, 'since', b.since)), '[]'::json)
          from alert_breaches b where b.device_id = any(${q.breachDevices}::text[]))
          as breaches,
        (select coalesce(json_agg(json_build_object('place', sp.place, 'index', sp.index,
            'readings', ${spanReadings(db, sql`sp.device_id`, sql`sp.metric`, from)})), '[]'::json)
          from unnest(${q.spans.place}::int4[], ${q.spans.index}::int4[],
            ${q.spans.device_id}::text[], ${q.spans.metric}::text[],
            ${q.spans.from_at}::int8[], ${q.spans.keep_ms}::int8[])
            as sp(place, index, device_id, metric, from_at, keep_ms)) as spans`;
    return { compile: () => statement.compile(db) };
  },
);

/**
 * Reads the batch statement's row back into one answer per report, each as the statement for one gives it
 * (stateOf and watermarkOf read them): its watermarks, active alerts, breach starts and spans.
 */
function answersOf(queries: readonly MoveAndReadQuery[], row: Record<string, unknown> | undefined) {
  const answers = queries.map((q) => {
    const answer: Record<string, unknown[]> = { watermarks: [], alerts: [], breaches: [] };
    for (const [i] of q.spans.entries()) answer[`span_${i}`] = [];
    return answer;
  });
  const placeOf = new Map(queries.map((q, place) => [q.deviceId, place]));
  const answerOf = (place: number | undefined, what: string) => {
    const answer = place === undefined ? undefined : answers[place];
    if (!answer) throw new Error(`${what}: no report of the batch at ${place}`);
    return answer;
  };
  for (const value of jsonList(row?.watermarks, 'watermarks')) {
    const w = record(value, 'watermark');
    answerOf(placeOf.get(text(w.device_id, 'watermark.device_id')), 'watermark').watermarks?.push(w);
  }
  for (const value of jsonList(row?.alerts, 'alerts')) {
    const { place, ...alert } = record(value, 'alert');
    answerOf(num(place, 'alert.place'), 'alert').alerts?.push(alert);
  }
  for (const value of jsonList(row?.breaches, 'breaches')) {
    const b = record(value, 'breach');
    answerOf(placeOf.get(text(b.device_id, 'breach.device_id')), 'breach').breaches?.push(b);
  }
  for (const value of jsonList(row?.spans, 'spans')) {
    const sp = record(value, 'span');
    const index = num(sp.index, 'span.index');
    answerOf(num(sp.place, 'span.place'), 'span')[`span_${index}`] = jsonList(sp.readings, `span_${index}`);
  }
  return answers;
}
