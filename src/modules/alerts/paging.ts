/**
 * Paging for alert lists, which sort most urgent first, then newest: (severity rank ascending,
 * created_at descending, id descending). The cursor names a position in that order:
 *
 *   <severity>~<created_at ISO>~<id>[~<time bound ISO>]
 *
 * e.g. `watch~2026-05-01T02:14:00.000Z~alt_01hx…`. A plain ISO time as `before` instead keeps alerts
 * created strictly before it (every severity, same order); the cursors of such a list carry that
 * bound as their fourth part so later pages keep it.
 */
import { type Expression, type SqlBool, sql } from 'kysely';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type Page } from '../../db/pagination.ts';
import type { AlertSeverity } from '../../db/tables/alerts.ts';
import { invalid } from '../../domain/errors.ts';
import { parseIso, toIso } from '../../lib/time.ts';
import { SEVERITY_RANK } from './repository.ts';

export interface AlertPageRequest {
  limit: number;
  /** Alerts after this position in list order. */
  after: { rank: number; at: number; id: string } | null;
  /** Only alerts created strictly before this time. */
  createdBefore: number | null;
}

const SEPARATOR = '~';
const BAD_CURSOR = 'before must be the next_before cursor of a previous page of alerts, or an ISO 8601 time.';

function isSeverity(value: string): value is AlertSeverity {
  return Object.hasOwn(SEVERITY_RANK, value);
}

export function parseAlertPage(query: { limit?: number; before?: string }): AlertPageRequest {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw invalid('limit', `limit must be a whole number from 1 to ${MAX_PAGE_SIZE}.`);
  }
  if (query.before === undefined) return { limit, after: null, createdBefore: null };
  const parts = query.before.split(SEPARATOR);
  if (parts.length === 1) {
    const bound = parseIso(query.before);
    if (bound === null) throw invalid('before', BAD_CURSOR);
    return { limit, after: null, createdBefore: bound };
  }
  const [severity, atText, id, boundText] = parts;
  const at = atText === undefined ? null : parseIso(atText);
  const bound = boundText === undefined ? null : parseIso(boundText);
  if (
    (parts.length !== 3 && parts.length !== 4) ||
    severity === undefined ||
    !isSeverity(severity) ||
    at === null ||
    !id ||
    (boundText !== undefined && bound === null)
  ) {
    throw invalid('before', BAD_CURSOR);
  }
  return { limit, after: { rank: SEVERITY_RANK[severity], at, id }, createdBefore: bound };
}

/** The WHERE condition for a page of alerts (columns of the `alerts` table). */
export function alertPageCondition(page: AlertPageRequest): Expression<SqlBool> {
  const parts: Expression<SqlBool>[] = [];
  if (page.createdBefore !== null) parts.push(sql<SqlBool>`alerts.created_at < ${page.createdBefore}`);
  const after = page.after;
  if (after) {
    parts.push(
      sql<SqlBool>`(alerts.severity_rank > ${after.rank} or (alerts.severity_rank = ${after.rank} and (alerts.created_at < ${after.at} or (alerts.created_at = ${after.at} and alerts.id < ${after.id}))))`,
    );
  }
  if (parts.length === 0) return sql<SqlBool>`1 = 1`;
  return sql<SqlBool>`${sql.join(parts, sql` and `)}`;
}

/** Trims the extra row fetched (limit + 1) and builds the cursor from the last row kept. */
export function toAlertPage<Row extends { severity: AlertSeverity; created_at: number; id: string }, T>(
  rows: Row[],
  page: AlertPageRequest,
  map: (row: Row) => T,
): Page<T> {
  const hasMore = rows.length > page.limit;
  const kept = hasMore ? rows.slice(0, page.limit) : rows;
  const last = kept.at(-1);
  let next: string | null = null;
  if (hasMore && last) {
    const parts = [last.severity, toIso(last.created_at), last.id];
    if (page.createdBefore !== null) parts.push(toIso(page.createdBefore));
    next = parts.join(SEPARATOR);
  }
  return { data: kept.map(map), has_more: hasMore, next_before: next };
}
