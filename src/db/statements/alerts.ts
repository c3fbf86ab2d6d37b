/**
 * The alerts and alert_watermarks tables' statement module: their column lists, the rule that moves a
 * watermark forward, its upsert for one report or a group, and the watermark span rule (where a rate
 * window's stored readings start), once in TypeScript and once in SQL beside it (statements.test.ts holds
 * the two to the same answers). The alert engine (modules/alerts: engine-repository.ts, report-state.ts) and
 * the alert queries (modules/alerts/repository.ts) take them from here.
 */
import { type OnConflictBuilder, type QueryCreator, type RawBuilder, sql } from 'kysely';
import { type PgColumnArrays, type PgColumnTypes, pgColumnArrays, unnestArrays } from '../pg-arrays.ts';
import type { DB } from '../schema.ts';
import type { AlertsTable, AlertWatermarksTable } from '../tables/alerts.ts';
import { everyColumn } from './columns.ts';

/** Every column of an alert, named: SQLite's JSON aggregate needs explicit selections. */
export const ALERT_COLUMNS = everyColumn<AlertsTable>()([
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
  'acknowledged_by',
  'resolved_at',
  'words',
]);

/** A watermark a report moves: every column but `prev_at`, which the upsert sets from the row it replaces. */
export type WatermarkMove = Omit<AlertWatermarksTable, 'prev_at' | 'at'> & { at: number };

/** The moved columns, in statement order, with their PostgreSQL array types (pg-arrays.ts). */
export const WATERMARK_MOVES = {
  device_id: 'text',
  metric: 'text',
  farm_id: 'text',
  at: 'int8',
} as const satisfies PgColumnTypes<WatermarkMove>;

const MOVED = Object.keys(WATERMARK_MOVES) as Array<keyof WatermarkMove & string>;

/** Every column of `alert_watermarks`, in the order its upserts name them. */
export const WATERMARK_COLUMNS = everyColumn<AlertWatermarksTable>()([...MOVED, 'prev_at']);

/**
 * A watermark already there moves to the new time only if it is later; `prev_at` keeps where it was. One
 * beyond `futureBound` (a time in the future: the server's clock plus the clock tolerance) is replaced
 * whatever the new time, and reported as none (`prev_at` null), so a reading once stored with a wrong clock
 * never stops the evaluation of real ones.
 */
export function moveWatermarkForward(futureBound: number) {
  return (oc: OnConflictBuilder<DB, 'alert_watermarks'>) =>
    oc.columns(['device_id', 'metric']).doUpdateSet({
      prev_at: sql<
        number | null
      >`case when alert_watermarks.at > ${futureBound} then null else alert_watermarks.at end`,
      at: sql<number>`case when alert_watermarks.at is null or excluded.at > alert_watermarks.at or alert_watermarks.at > ${futureBound} then excluded.at else alert_watermarks.at end`,
    });
}

/**
 * The watermark upsert for one report's moves (values, in the order given) or a group's (`unnest` arrays of
 * watermarkColumns, in device and metric order), returning each row's device, metric and the watermark it
 * replaced. Rows are inserted, and so locked, in that order, so concurrent reports of one device never
 * deadlock. The group's form reads no value of its arrays, so a statement built once may take it
 * (db/prepared.ts).
 */
export function upsertWatermarks(
  db: QueryCreator<DB>,
  moves: readonly WatermarkMove[] | { columns: Readonly<Record<string, unknown>> },
  futureBound: number,
) {
  const insert = db.insertInto('alert_watermarks');
  const rows =
    'columns' in moves
      ? insert.columns(WATERMARK_COLUMNS).expression(
          sql`select ${sql.join(MOVED.map((c) => sql.ref(`w.${c}`)))}, null
            from ${unnestArrays('w', WATERMARK_MOVES, moves.columns)} order by w.device_id, w.metric`,
        )
      : insert.values(moves.map((m) => ({ ...m, prev_at: null })));
  return rows.onConflict(moveWatermarkForward(futureBound)).returning(['device_id', 'metric', 'prev_at']);
}

/** A group's watermark moves as one array literal per moved column (upsertWatermarks). */
export function watermarkColumns(moves: readonly WatermarkMove[]): PgColumnArrays {
  return pgColumnArrays(WATERMARK_MOVES, moves);
}

/** A span of a metric's stored readings that may start later, once the metric's watermark is known. */
export interface ClippableSpan {
  metric: string;
  /** Where the span would start without a watermark (epoch ms). */
  from: number;
  /** The longest window over the span's metric. */
  keepMs: number;
}

/**
 * Where a span's reading starts, given its metric's watermark before this report (null: none yet): a
 * reading older than the watermark is late and not evaluated, so no window reaches further back than its
 * length before the watermark. Worked out from the candidate metrics, before their late readings are
 * dropped, a span could otherwise start at a late reading and reach back over every reading since.
 * spanStartSql is the same rule in SQL.
 */
export function spanStart(span: ClippableSpan, watermark: number | null | undefined): number {
  return watermark == null ? span.from : Math.max(span.from, watermark - span.keepMs);
}

/** spanStart in SQL (PostgreSQL), for the statements that move the watermark and read the span in one. */
export function spanStartSql(
  from: RawBuilder<number> | number,
  watermark: RawBuilder<number | null>,
  keepMs: RawBuilder<number> | number,
): RawBuilder<number> {
  return sql<number>`greatest(${from}, coalesce(${watermark} - ${keepMs}, ${from}))`;
}
