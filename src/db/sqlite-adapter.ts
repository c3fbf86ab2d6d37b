/**
 * Kysely's SqliteDialect over Node's built-in `node:sqlite` (no native addon to build).
 * Prepared statements are cached by SQL text: Kysely compiles the same shapes over and over.
 */
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type SqliteDatabase,
  SqliteDialect,
  type SqliteDialectConfig,
  SqliteDriver,
  type SqliteStatement,
} from 'kysely';

/** How long a connection waits for another process's write lock before giving up, in ms. */
export const SQLITE_BUSY_TIMEOUT_MS = 15_000;

/**
 * Transactions begin IMMEDIATE: they take the write lock at BEGIN, where the busy timeout waits for it. A
 * deferred transaction that reads and then writes cannot wait (SQLite answers "database is locked" at once
 * when another process committed in between), and its read could be stale: a lost update.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

export class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;
  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config);
  }
}

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
  // 32 MB of page cache (was 64): it is part of the server's resident memory, while the operating system
  // keeps the file's pages cached anyway; the 250 MB RSS budget of `npm start` needs the difference.
  raw.exec('PRAGMA cache_size = -32768');
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
