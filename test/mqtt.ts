/**
 * MQTT tests run the real app on a real listener (HTTP with /mqtt, and MQTT over TCP on an ephemeral
 * port) with an injectable clock, and talk to it with the real `mqtt` client package.
 */
import type { AddressInfo } from 'node:net';
import { after, before, describe } from 'node:test';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import type { Config } from '../src/config.ts';
import type { Engine } from '../src/db/database.ts';
import { ENGINES, startTestApp, type TestApp, waitFor } from './harness.ts';

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
  let offset = 0;
  const opened = await startTestApp(engine, overrides, () => Date.now() + offset);
  const { app } = opened;
  await app.listen({ host: '127.0.0.1', port: 0 });
  const mqttPort = await app.mqtt.listenTcp(0, '127.0.0.1');
  if (mqttPort === null) throw new Error('MQTT TCP listener did not start');
  const { port } = app.server.address() as AddressInfo;
  return {
    ...opened,
    httpUrl: `http://127.0.0.1:${port}`,
    mqttPort,
    advance: (ms) => {
      offset += ms;
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
  // Message JSON in tests, checked by assertions.
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
