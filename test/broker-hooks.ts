/** The broker hooks' test app (FARMSTEAD_MQTT_BROKER_AUTH=http) on a real port, with its log kept. */
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.ts';
import type { Config } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { loggerOptions } from '../src/http/logging.ts';
import { UsageCounter } from '../src/modules/usage/counter.ts';
import { type ENGINES, testConfig } from './engines.ts';

export const SECRET = 'hook-secret-for-tests-0123456789abcdef';

export interface Running {
  app: FastifyInstance;
  config: Readonly<Config>;
  base: string;
  lines: string[];
  liveKey: string;
  close(): Promise<void>;
}

/** The app on `engine` with the hooks on, listening on a free port, its JSON log lines kept in `lines`. */
export async function startHookApp(
  engine: (typeof ENGINES)[number],
  overrides: Partial<Config> = {},
): Promise<Running> {
  const lines: string[] = [];
  const { config, cleanup, account } = await testConfig(
    engine,
    {
      webhookWorkerInProcess: false,
      mqttPort: null,
      mqttBrokerAuth: 'http',
      mqttHookSecret: SECRET,
      ...overrides,
    },
    { migrated: true, seeded: true },
  );
  if (!account) throw new Error('seeded account missing');
  const running = await startOn(config, account.live_key, lines);
  return {
    ...running,
    async close() {
      await running.close();
      await cleanup();
    },
  };
}

/** Another app (another process's worth: its own pool, bus and memory) on the database of `first`. */
export async function startAnotherApp(first: Running): Promise<Running> {
  return startOn(first.config, first.liveKey, []);
}

async function startOn(config: Readonly<Config>, liveKey: string, lines: string[]): Promise<Running> {
  const database = await openDatabase(config, { onPoolError: () => {} });
  const usage = new UsageCounter(database.db, 60_000);
  const app = await buildApp({
    config,
    database,
    usage,
    logger: loggerOptions(
      { logLevel: 'info', logFormat: 'json' },
      { write: (line) => void lines.push(line) },
    ),
  });
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    app,
    config,
    base,
    lines,
    liveKey,
    async close() {
      await app.close();
      await usage.close().catch(() => {});
      await database.close();
    },
  };
}

export async function api<T>(r: Running, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${r.base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${r.liveKey}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  assert.ok(res.ok, `${method} ${path}: ${res.status} ${await res.clone().text()}`);
  return (await res.json()) as T;
}

/** A farm with two devices: their ids and keys. */
export async function twoDevices(r: Running) {
  const farm = await api<{ id: string }>(r, 'POST', '/v1/farms', { name: 'Hook farm' });
  const make = (name: string) =>
    api<{ id: string; device_key: string }>(r, 'POST', `/v1/farms/${farm.id}/devices`, {
      type: 'house',
      name,
    });
  return { mine: await make('House 1'), theirs: await make('House 2') };
}
