/**
 * One Kysely instance over either engine: embedded SQLite (default) or PostgreSQL (DATABASE_URL).
 * Both store times as integer epoch milliseconds, JSON as text and booleans as 0/1, so one set of
 * migrations and one set of queries serve both.
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import { Kysely, type KyselyConfig, PostgresDialect } from 'kysely';
import type { Config } from '../config.ts';
import { metrics } from '../lib/metrics.ts';
import type { Engine } from './engine.ts';
import { groupCommitsSettled } from './group-commit.ts';
import { migrateToLatest } from './migrate.ts';
import { openPool } from './pg-driver.ts';
import type { DB } from './schema.ts';
import { openSqlite, openSqliteReader } from './sqlite-adapter.ts';
import { startBackgroundCheckpoints } from './sqlite-checkpoint.ts';
import { registerSqliteConnections } from './sqlite-direct.ts';
import { RoutingSqliteDialect } from './sqlite-routing.ts';

export type { Engine } from './engine.ts';

/** The engine is asked of the handle (`engineOf(db)`, `isPostgres(db)` in engine.ts), never stored beside it. */
export interface Database {
  db: Kysely<DB>;
  /** Connections in use: PostgreSQL's pool counts; SQLite's writer counts as one, idle (its reader is not counted). */
  poolStats(): { total: number; idle: number; waiting: number };
  close(): Promise<void>;
}

/**
 * The data folder, created readable by this user only (0700): it holds the database and the first
 * start's keys. An existing folder keeps its mode (FARMSTEAD_DATA may name a folder shared with other things).
 */
export function ensureDataDir(dir: string): void {
  if (existsSync(dir)) return;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // mkdir's mode passes through the umask; say it exactly.
  chmodSync(dir, 0o700);
}

/**
 * The SQLite files are this user's only (0600). The database file is created 0600 before SQLite opens it,
 * because SQLite gives its -wal and -shm files the database file's mode; existing files are tightened too.
 */
function restrictSqliteFiles(file: string, when: 'before' | 'after'): void {
  if (when === 'before') {
    if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
    chmodSync(file, 0o600);
    return;
  }
  for (const f of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(f)) chmodSync(f, 0o600);
}

/** Every query's time goes to the metrics (Kysely's log hook: no wrapping of the driver). */
function queryTimer(engine: Engine): KyselyConfig['log'] {
  return (event) => {
    metrics.dbQueries.observe(
      { engine, outcome: event.level === 'error' ? 'error' : 'ok' },
      event.queryDurationMillis / 1000,
    );
  };
}

/** The SQLite database file inside the data folder (the CLI's backup and restore use it too). */
export function sqliteFile(dataDir: string): string {
  return path.join(dataDir, 'farmstead.db');
}

function defaultPoolError(err: Error): void {
  process.stderr.write(`PostgreSQL connection lost while idle (the pool reconnects): ${err.message}\n`);
}

export async function openDatabase(
  config: Pick<Config, 'databaseUrl' | 'dataDir' | 'pgPoolSize'>,
  options: {
    migrate?: boolean;
    onPoolError?: (err: Error) => void;
    /** SQLite: checkpoint the WAL from a worker thread (the server: sqlite-checkpoint.ts). */
    backgroundCheckpoints?: boolean;
  } = {},
): Promise<Database> {
  let database: Database;
  if (config.databaseUrl) {
    const pool = await openPool(
      config.databaseUrl,
      config.pgPoolSize,
      options.onPoolError ?? defaultPoolError,
    );
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }), log: queryTimer('postgres') });
    database = {
      db,
      poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
      close: async () => {
        await groupCommitsSettled(db);
        await db.destroy();
      },
    };
  } else {
    ensureDataDir(config.dataDir);
    const file = sqliteFile(config.dataDir);
    restrictSqliteFiles(file, 'before');
    const { database: writer, raw } = openSqlite(file);
    const reader = openSqliteReader(file);
    restrictSqliteFiles(file, 'after');
    const db = new Kysely<DB>({
      dialect: new RoutingSqliteDialect({ writer, reader }),
      log: queryTimer('sqlite'),
    });
    registerSqliteConnections(db, { writer, reader });
    const checkpoints = options.backgroundCheckpoints ? startBackgroundCheckpoints(raw, file) : null;
    database = {
      db,
      poolStats: () => ({ total: 1, idle: 1, waiting: 0 }),
      close: async () => {
        await groupCommitsSettled(db);
        await checkpoints?.stop();
        await db.destroy();
      },
    };
  }
  if (options.migrate !== false) await migrateToLatest(database.db);
  return database;
}
