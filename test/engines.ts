/**
 * What tests that start real processes need without the app itself: the engines to run on, a fresh
 * database's config, a throwaway PostgreSQL database and polling. test/harness.ts re-exports them; files that
 * do not build the app in-process import this module instead, so they do not load the whole app (~0.6 s
 * CPU per file).
 */
import type { Config } from '../src/config.ts';
import type { Engine } from '../src/db/database.ts';
import type { NewAccount } from '../src/modules/accounts/service.ts';
import { createPgDatabase as createPgDatabaseOn, throwawayDatabase } from './throwaway.ts';

export const ENGINES: Engine[] = (process.env.FARMSTEAD_TEST_ENGINES ?? 'sqlite,postgres')
  .split(',')
  .map((e) => e.trim())
  .filter((e): e is Engine => e === 'sqlite' || e === 'postgres');

const PG_ADMIN_URL = process.env.FARMSTEAD_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const PG_PREFIX = 'farmstead_test';

/**
 * A new PostgreSQL database on the test server, empty or (`migrated`) migrated; returns its URL and a
 * function dropping it.
 */
export function createPgDatabase(
  options: { migrated?: boolean } = {},
): Promise<{ url: string; drop(): Promise<void> }> {
  return createPgDatabaseOn(PG_ADMIN_URL, PG_PREFIX, { ...options, asyncCommit: true });
}

/**
 * Config for a test app on the given engine, with a fresh database: empty, or with `migrated` already
 * migrated (a PostgreSQL clone of a migrated template: much faster than migrating).
 */
export async function testConfig(
  engine: Engine,
  overrides: Partial<Config> = {},
  options: { migrated?: boolean; seeded?: boolean } = {},
): Promise<{
  config: Readonly<Config>;
  cleanup(): Promise<void>;
  account?: NewAccount;
  spares?: NewAccount[];
}> {
  const pool = engine === 'postgres' ? { pgPoolSize: 5 } : {};
  const made = await throwawayDatabase(engine, {
    pgAdminUrl: PG_ADMIN_URL,
    prefix: PG_PREFIX,
    migrated: options.migrated ?? false,
    seeded: options.seeded ?? false,
    asyncCommit: true,
    // Rate limits are off in tests unless a test turns them on (with small limits) through overrides.
    // Passwords are hashed at the lowest cost (N=2^10, a few ms instead of ~100); people.test.ts checks
    // the production default.
    overrides: { rateLimitEnabled: false, passwordCost: 10, ...pool, ...overrides },
  });
  return {
    config: made.config,
    cleanup: made.drop,
    ...(made.account ? { account: made.account, spares: made.spares ?? [] } : {}),
  };
}

/**
 * A fresh, empty database for a server process on `engine`: its environment (FARMSTEAD_DATA or
 * DATABASE_URL) and a function removing it.
 */
export async function serverDatabase(
  engine: Engine,
): Promise<{ env: Record<string, string>; drop(): Promise<void> }> {
  const made = await throwawayDatabase(engine, {
    pgAdminUrl: PG_ADMIN_URL,
    prefix: PG_PREFIX,
    asyncCommit: true,
  });
  return { env: made.env, drop: made.drop };
}

/** Polls `check` until it returns something truthy (then returns it), failing with `what` after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
