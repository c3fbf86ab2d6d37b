/**
 * Kysely's SqliteDialect over Node's built-in `node:sqlite` (no native addon to build).
 * Prepared statements are cached by SQL text: Kysely compiles the same shapes over and over.
 */
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

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
  const raw = new DatabaseSync(file);
  raw.exec('PRAGMA journal_mode = WAL');
  raw.exec('PRAGMA synchronous = NORMAL');
  raw.exec('PRAGMA foreign_keys = ON');
  raw.exec('PRAGMA busy_timeout = 5000');
  raw.exec('PRAGMA temp_store = MEMORY');
  raw.exec('PRAGMA cache_size = -65536');
  // Checkpoint the WAL less often: each checkpoint runs inside a committing call and stalls ingest.
  raw.exec('PRAGMA wal_autocheckpoint = 10000');
  const cache = new Map<string, SqliteStatement>();

  const prepare = (sqlText: string): SqliteStatement => {
    const cached = cache.get(sqlText);
    if (cached) return cached;
    const stmt: StatementSync = raw.prepare(sqlText);
    const reader = stmt.columns().length > 0;
    const wrapped: SqliteStatement = {
      reader,
      all: (params) => stmt.all(...bind(params)) as unknown[],
      run: (params) => {
        const r = stmt.run(...bind(params));
        return { changes: r.changes, lastInsertRowid: r.lastInsertRowid };
      },
      iterate: (params) => stmt.iterate(...bind(params)) as IterableIterator<unknown>,
    };
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
    cache.set(sqlText, wrapped);
    return wrapped;
  };

  return {
    raw,
    database: {
      prepare,
      close: () => {
        cache.clear();
        raw.close();
      },
    },
  };
}
