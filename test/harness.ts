/**
 * The integration harness: builds the real app on a fresh database (SQLite in a temp folder, or a new
 * PostgreSQL database), creates accounts and keys through the real services, and calls the API with
 * Fastify's inject (the whole request path without a socket). Every API test runs on both engines:
 *
 *   forEachEngine('farms', (t) => { test('…', async () => { const acct = await t().account(); … }) });
 *
 * FARMSTEAD_TEST_ENGINES=sqlite (or postgres) narrows the run; FARMSTEAD_TEST_PG_URL names the server.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.ts';
import type { Config } from '../src/config.ts';
import { type Database, type Engine, openDatabase } from '../src/db/database.ts';
import { checkPreparedBuilders } from '../src/db/prepared.ts';
import { createAccount, type NewAccount } from '../src/modules/accounts/service.ts';
import { UsageCounter } from '../src/modules/usage/counter.ts';
import { type RunningWorkers, startWorkers } from '../src/workers/runner.ts';
import { webhookDeliveryJob } from '../src/workers/webhook-delivery.ts';
import { ENGINES, testConfig } from './engines.ts';

// Every in-process test checks that the statements built once (src/db/prepared.ts) do not look at their
// values, only their shape.
checkPreparedBuilders();

export { createPgDatabase, ENGINES, testConfig, waitFor } from './engines.ts';

/**
 * A reply as tests read it. `T` is the body's type: name it from the schema's static type at the call site
 * (`t.request<Farm>(…)`, types in test/replies.ts); unnamed, the body is `unknown`.
 */
export interface Reply<T = unknown> {
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
  /**
   * One account shared by every test on this app that asks for it (created on first use). Creating an
   * account seeds its sample farm, the slowest thing a test does; a test that only needs a farm of its
   * own can make one on this account instead.
   */
  sharedAccount(): Promise<NewAccount>;
  /** Calls the API; `T` names the reply body's type (test/replies.ts), `unknown` when left out. */
  request<T = unknown>(method: string, url: string, options?: RequestOptions): Promise<Reply<T>>;
  /** The clock the app was given, if any (a second app on the same database gets it too). */
  clock?: () => number;
  close(): Promise<void>;
}

/** `clock`: the app's clock (MQTT, console sessions, rate-limit windows); tests that move time pass one. */
export async function startTestApp(
  engine: Engine,
  overrides: Partial<Config> = {},
  clock?: () => number,
): Promise<TestApp> {
  const {
    config,
    cleanup,
    account,
    spares = [],
  } = await testConfig(
    engine,
    { logLevel: 'silent', webhookWorkerInProcess: false, usageFlushMs: 60_000, ...overrides },
    { migrated: true, seeded: true },
  );
  const opened = await openApp(engine, config, 'Test account', clock, account && [account, ...spares]);
  return {
    ...opened,
    async close() {
      await opened.close();
      await cleanup();
    },
  };
}

/**
 * The app on an existing database, with its own connections and usage counter; close() keeps the data.
 * `clock` is the app's clock (MQTT tests move it forward). `seeded`: an account the database already holds
 * (a copy of the seeded template, test/seeded.ts), handed out by the first `account()` or
 * `sharedAccount()` under the name asked for, and `seeded`'s others by the next ones; later ones are created.
 */
