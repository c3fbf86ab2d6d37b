/**
 * Throwaway resources shared by the tests and the benchmarks (bench/lib): a free TCP port, and a fresh
 * database per engine (a temp folder for SQLite, a new PostgreSQL database) that is dropped afterwards.
 * A PostgreSQL database that should start migrated is cloned from a template database migrated once (see
 * `migratedTemplate`), which is several times faster than migrating each new database.
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { type Config, loadConfig } from '../src/config.ts';
import { type Engine, openDatabase } from '../src/db/database.ts';
import { migrations } from '../src/db/migrations/index.ts';
import type { NewAccount } from '../src/modules/accounts/service.ts';
import { copySeededSqlite, seededPgTemplate } from './seeded.ts';

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
 * `start(port)` on a port from `choose` (freePort): free when chosen, but another process (a listener, or a
 * connection given it as its local port) can take it before the child listens. When `start` fails with a
 * message `taken` matches, it is tried again on another port, three times in all.
 */
export async function onFreePort<T>(
  start: (port: number) => Promise<T>,
  taken: RegExp,
  choose: () => Promise<number> = freePort,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(await choose());
    } catch (err) {
      if (attempt === 3 || !taken.test((err as Error).message)) throw err;
    }
  }
}

/** Runs `work` with a connection to the server `adminUrl` names. */
async function withAdmin<T>(adminUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Waits (briefly) until nobody is connected to database `name`. */
async function untilUnused(client: pg.Client, name: string): Promise<void> {
  // pg's Pool.end() resolves before its sockets have closed: wait for the server to see them go.
  for (let i = 0; i < 100; i++) {
    const open = await client.query('select count(*)::int as n from pg_stat_activity where datname = $1', [
      name,
    ]);
    if (open.rows[0].n === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * The name of a database migrated to this code's latest schema, made once per server and migration set:
 * the key hashes the migrations (as loaded, and the table facts they import) and names the month, since
 * the readings partitions a migration creates depend on it. Built under another name and renamed when complete, under an
 * advisory lock, so parallel test processes build it once and never clone a half-migrated one. Templates
 * of older migration sets stay until dropped by hand (`drop database farmstead_template_…`).
 */
async function migratedTemplate(adminUrl: string): Promise<string> {
  const hash = createHash('sha256');
  // The migrations as this process loaded them (so a checkout changing under a running test cannot pair
  // one set's template with another's code), and the table facts they import.
  for (const [name, migration] of Object.entries(migrations)) {
    hash
      .update(name)
      .update(String(migration.up))
      .update(String(migration.down ?? ''));
  }
  const tables = path.resolve(import.meta.dirname, '../src/db/tables');
  for (const file of readdirSync(tables).sort())
    hash.update(file).update(readFileSync(path.join(tables, file)));
  const month = new Date().toISOString().slice(0, 7).replace('-', '');
  const name = `farmstead_template_${hash.digest('hex').slice(0, 12)}_${month}`;
  return withAdmin(adminUrl, async (admin) => {
    await admin.query("select pg_advisory_lock(hashtext('farmstead_template'))");
    try {
      const found = await admin.query('select 1 from pg_database where datname = $1', [name]);
      if (found.rowCount) return name;
      const building = `${name}_building_${process.pid}`;
      await admin.query(`drop database if exists ${building}`);
      await admin.query(`create database ${building}`);
      const database = await openDatabase({
        databaseUrl: databaseUrl(adminUrl, building),
        dataDir: '',
        pgPoolSize: 1,
      });
      await database.close();
      await untilUnused(admin, building);
      await admin.query(`alter database ${building} rename to ${name}`);
      return name;
    } finally {
      await admin.query("select pg_advisory_unlock(hashtext('farmstead_template'))");
    }
  });
}

export interface PgDatabaseOptions {
  /** A clone of the migrated template instead of an empty database. */
  migrated?: boolean;
  /**
   * Commits do not wait for the disk (synchronous_commit off): only a crash of the PostgreSQL server could
   * lose one, and no test crashes it (tests of a crashing Farmstead process still see every commit). For
   * tests only: benchmarks measure durable commits.
   */
  asyncCommit?: boolean;
  /**
   * A copy of the seeded template (test/seeded.ts): migrated, with one account and its sample farm, which
   * the result's `account` describes. Implies `migrated`.
   */
  seeded?: boolean;
}

/**
 * A new PostgreSQL database on the server `adminUrl` names (any database there that we may connect to),
 * empty unless `migrated`; returns its URL and a function dropping it.
 */
export async function createPgDatabase(
  adminUrl: string,
  prefix = 'farmstead_test',
  options: PgDatabaseOptions = {},
): Promise<{ url: string; drop(): Promise<void>; accounts?: NewAccount[] }> {
  const name = `${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const migrated = options.migrated || options.seeded ? await migratedTemplate(adminUrl) : null;
  let accounts: NewAccount[] | undefined;
  let template = migrated;
  if (migrated && options.seeded) {
    const seeded = await withAdmin(adminUrl, (admin) =>
      seededPgTemplate(admin, migrated, (db) => databaseUrl(adminUrl, db), untilUnused),
    );
    template = seeded.name;
    accounts = seeded.accounts;
  }
  await withAdmin(adminUrl, async (admin) => {
    for (let attempt = 1; ; attempt++) {
      try {
        await admin.query(`create database ${name}${template ? ` template ${template}` : ''}`);
        if (options.asyncCommit) await admin.query(`alter database ${name} set synchronous_commit = off`);
        return;
      } catch (err) {
        // 55006: the template is in use (a session still closing on it); it goes within moments.
        if ((err as { code?: string }).code !== '55006' || attempt === 20 || !template) throw err;
        await untilUnused(admin, template);
      }
    }
  });
  return {
    url: databaseUrl(adminUrl, name),
    ...(accounts ? { accounts } : {}),
    drop: () =>
      withAdmin(adminUrl, async (admin) => {
        // Forcing the drop while the pool's sockets close makes its clients throw "terminating
        // connection" after the tests: wait for them to go first.
        await untilUnused(admin, name);
        await admin.query(`drop database if exists ${name} with (force)`);
      }),
  };
}

export interface ThrowawayDatabase {
  engine: Engine;
  /** Settings for opening the database in this process (defaults, the database, then `overrides`). */
  config: Readonly<Config>;
  /** The same database as a server process's environment (FARMSTEAD_DATA or DATABASE_URL). */
  env: Record<string, string>;
  drop(): Promise<void>;
  /** With `seeded`: the account the database already holds (keys in plain text, as created). */
  account?: NewAccount;
  /** With `seeded`: the other accounts it holds (test/seeded.ts SEEDED_ACCOUNTS), for a test's next ones. */
  spares?: NewAccount[];
}

/**
 * A fresh database on `engine`: a new temp folder for SQLite, a new database on PostgreSQL (with `migrated`,
 * already migrated; SQLite migrates in moments when opened).
 */
export async function throwawayDatabase(
  engine: Engine,
  options: { pgAdminUrl: string; prefix: string; overrides?: Partial<Config> } & PgDatabaseOptions,
): Promise<ThrowawayDatabase> {
  const { pgAdminUrl, prefix, overrides = {}, ...pgOptions } = options;
  if (engine === 'postgres') {
    const pgDb = await createPgDatabase(pgAdminUrl, prefix, pgOptions);
    return {
      engine,
      config: { ...loadConfig({}), databaseUrl: pgDb.url, ...overrides },
      env: { DATABASE_URL: pgDb.url },
      drop: pgDb.drop,
      ...seededAccounts(pgDb.accounts),
    };
  }
  const dir = mkdtempSync(path.join(tmpdir(), `${prefix.replaceAll('_', '-')}-`));
  const config = { ...loadConfig({}), dataDir: dir, databaseUrl: null, ...overrides };
  const accounts = pgOptions.seeded ? await copySeededSqlite(config) : undefined;
  return {
    engine,
    config,
    env: { FARMSTEAD_DATA: dir },
    drop: async () => rmSync(dir, { recursive: true, force: true }),
    ...seededAccounts(accounts),
  };
}

/** The first seeded account as `account`, the others as `spares`; nothing for a database not seeded. */
function seededAccounts(accounts: NewAccount[] | undefined): { account?: NewAccount; spares?: NewAccount[] } {
  const [account, ...spares] = accounts ?? [];
  return account ? { account, spares } : {};
}
