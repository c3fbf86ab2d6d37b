/**
 * PostgreSQL: the statements the code runs most (those `prepared()` builds once, and ingest's report
 * statement) go to the server as named prepared statements, so each connection parses and plans them once
 * instead of on every run (a 100-reading report spends about a fifth less time in PostgreSQL:
 * BENCHMARKS.md). Only texts marked here are named, so a connection holds a bounded set (one per statement
 * shape), never one per ad-hoc query. Works through PgBouncer in session mode, which the advisory locks
 * need anyway (docs/deployment.md).
 *
 * Naming is part of a statement's type: a `NamedStatement` comes only from `namedStatement` (which marks its
 * text) and is run by `executeNamed`, so a hot statement written as raw SQL (a batch kind's, ingest's report
 * statement) cannot be run unnamed by forgetting a call; `prepared()` names what it builds the same way.
 *
 * A named statement that reads `*` fails with "cached plan must not change result type" once another
 * process's migration adds a column to its table. That connection then forgets its statements (DEALLOCATE
 * ALL before its next named one) and prepares them afresh: the failing run is the only casualty. When that
 * DEALLOCATE ALL itself fails (sent inside the transaction the stale plan aborted, where a group's other
 * reports still run), the connection and the server disagree on what is prepared; the next named statement
 * then fails once more and the connection starts afresh the same way.
 */
import { createHash } from 'node:crypto';
import type { CompiledQuery, QueryResult } from 'kysely';
import type pg from 'pg';
import { isPostgres } from './engine.ts';
import type { Db } from './schema.ts';
import { executeCompiled } from './sqlite-direct.ts';

/**
 * At most this many texts are named (statements whose shape follows a report's metric count could
 * otherwise add one per count): each costs every connection a parsed statement and plan on the server.
 */
const MAX_NAMED = 500;
const names = new Map<string, string>();

/** Marks a statement's SQL text as one to run as a named prepared statement. */
function nameStatement(text: string): void {
  if (names.has(text) || names.size >= MAX_NAMED) return;
  names.set(text, `f${createHash('sha1').update(text).digest('hex').slice(0, 20)}`);
}

declare const named: unique symbol;

/** A compiled statement whose text runs as a named prepared statement on PostgreSQL (see above). */
export type NamedStatement<R> = CompiledQuery<R> & { readonly [named]: true };

/** `compiled` as a named statement: on PostgreSQL its text is marked (SQLite caches statements itself). */
export function namedStatement<R>(db: Db, compiled: CompiledQuery<R>): NamedStatement<R> {
  if (isPostgres(db)) nameStatement(compiled.sql);
  return compiled as NamedStatement<R>;
}

/** Runs a named statement (on SQLite straight on the connection where it can: sqlite-direct.ts). */
export function executeNamed<R>(db: Db, statement: NamedStatement<R>): Promise<QueryResult<R>> {
  return executeCompiled<R>(db, statement);
}

/** Compiles `query` for `db`'s engine and runs it as a named statement: the raw hot statements' one call. */
export async function runNamed<R>(db: Db, query: { compile(db: Db): CompiledQuery<R> }): Promise<R[]> {
  return (await executeNamed(db, namedStatement(db, query.compile(db)))).rows;
}

/**
 * The errors after which a connection prepares its statements afresh: a plan gone stale under a changed table
 * (0A000 is wider: the text decides), and the connection and the server disagreeing on which statements it
 * has, which a DEALLOCATE ALL refused inside an aborted transaction leaves behind: a statement the
 * connection counts on is gone (26000), or one it means to prepare is there already (42P05).
 */
function needsFreshStatements(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  if (e?.code === '26000' || e?.code === '42P05') return true;
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
      if (needsFreshStatements(err)) stale = true;
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
