/**
 * PostgreSQL: the statements the code runs most (those `prepared()` builds once, and ingest's report
 * statement) go to the server as named prepared statements, so each connection parses and plans them once
 * instead of on every run (a 100-reading report spends about a fifth less time in PostgreSQL:
 * BENCHMARKS.md). Only texts marked here are named, so a connection holds a bounded set (one per statement
 * shape), never one per ad-hoc query. Works through PgBouncer in session mode, which the advisory locks
 * need anyway (docs/deployment.md).
 *
 * A named statement that reads `*` fails with "cached plan must not change result type" once another
 * process's migration adds a column to its table. That connection then forgets its statements (DEALLOCATE
 * ALL before its next named one) and prepares them afresh: the failing run is the only casualty.
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';

/**
 * At most this many texts are named (statements whose shape follows a report's metric count could
 * otherwise add one per count): each costs every connection a parsed statement and plan on the server.
 */
const MAX_NAMED = 500;
const names = new Map<string, string>();

/** Marks a statement's SQL text as one to run as a named prepared statement. */
export function nameStatement(text: string): void {
  if (names.has(text) || names.size >= MAX_NAMED) return;
  names.set(text, `f${createHash('sha1').update(text).digest('hex').slice(0, 20)}`);
}

/** The error a named statement meets once its table changed under it (0A000 is wider: the text decides). */
function isStalePlan(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  return (
    e?.code === '0A000' && typeof e.message === 'string' && /cached plan must not change/.test(e.message)
  );
}

/** Wraps a new connection's `query` so that marked texts go as named statements. */
export function nameStatementsOn(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
  let stale = false;
  const named = async (text: string, values: unknown[]) => {
    if (stale) {
      stale = false;
      (
        client as unknown as { connection: { parsedStatements: Record<string, unknown> } }
      ).connection.parsedStatements = {};
      await query('deallocate all');
    }
    try {
      return await query({ name: names.get(text), text, values });
    } catch (err) {
      if (isStalePlan(err)) stale = true;
      throw err;
    }
  };
  (client as unknown as { query: unknown }).query = (...args: unknown[]) => {
    const [text, values] = args;
    if (args.length === 2 && typeof text === 'string' && Array.isArray(values) && names.has(text)) {
      return named(text, values);
    }
    return query(...args);
  };
}
