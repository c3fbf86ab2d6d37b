/**
 * Throwaway resources shared by the tests and the benchmarks (bench/lib): a free TCP port, and a fresh
 * database per engine (a temp folder for SQLite, a new PostgreSQL database) that is dropped afterwards.
 */
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { type Config, loadConfig } from '../src/config.ts';
import type { Engine } from '../src/db/database.ts';

/** A TCP port on 127.0.0.1 that was free a moment ago (for child processes that must be told a port). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

/**
 * A new, empty PostgreSQL database on the server `adminUrl` names (any database there that we may connect
 * to); returns its URL and a function dropping it.
 */
export async function createPgDatabase(
  adminUrl: string,
  prefix = 'farmstead_test',
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      // pg's Pool.end() resolves before its sockets have closed; forcing the drop while they close makes
      // the pool's clients throw "terminating connection" after the tests. Wait (briefly) for them to go.
      for (let i = 0; i < 100; i++) {
        const open = await client.query(
          'select count(*)::int as n from pg_stat_activity where datname = $1',
          [name],
        );
        if (open.rows[0].n === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

export interface ThrowawayDatabase {
  engine: Engine;
  /** Settings for opening the database in this process (defaults, the database, then `overrides`). */
  config: Readonly<Config>;
  /** The same database as a server process's environment (FARMSTEAD_DATA or DATABASE_URL). */
  env: Record<string, string>;
  drop(): Promise<void>;
}

/** A fresh database on `engine`: a new temp folder for SQLite, a new database on PostgreSQL. */
export async function throwawayDatabase(
  engine: Engine,
  options: { pgAdminUrl: string; prefix: string; overrides?: Partial<Config> },
): Promise<ThrowawayDatabase> {
  const { pgAdminUrl, prefix, overrides = {} } = options;
  if (engine === 'postgres') {
    const pgDb = await createPgDatabase(pgAdminUrl, prefix);
    return {
      engine,
      config: { ...loadConfig({}), databaseUrl: pgDb.url, ...overrides },
      env: { DATABASE_URL: pgDb.url },
      drop: pgDb.drop,
    };
  }
  const dir = mkdtempSync(path.join(tmpdir(), `${prefix.replaceAll('_', '-')}-`));
  return {
    engine,
    config: { ...loadConfig({}), dataDir: dir, databaseUrl: null, ...overrides },
    env: { FARMSTEAD_DATA: dir },
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}
