/**
 * `node:sqlite` (Node's built-in SQLite, no native addon to build) opened for Kysely: the writer connection
 * with the server's settings, and a second, query-only connection for reads (sqlite-routing.ts sends each
 * statement to one of them). Prepared statements are cached by SQL text: Kysely compiles the same shapes
 * over and over.
 */
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/** How long a connection waits for another process's write lock before giving up, in ms. */
export const SQLITE_BUSY_TIMEOUT_MS = 15_000;

type SqliteValue = null | number | bigint | string | Uint8Array;

function bind(parameters: ReadonlyArray<unknown>): SqliteValue[] {
  return parameters.map((p) => {
    if (p === undefined) return null;
    if (typeof p === 'boolean') return p ? 1 : 0;
    if (p instanceof Date) return p.getTime();
    return p as SqliteValue;
  });
}

const CACHE_LIMIT = 500;

export function openSqlite(file: string): { database: SqliteDatabase; raw: DatabaseSync } {
  // The busy timeout comes first: switching a fresh file to WAL already needs the lock another process
  // (a CLI started beside the server) may hold.
  const raw = new DatabaseSync(file, { timeout: SQLITE_BUSY_TIMEOUT_MS });
  raw.exec(`PRAGMA busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  raw.exec('PRAGMA journal_mode = WAL');
  raw.exec('PRAGMA synchronous = NORMAL');
  raw.exec('PRAGMA foreign_keys = ON');
  raw.exec('PRAGMA temp_store = MEMORY');
  // 16 MB of page cache (was 64, then 32): it is part of the server's resident memory, while the operating
  // system keeps the file's pages cached anyway; the 250 MB RSS budget of `npm start` needs the difference.
  // Ingest writes at the end of its indexes, and reads go to the reader connection.
  raw.exec('PRAGMA cache_size = -16384');
  // Checkpoint the WAL less often: each checkpoint runs inside a committing call and stalls ingest.
  raw.exec('PRAGMA wal_autocheckpoint = 10000');
  return { raw, database: cachedStatements(raw) };
}

/**
 * The read connection: in WAL mode a reader never waits for the writer (each statement outside a
 * transaction sees everything committed when it starts), so reads do not queue behind a long write
 * transaction. `query_only` makes a write sent here by mistake fail instead of bypassing the writer's
 * transaction discipline. Opened after the writer, which has put the file in WAL mode.
 */
export function openSqliteReader(file: string): SqliteDatabase {
  const raw = new DatabaseSync(file, { timeout: SQLITE_BUSY_TIMEOUT_MS });
  raw.exec(`PRAGMA busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  raw.exec('PRAGMA query_only = 1');
  raw.exec('PRAGMA temp_store = MEMORY');
  // Its own page cache, smaller than the writer's: the operating system caches the file's pages for both.
  raw.exec('PRAGMA cache_size = -8192');
  return cachedStatements(raw);
}

/** Kysely's view of a connection, with prepared statements cached by SQL text. */
function cachedStatements(raw: DatabaseSync): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>();

  const prepare = (sqlText: string): SqliteStatement => {
    const cached = cache.get(sqlText);
    if (cached) return cached;
    const stmt: StatementSync = raw.prepare(sqlText);
    const names = stmt.columns().map((c) => c.name);
    const reader = names.length > 0;
    // Rows come as arrays and become objects here: node:sqlite's own row objects are slow to read from
    // (every record is mapped to its API shape next), and arrays are quicker to make. A list of 50
    // animals read and mapped took 148 µs one way and 99 µs this way.
    if (reader) stmt.setReturnArrays(true);
    const toRow = (values: unknown[]): Record<string, unknown> => {
      const row: Record<string, unknown> = {};
      for (let i = 0; i < names.length; i++) row[names[i] as string] = values[i];
      return row;
    };
    const wrapped: SqliteStatement = {
      reader,
      all: (params) => (stmt.all(...bind(params)) as unknown as unknown[][]).map(toRow),
      run: (params) => {
        const r = stmt.run(...bind(params));
        return { changes: r.changes, lastInsertRowid: r.lastInsertRowid };
      },
      iterate: function* (params) {
        for (const values of stmt.iterate(...bind(params))) yield toRow(values as unknown as unknown[]);
      },
    };
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
    cache.set(sqlText, wrapped);
    return wrapped;
  };

  return {
    prepare,
    close: () => {
      cache.clear();
      raw.close();
    },
  };
}
