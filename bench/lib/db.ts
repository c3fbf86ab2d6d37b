/** A fresh database per engine for one benchmark run: a temp folder (SQLite) or a new PostgreSQL database. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { type Config, loadConfig } from '../../src/config.ts';
import type { Engine } from '../../src/db/database.ts';

const PG_ADMIN_URL = process.env.FARMSTEAD_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface BenchDatabase {
  engine: Engine;
  /** The server's environment for this database. */
  env: Record<string, string>;
  /** The same settings for opening the database in the benchmark process. */
  config: Readonly<Config>;
  drop(): Promise<void>;
}

export async function createBenchDatabase(engine: Engine): Promise<BenchDatabase> {
  if (engine === 'sqlite') {
    const dir = mkdtempSync(path.join(tmpdir(), 'farmstead-bench-'));
    return {
      engine,
      env: { FARMSTEAD_DATA: dir },
      config: { ...loadConfig({}), dataDir: dir, databaseUrl: null },
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const name = `farmstead_bench_${process.pid}_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    engine,
    env: { DATABASE_URL: url.toString() },
    config: { ...loadConfig({}), databaseUrl: url.toString() },
    drop: async () => {
      const client = new pg.Client({ connectionString: PG_ADMIN_URL });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
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
