/** A fresh database per engine for one benchmark run: a temp folder (SQLite) or a new PostgreSQL database. */
import pg from 'pg';
import type { Config } from '../../src/config.ts';
import type { Engine } from '../../src/db/database.ts';
import { throwawayDatabase } from '../../test/throwaway.ts';

const PG_ADMIN_URL = process.env.FARMSTEAD_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface BenchDatabase {
  engine: Engine;
  /** The server's environment for this database. */
  env: Record<string, string>;
  /** The same settings for opening the database in the benchmark process. */
  config: Readonly<Config>;
  drop(): Promise<void>;
}

export function createBenchDatabase(engine: Engine): Promise<BenchDatabase> {
  return throwawayDatabase(engine, { pgAdminUrl: PG_ADMIN_URL, prefix: 'farmstead_bench' });
}

/** The PostgreSQL server's version, or null when it cannot be reached. */
export async function postgresVersion(): Promise<string | null> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  try {
    await client.connect();
    const { rows } = await client.query('show server_version');
    return String(rows[0]?.server_version ?? '');
  } catch {
    return null;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * PostgreSQL: a checkpoint now (SQLite: nothing; the server checkpoints and empties its WAL when it stops).
 * Run before each write load and its reference, so that each starts at the same point of PostgreSQL's
 * checkpoint cycle. Without it, the checkpoint that one load's WAL set off (at the default max_wal_size,
 * after about half a gigabyte) ran into whichever load came next, or not, from one run to the next: after a
 * checkpoint every page's first change writes the whole page to the WAL.
 */
export async function checkpoint(database: BenchDatabase): Promise<void> {
  if (database.engine !== 'postgres') return;
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  try {
    await client.query('checkpoint');
  } finally {
    await client.end();
  }
}
