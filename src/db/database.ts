/**
 * One Kysely instance over either engine: embedded SQLite (default) or PostgreSQL (DATABASE_URL).
 * Both store times as integer epoch milliseconds, JSON as text and booleans as 0/1, so one set of
 * migrations and one set of queries serve both.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import type { Config } from '../config.ts';
import { type Engine, engineOf } from './engine.ts';
import { migrateToLatest } from './migrate.ts';
import type { DB } from './schema.ts';
import { openSqlite } from './sqlite-adapter.ts';

export type { Engine } from './engine.ts';

export interface Database {
  db: Kysely<DB>;
  engine: Engine;
  close(): Promise<void>;
}

// int8 (bigint) columns hold epoch milliseconds and counts, all well inside 2^53: parse to numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));

function defaultPoolError(err: Error): void {
  process.stderr.write(`PostgreSQL connection lost while idle (the pool reconnects): ${err.message}\n`);
}

export async function openDatabase(
  config: Pick<Config, 'databaseUrl' | 'dataDir' | 'pgPoolSize'>,
  options: { migrate?: boolean; onPoolError?: (err: Error) => void } = {},
): Promise<Database> {
  let database: Database;
  if (config.databaseUrl) {
    const pool = new pg.Pool({ connectionString: config.databaseUrl, max: config.pgPoolSize });
    // An idle connection closed by the server (restart, failover, admin kill) must not crash the
    // process: the pool drops it and opens a new one on the next query.
    pool.on('error', (err) => {
      (options.onPoolError ?? defaultPoolError)(err);
    });
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    database = { db, engine: engineOf(db), close: () => db.destroy() };
  } else {
    mkdirSync(config.dataDir, { recursive: true });
    const { database: sqlite } = openSqlite(path.join(config.dataDir, 'farmstead.db'));
    const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: sqlite }) });
    database = { db, engine: engineOf(db), close: () => db.destroy() };
  }
  if (options.migrate !== false) await migrateToLatest(database.db);
  return database;
}