export async function openApp(
  engine: Engine,
  config: Readonly<Config>,
  accountPrefix: string,
  clock?: () => number,
  seeded: readonly NewAccount[] = [],
): Promise<TestApp> {
  const database = await openDatabase(config, { onPoolError: () => {} });
  const usage = new UsageCounter(database.db, config.usageFlushMs);
  const app = await buildApp({ config, database, usage, logger: false, ...(clock ? { clock } : {}) });
  await app.ready();
  let n = 0;
  let shared: Promise<NewAccount> | undefined;
  const ready = [...seeded];
  const account = async (name?: string): Promise<NewAccount> => {
    const wanted = name ?? `${accountPrefix} ${++n}`;
    const next = ready.shift();
    if (!next) return createAccount(database.db, { name: wanted });
    const handed = { ...next, name: wanted };
    await database.db
      .updateTable('accounts')
      .set({ name: wanted })
      .where('id', '=', handed.account_id)
      .execute();
    return handed;
  };
  return {
    engine,
    app,
    database,
    usage,
    config,
    account,
    sharedAccount: () => {
      shared ??= account('Shared test account');
      return shared;
    },
    request: (method, url, options) => requestVia(app, method, url, options),
    ...(clock ? { clock } : {}),
    async close() {
      await app.close();
      await usage.close().catch(() => {});
      await database.close();
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
  options: { clock?: () => number } = {},
): void {
  for (const engine of ENGINES) {
    describe(`${name} [${engine}]`, () => {
      let current: TestApp | undefined;
      before(async () => {
        current = await startTestApp(engine, overrides, options.clock);
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

export interface ErrorBody {
  code: string;
  message: string;
  param?: string;
}

/** Asserts an Error object response with the given status and code; returns it for more checks. */
export function expectError(reply: Reply, status: number, code: string): ErrorBody {
  const error = (reply.body as { error?: Partial<ErrorBody> } | null)?.error;
  if (reply.status !== status || error?.code !== code) {
    throw new Error(`expected ${status} ${code}, got ${reply.status} ${JSON.stringify(reply.body)}`);
  }
  if (typeof error.message !== 'string' || error.message.length === 0) {
    throw new Error('error without a message');
  }
  return error as ErrorBody;
}

/**
 * Another process on the same database as `t`: its own connections, usage counter and app, as a restarted
 * server or a second worker would have. close() leaves the database in place.
 */
export function openTestAppOn(t: TestApp, overrides: Partial<Config> = {}): Promise<TestApp> {
  return openApp(t.engine, { ...t.config, ...overrides }, 'Test account B', t.clock);
}

/**
 * The one request helper: the whole request path through Fastify's inject, JSON bodies parsed. The JSON
 * boundary: the parsed body is trusted to be the `T` the caller names.
 */
async function requestVia<T = unknown>(
  app: FastifyInstance,
  method: string,
  url: string,
  options: RequestOptions = {},
): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let payload: string | undefined;
  if (options.rawBody !== undefined) payload = options.rawBody;
  else if (options.body !== undefined) payload = JSON.stringify(options.body);
  if (payload !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
  const res = await app.inject({ method: method as 'GET', url, headers, payload });
  let body: unknown = res.body;
  if (String(res.headers['content-type'] ?? '').includes('json') && res.body) body = JSON.parse(res.body);
  return { status: res.statusCode, body: body as T, headers: res.headers };
}

/**
 * Runs the webhook delivery worker on a test app's database, as the server (or `cli worker`) does. Settings
 * such as the retry schedule or the receiver deadline can be overridden for this worker only.
 */
export function startWebhookWorker(t: TestApp, overrides: Partial<Config> = {}): RunningWorkers {
  const config = { ...t.config, webhookPollMs: 20, ...overrides, webhookWorkerInProcess: true };
  return startWorkers([webhookDeliveryJob], { database: t.database, config, log: t.app.log });
}

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** Epoch ms when the request arrived. */
  at: number;
}

/** What the receiver answers: a status, optionally after a delay. */
export type ReceiverAnswer = number | { status: number; delayMs?: number };

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  /** Changes how later requests are answered; `n` counts requests from 1. */
  answer(fn: (request: ReceivedRequest, n: number) => ReceiverAnswer): void;
  close(): Promise<void>;
}

/** A real HTTP webhook receiver on 127.0.0.1 that records every request (default answer 200). */
export async function startReceiver(
  fn: (request: ReceivedRequest, n: number) => ReceiverAnswer = () => 200,
): Promise<Receiver> {
  let answer = fn;
  const requests: ReceivedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      requests.push(received);
      const result = answer(received, requests.length);
      const { status, delayMs = 0 } = typeof result === 'number' ? { status: result } : result;
      const timer = setTimeout(
        () => res.writeHead(status, { 'content-type': 'text/plain' }).end('ok'),
        delayMs,
      );
      res.on('close', () => clearTimeout(timer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    requests,
    answer: (next) => {
      answer = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const listening = new WeakMap<TestApp, Promise<string>>();

/** The app's base URL, listening on an ephemeral port from the first call on (closed with the app). */
export function baseUrl(t: TestApp): Promise<string> {
  let url = listening.get(t);
  if (!url) {
    url = t.app.listen({ host: '127.0.0.1', port: 0 }).then(() => {
      const address = t.app.server.address();
      if (!address || typeof address !== 'object') throw new Error('the app is not listening on a port');
      return `http://127.0.0.1:${address.port}`;
    });
    listening.set(t, url);
  }
  return url;
}
