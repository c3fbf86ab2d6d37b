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

/** The WHERE condition for a page: (time, id) < cursor. Column names are trusted constants. */
export function beforeCondition(
  timeColumn: string,
  idColumn: string,
  page: PageRequest,
): Expression<SqlBool> {
  const before = page.before;
  if (!before) return sql<SqlBool>`1 = 1`;
  const time = sql.ref(timeColumn);
  if (before.id === null) return sql<SqlBool>`${time} < ${before.at}`;
  return sql<SqlBool>`(${time} < ${before.at} or (${time} = ${before.at} and ${sql.ref(idColumn)} < ${before.id}))`;
}

/**
 * Queries fetch limit + 1 rows; this trims the extra one and builds the cursor from the last row kept.
 */
export function toPage<Row, T>(
  rows: Row[],
  page: PageRequest,
  cursorOf: (row: Row) => { at: number; id: string },
  map: (row: Row) => T,
): Page<T> {
  const hasMore = rows.length > page.limit;
  const kept = hasMore ? rows.slice(0, page.limit) : rows;
  const last = kept.at(-1);
  const cursor = last ? cursorOf(last) : null;
  return {
    data: kept.map(map),
    has_more: hasMore,
    next_before: hasMore && cursor ? `${toIso(cursor.at)}${CURSOR_SEPARATOR}${cursor.id}` : null,
  };
}

/**
 * Runs a list query as one page: adds the cursor condition, newest-first order on (time, id) and the
 * limit, then trims and builds the cursor. Filters go on `query` before it is passed in.
 */
export async function fetchPage<DB, TB extends keyof DB, Row extends { id: string }, T>(
  query: SelectQueryBuilder<DB, TB, Row>,
  page: PageRequest,
  map: (row: Row) => T,
  timeColumn: 'created_at' | 'at' = 'created_at',
): Promise<Page<T>> {
  const rows = (await query
    .where(beforeCondition(timeColumn, 'id', page))
    .orderBy(sql.ref(timeColumn), 'desc')
    .orderBy(sql.ref('id'), 'desc')
    .limit(page.limit + 1)
    .execute()) as Row[];
  return toPage(
    rows,
    page,
    (r) => ({ at: Number((r as Record<string, unknown>)[timeColumn]), id: r.id }),
    map,
  );
}
