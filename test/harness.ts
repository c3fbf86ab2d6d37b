/**
 * The integration harness: builds the real app on a fresh database (SQLite in a temp folder, or a new
 * PostgreSQL database), creates accounts and keys through the real services, and calls the API with
 * Fastify's inject (the whole request path without a socket). Every API test runs on both engines:
 *
 *   forEachEngine('farms', (t) => { test('…', async () => { const acct = await t().account(); … }) });
 *
 * FARMSTEAD_TEST_ENGINES=sqlite (or postgres) narrows the run; FARMSTEAD_TEST_PG_URL names the server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { buildApp } from '../src/app.ts';
import { type Config, loadConfig } from '../src/config.ts';
import { type Database, type Engine, openDatabase } from '../src/db/database.ts';
import { createAccount, type NewAccount } from '../src/modules/accounts/service.ts';
import { UsageCounter } from '../src/modules/usage/counter.ts';

export const ENGINES: Engine[] = (process.env.FARMSTEAD_TEST_ENGINES ?? 'sqlite,postgres')
  .split(',')
  .map((e) => e.trim())
  .filter((e): e is Engine => e === 'sqlite' || e === 'postgres');

const PG_ADMIN_URL = process.env.FARMSTEAD_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface Reply<T = any> {
  status: number;
  body: T;
  headers: Record<string, string | string[] | number | undefined>;
}

export interface RequestOptions {
  key?: string | null;
  body?: unknown;
  headers?: Record<string, string>;
  /** Send this exact text as the body (for malformed JSON tests). */
  rawBody?: string;
}

export interface TestApp {
  engine: Engine;
  app: FastifyInstance;
  database: Database;
  usage: UsageCounter;
  config: Readonly<Config>;
  /** A fresh account with its live key, test key and sample farm. */
  account(name?: string): Promise<NewAccount>;
  request<T = any>(method: string, url: string, options?: RequestOptions): Promise<Reply<T>>;
  close(): Promise<void>;
}

/** A new, empty PostgreSQL database for one test app; returns its URL and a function dropping it. */
export async function createPgDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `farmstead_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: PG_ADMIN_URL });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

/** Config for a test app on the given engine, with a fresh database. */
export async function testConfig(
  engine: Engine,
  overrides: Partial<Config> = {},
): Promise<{ config: Readonly<Config>; cleanup(): Promise<void> }> {
  if (engine === 'postgres') {
    const pgDb = await createPgDatabase();
    const config = { ...loadConfig({}), databaseUrl: pgDb.url, pgPoolSize: 5, ...overrides };
    return { config, cleanup: pgDb.drop };
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'farmstead-test-'));
  const config = { ...loadConfig({}), dataDir: dir, databaseUrl: null, ...overrides };
  return { config, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
}

export async function startTestApp(engine: Engine, overrides: Partial<Config> = {}): Promise<TestApp> {
  const { config, cleanup } = await testConfig(engine, {
    logLevel: 'silent',
    webhookWorkerInProcess: false,
    usageFlushMs: 60_000,
    ...overrides,
  });
  const database = await openDatabase(config);
  const usage = new UsageCounter(database.db, config.usageFlushMs);
  const app = await buildApp({ config, database, usage, logger: false });
  await app.ready();
  let n = 0;
  return {
    engine,
    app,
    database,
    usage,
    config,
    account: (name) => createAccount(database.db, { name: name ?? `Test account ${++n}` }),
    async request(method, url, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      if (options.key) headers.authorization = `Bearer ${options.key}`;
      let payload: string | undefined;
      if (options.rawBody !== undefined) payload = options.rawBody;
      else if (options.body !== undefined) payload = JSON.stringify(options.body);
      if (payload !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
      const res = await app.inject({ method: method as 'GET', url, headers, payload });
      let body: unknown = res.body;
      if (String(res.headers['content-type'] ?? '').includes('json') && res.body) body = JSON.parse(res.body);
      return { status: res.statusCode, body: body as any, headers: res.headers };
    },
    async close() {
      await app.close();
      await usage.close().catch(() => {});
      await database.close();
      await cleanup();
    },
  };
}

/**
 * Runs a suite once per engine with one app per engine (fresh database); tests create their own
 * accounts, so they never see each other's records.
 */
export function forEachEngine(
  name: string,
  suite: (t: () => TestApp) => void,
  overrides: Partial<Config> = {},
): void {
  for (const engine of ENGINES) {
    describe(`${name} [${engine}]`, () => {
      let current: TestApp | undefined;
      before(async () => {
        current = await startTestApp(engine, overrides);
      });
      after(async () => {
        await current?.close();
      });
      suite(() => {
        if (!current) throw new Error('test app not started');
        return current;
      });
    });
  }
}

/** Asserts an Error object response with the given status and code; returns it for more checks. */
export function expectError(
  reply: Reply,
  status: number,
  code: string,
): { code: string; message: string; param?: string } {
  if (reply.status !== status || reply.body?.error?.code !== code) {
    throw new Error(`expected ${status} ${code}, got ${reply.status} ${JSON.stringify(reply.body)}`);
  }
  if (typeof reply.body.error.message !== 'string' || reply.body.error.message.length === 0) {
    throw new Error('error without a message');
  }
  return reply.body.error;
}
