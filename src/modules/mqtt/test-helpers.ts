/**
 * MQTT tests run the real app on a real listener (HTTP with /mqtt, and MQTT over TCP on an ephemeral
 * port) with an injectable clock, and talk to it with the real `mqtt` client package.
 */
import type { AddressInfo } from 'node:net';
import { after, before, describe } from 'node:test';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import { ENGINES, type TestApp, testConfig, waitFor } from '../../../test/harness.ts';
import { buildApp } from '../../app.ts';
import type { Config } from '../../config.ts';
import type { Engine } from '../../db/database.ts';
import { openDatabase } from '../../db/database.ts';
import { createAccount } from '../accounts/service.ts';
import { UsageCounter } from '../usage/counter.ts';

export interface MqttTestApp extends TestApp {
  httpUrl: string;
  mqttPort: number;
  /** Moves the MQTT side's clock forward (the HTTP side's services take `now` in tests). */
  advance(ms: number): void;
}

export async function startMqttTestApp(
  engine: Engine,
  overrides: Partial<Config> = {},
): Promise<MqttTestApp> {
  const { config, cleanup } = await testConfig(engine, {
    logLevel: 'silent',
    webhookWorkerInProcess: false,
    usageFlushMs: 60_000,
    ...overrides,
  });
  let offset = 0;
  const database = await openDatabase(config, { onPoolError: () => {} });
  const usage = new UsageCounter(database.db, config.usageFlushMs);
  const app = await buildApp({ config, database, usage, logger: false, clock: () => Date.now() + offset });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const mqttPort = await app.mqtt.listenTcp(0, '127.0.0.1');
  if (mqttPort === null) throw new Error('MQTT TCP listener did not start');
  const { port } = app.server.address() as AddressInfo;
  const httpUrl = `http://127.0.0.1:${port}`;
  let n = 0;
  return {
    engine,
    app,
    database,
    usage,
    config,
    httpUrl,
    mqttPort,
    advance: (ms) => {
      offset += ms;
    },
    account: (name) => createAccount(database.db, { name: name ?? `MQTT account ${++n}` }),
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
      return { status: res.statusCode, body: body as never, headers: res.headers };
    },
    async close() {
      await app.close();
      await usage.close().catch(() => {});
      await database.close();
      await cleanup();
    },
  };
}

/** Like forEachEngine, with the app on real listeners. */
export function forEachMqttEngine(name: string, suite: (t: () => MqttTestApp) => void): void {
  for (const engine of ENGINES) {
    describe(`${name} [${engine}]`, () => {
      let current: MqttTestApp | undefined;
      before(async () => {
        current = await startMqttTestApp(engine);
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

export interface Received {
  topic: string;
  // biome-ignore lint/suspicious/noExplicitAny: message JSON in tests, checked by assertions.
  json: any;
  packet: mqtt.IPublishPacket;
}

/** A device connected with the real client; every message it receives is kept in `received`. */
export interface TestDevice {
  client: MqttClient;
  received: Received[];
  /** Waits for a message on `topic` (after the `skip` first ones) and returns it. */
  next(topic: string, skip?: number): Promise<Received>;
  end(): Promise<void>;
}

export async function connectDevice(
  url: string,
  deviceId: string,
  key: string,
  options: IClientOptions = {},
): Promise<TestDevice> {
  const client = await mqtt.connectAsync(url, {
    username: deviceId,
    password: key,
    reconnectPeriod: 0,
    connectTimeout: 5_000,
    ...options,
  });
  const received: Received[] = [];
  client.on('message', (topic, payload, packet) => {
    let json: unknown = null;
    try {
      json = JSON.parse(payload.toString('utf8'));
    } catch {
      json = payload.toString('utf8');
    }
    received.push({ topic, json, packet });
  });
  return {
    client,
    received,
    next: (topic, skip = 0) =>
      waitFor(`a message on ${topic}`, () => received.filter((m) => m.topic === topic)[skip], 5_000),
    end: () => client.endAsync(true).catch(() => {}),
  };
}

/** Tries to connect and returns the error (the CONNACK refusal), or null when the connection was accepted. */
export async function connectError(url: string, options: IClientOptions): Promise<Error | null> {
  try {
    const client = await mqtt.connectAsync(url, { reconnectPeriod: 0, connectTimeout: 5_000, ...options });
    await client.endAsync(true);
    return null;
  } catch (err) {
    return err as Error;
  }
}
