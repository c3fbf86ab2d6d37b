/**
 * SQLite transactions run their statements straight on the writer connection. Inside a transaction the
 * writer is already held from BEGIN to the end (sqlite-routing.ts), and `node:sqlite` runs a statement to
 * completion synchronously, so Kysely's path for a statement (its connection provider's queue, the
 * driver's wrapping, the log hook and half a dozen promise turns) only adds time: on the 1-reading
 * report's nine statements it cost more than SQLite itself did (BENCHMARKS.md, "Performance round 9").
 * `prepared()` statements and the group commit's savepoints take this path; anything else keeps Kysely's,
 * on the same connection and in the same transaction, so the two mix freely. Likewise a `prepared()` read
 * outside a transaction runs straight on the read connection, where the routing driver would send it.
 *
 * A transaction is known here only while `inTransaction` runs it, and only for databases opened by
 * `openDatabase` (which says which connections are the writer and the reader); anything else, and a write
 * outside a transaction (it must wait for the writer), falls back to Kysely.
 */
import {
  type CompiledQuery,
  type Kysely,
  type QueryResult,
  RawNode,
  SelectQueryNode,
  type SqliteDatabase,
} from 'kysely';
import { metrics } from '../lib/metrics.ts';
import type { DB, Db } from './schema.ts';

/**
 * Runs a compiled statement: straight on a SQLite connection where `runDirect` can (answered without an
 * async function's turns; a failure still arrives as a rejected promise), else through Kysely. What
 * `prepared()` and the group commit's savepoints call.
 */
export function executeCompiled<R>(db: Db, query: CompiledQuery): Promise<QueryResult<R>> {
  try {
    const direct = runDirect<R>(db, query);
    if (direct) return Promise.resolve(direct);
  } catch (err) {
    return Promise.reject(err);
  }
  return db.executeQuery<R>(query);
}

interface Connections {
  writer: SqliteDatabase;
  reader: SqliteDatabase;
}

const connections = new WeakMap<Kysely<DB>, Connections>();
const open = new WeakMap<Db, SqliteDatabase>();

/** openDatabase: this SQLite database's write and read connections. */
export function registerSqliteConnections(db: Kysely<DB>, both: Connections): void {
  connections.set(db, both);
}

/** inTransaction: `trx` is running on `root`'s writer until `end` is called. */
export function beginDirect(root: Db, trx: Db): () => void {
  const writer = connections.get(root as Kysely<DB>)?.writer;
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

/** Whether a statement only reads: a SELECT built by Kysely, or raw SQL that is a plain SELECT. */
export function isReadOnlyStatement(query: CompiledQuery): boolean {
  if (SelectQueryNode.is(query.query)) return true;
  return RawNode.is(query.query) && /^\s*select\b/i.test(query.sql);
}

const timed = {
  ok: metrics.dbQueries.labels({ engine: 'sqlite', outcome: 'ok' }),
  error: metrics.dbQueries.labels({ engine: 'sqlite', outcome: 'error' }),
};

/** The reader, for a read on a SQLite database itself (a transaction's reads stay in the transaction). */
function readerFor(db: Db, query: CompiledQuery): SqliteDatabase | undefined {
  if (db.isTransaction) return undefined;
  const both = connections.get(db as Kysely<DB>);
  return both && isReadOnlyStatement(query) ? both.reader : undefined;
}

/**
 * Runs `query` directly on the writer when `db` is a SQLite transaction that `inTransaction` is running,
 * or on the reader when `db` is the database itself and `query` only reads; undefined otherwise (run it
 * through Kysely). Timed into the same metric as Kysely's statements.
 */
export function runDirect<R>(db: Db, query: CompiledQuery): QueryResult<R> | undefined {
  const connection = open.get(db) ?? readerFor(db, query);
  if (!connection) return undefined;
  const started = performance.now();
  try {
    const result = runOn<R>(connection, query);
    timed.ok.observe((performance.now() - started) / 1000);
    return result;
  } catch (err) {
    timed.error.observe((performance.now() - started) / 1000);
    throw err;
  }
}
