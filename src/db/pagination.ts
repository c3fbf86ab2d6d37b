/**
 * Keyset pagination, newest first. A page is ordered by (time, id) descending; the cursor carries both,
 * so records created in the same millisecond are never repeated or skipped across pages. The cursor's
 * text (`parsePage` reads it, `toPage` writes it) and the query over Kysely (`fetchPage`) live together
 * here, below the services and repositories that page; the query-string schema is http/schemas.ts's.
 */
import { type Expression, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import { invalid } from '../domain/errors.ts';
import { parseIso, toIso } from '../lib/time.ts';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 500;
/**
 * The most stored text one page of a list (or of an export) holds: a page ends before the record that
 * would pass it (a page always holds at least one record), with `has_more` and a cursor as usual. 500
 * records of 64 KiB free-form members each (fields, data, settings, state) would be 32 MB as stored and
 * several times that as objects, enough to run a 256 MB server out of heap (docs/data.md, "Memory").
 */
export const PAGE_BUDGET_BYTES = 2 * 1024 * 1024;

/** The text a stored row holds (string columns' lengths): what parsing and answering it costs. */
function storedSize(row: unknown): number {
  let size = 0;
  for (const value of Object.values(row as Record<string, unknown>)) {
    if (typeof value === 'string') size += value.length;
  }
  return size;
}

export interface PageRequest {
  limit: number;
  /** Records strictly before this (time, id); id null means every record at `at` is excluded too. */
  before: { at: number; id: string | null } | null;
}

export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_before: string | null;
}

const CURSOR_SEPARATOR = '~';

export function parsePage(query: { limit?: number; before?: string }): PageRequest {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw invalid('limit', `limit must be a whole number from 1 to ${MAX_PAGE_SIZE}.`);
  }
  if (query.before === undefined) return { limit, before: null };
  const [timeText, id] = query.before.split(CURSOR_SEPARATOR, 2) as [string, string | undefined];
  const at = parseIso(timeText);
  if (at === null) {
    throw invalid('before', 'before must be an ISO 8601 time or the next_before cursor of a previous page.');
  }
  return { limit, before: { at, id: id || null } };
}

/**
 * The order a list pages in: newest first (every list but one), or oldest first (the houses view, House 1
 * before House 2), where the cursor of a page means "the records after this one".
 */
export type PageOrder = 'desc' | 'asc';

/**
 * The WHERE condition for a page: (time, id) < cursor (oldest first: > cursor). Column names are trusted
 * constants.
 */
export function beforeCondition(
  timeColumn: string,
  idColumn: string,
  page: PageRequest,
  order: PageOrder = 'desc',
): Expression<SqlBool> {
  const before = page.before;
  if (!before) return sql<SqlBool>`1 = 1`;
  const time = sql.ref(timeColumn);
  const past = order === 'desc' ? sql.raw('<') : sql.raw('>');
  if (before.id === null) return sql<SqlBool>`${time} ${past} ${before.at}`;
  // A row-value comparison, not `time < t or (time = t and id < i)`: both engines walk the (…, time, id)
  // index from the cursor with it, where PostgreSQL read every row of an equal time for the `or` form (a
  // CSV import stamps 100,000 animals with one time: the export's pages took 80 ms each, now a few).
  return sql<SqlBool>`(${time}, ${sql.ref(idColumn)}) ${past} (${before.at}, ${before.id})`;
}

/**
 * Queries fetch limit + 1 rows; this trims the extra one (and any past PAGE_BUDGET_BYTES) and builds the
 * cursor from the last row kept. `alsoCarries` adds the text a record's answer carries beside its row's
 * own (the houses view: each house's recent commands, counted in SQL before they are read).
 */
export function toPage<Row, T>(
  rows: Row[],
  page: PageRequest,
  cursorOf: (row: Row) => { at: number; id: string },
  map: (row: Row) => T,
  alsoCarries?: (row: Row) => number,
): Page<T> {
  let end = Math.min(rows.length, page.limit);
  let size = 0;
  for (let i = 0; i < end; i++) {
    const row = rows[i] as Row;
    size += storedSize(row) + (alsoCarries ? alsoCarries(row) : 0);
    if (size > PAGE_BUDGET_BYTES && i > 0) end = i;
  }
  const hasMore = rows.length > end;
  const kept = hasMore ? rows.slice(0, end) : rows;
  const last = kept.at(-1);
  const cursor = last ? cursorOf(last) : null;
  return {
    data: kept.map(map),
    has_more: hasMore,
    next_before: hasMore && cursor ? `${toIso(cursor.at)}${CURSOR_SEPARATOR}${cursor.id}` : null,
  };
}

export interface PageOptions<Row> {
  /** Newest first unless `asc`. */
  order?: PageOrder;
  /** Text a record's answer carries beyond its row, counted against the page budget (see toPage). */
  alsoCarries?: (row: Row) => number;
}

/**
 * Runs a list query as one page: adds the cursor condition, newest-first (or oldest-first) order on
 * (time, id) and the limit, then trims and builds the cursor. Filters go on `query` before it is passed in.
 */
export async function fetchPage<DB, TB extends keyof DB, Row extends { id: string }, T>(
  query: SelectQueryBuilder<DB, TB, Row>,
  page: PageRequest,
  map: (row: Row) => T,
  timeColumn: 'created_at' | 'at' = 'created_at',
  options: PageOptions<Row> = {},
): Promise<Page<T>> {
  const order = options.order ?? 'desc';
  const rows = (await query
    .where(beforeCondition(timeColumn, 'id', page, order))
    .orderBy(sql.ref(timeColumn), order)
    .orderBy(sql.ref('id'), order)
    .limit(page.limit + 1)
    .execute()) as Row[];
  return toPage(
    rows,
    page,
    (r) => ({ at: Number((r as Record<string, unknown>)[timeColumn]), id: r.id }),
    map,
    options.alsoCarries,
  );
}
