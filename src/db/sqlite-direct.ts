/**
 * SQLite transactions run their statements straight on the writer connection. Inside a transaction the
 * writer is already held from BEGIN to the end (sqlite-routing.ts), and `node:sqlite` runs a statement to
 * completion synchronously, so Kysely's path for a statement (its connection provider's queue, the
 * driver's wrapping, the log hook and half a dozen promise turns) only adds time: on the 1-reading
 * report's nine statements it cost more than SQLite itself did (BENCHMARKS.md, "Performance round 9").
 * `prepared()` statements and the group commit's savepoints take this path; anything else keeps Kysely's,
 * on the same connection and in the same transaction, so the two mix freely.
 *
 * A transaction is known here only while `inTransaction` runs it, and only for databases opened by
 * `openDatabase` (which says which connection is the writer); anything else falls back to Kysely.
 */
import type { CompiledQuery, Kysely, QueryResult, SqliteDatabase } from 'kysely';
import { metrics } from '../modules/metrics/metrics.ts';
import type { DB, Db } from './schema.ts';

const writers = new WeakMap<Kysely<DB>, SqliteDatabase>();
const open = new WeakMap<Db, SqliteDatabase>();

/** openDatabase: `writer` is this SQLite database's write connection. */
export function registerSqliteWriter(db: Kysely<DB>, writer: SqliteDatabase): void {
  writers.set(db, writer);
}

/** inTransaction: `trx` is running on `root`'s writer until `end` is called. */
export function beginDirect(root: Db, trx: Db): () => void {
  const writer = writers.get(root as Kysely<DB>);
  if (!writer) return () => {};
  open.set(trx, writer);
  return () => open.delete(trx);
}

/** Runs a compiled statement on `connection` as the routing driver does. */
export function runOn<R>(connection: SqliteDatabase, query: CompiledQuery): QueryResult<R> {
  const stmt = connection.prepare(query.sql);
  if (stmt.reader) return { rows: stmt.all(query.parameters) as R[] };
  const { changes, lastInsertRowid } = stmt.run(query.parameters);
  return {
    insertId: lastInsertRowid != null ? BigInt(lastInsertRowid) : undefined,
    numAffectedRows: changes != null ? BigInt(changes) : undefined,
    rows: [],
  };
}

const timed = {
  ok: metrics.dbQueries.labels({ engine: 'sqlite', outcome: 'ok' }),
  error: metrics.dbQueries.labels({ engine: 'sqlite', outcome: 'error' }),
};

/**
 * Runs `query` directly on the writer when `db` is a SQLite transaction that `inTransaction` is running;
 * undefined otherwise (run it through Kysely). Timed into the same metric as Kysely's statements.
 */
export function runDirect<R>(db: Db, query: CompiledQuery): QueryResult<R> | undefined {
  const writer = open.get(db);
  if (!writer) return undefined;
  const started = performance.now();
  try {
    const result = runOn<R>(writer, query);
    timed.ok.observe((performance.now() - started) / 1000);
    return result;
  } catch (err) {
    timed.error.observe((performance.now() - started) / 1000);
    throw err;
  }
}
