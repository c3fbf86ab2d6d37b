/**
 * Two real server processes on one PostgreSQL database: a device connected over MQTT to process B gets a
 * command queued through process A's REST API within a second (PostgreSQL LISTEN/NOTIFY is the bus), and
 * its answer over MQTT on B is what A's API then shows. PostgreSQL only.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import mqtt from 'mqtt';
import { createPgDatabase, ENGINES, waitFor } from './harness.ts';
import { baseEnv, createAccountDirect, type Server as ProcessServer, startServers } from './processes.ts';
import { freePort } from './throwaway.ts';

const _run = promisify(execFile);

interface Server extends ProcessServer {
  port: number;
  mqttPort: number;
}

/** Server processes started at once, each with its MQTT TCP listener on a free port, once those are up. */
async function startMqttServers(env: Record<string, string>, count: number): Promise<Server[]> {
  const mqttPorts: number[] = [];
  for (let i = 0; i < count; i++) mqttPorts.push(await freePort());
  const started = await startServers(
    mqttPorts.map((port) => ({ ...env, FARMSTEAD_MQTT_PORT: String(port) })),
  );
  const servers = started.map((server, i) => ({
    ...server,
    port: Number(new URL(server.url).port),
    mqttPort: mqttPorts[i] ?? 0,
  }));
  try {
    for (const server of servers) {
      await waitFor('the MQTT listener', async () => {
        const health = await fetch(`${server.url}/healthz`).then(
          (r) => r.json() as Promise<{ mqtt?: { tcp: string } }>,
          () => null,
        );
        return health?.mqtt?.tcp === 'up';
      });
    }
  } catch (err) {
    await Promise.all(servers.map((s) => s.stop()));
    throw err;
  }
  return servers;
}

describe('MQTT across two server processes on one PostgreSQL database', {
  skip: ENGINES.includes('postgres') ? false : 'PostgreSQL not under test',
}, () => {
  let database: { url: string; drop(): Promise<void> };
  let servers: Server[] = [];

  before(async () => {
    database = await createPgDatabase({ migrated: true });
    const env = {
      ...baseEnv(),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DATABASE_URL: database.url,
      FARMSTEAD_PG_POOL_SIZE: '3',
    };
    servers = await startMqttServers(env, 2);
  });

  after(async () => {
    for (const server of servers) {
      if (server.child.exitCode === null) {
        server.child.kill('SIGTERM');
        await once(server.child, 'exit');
      }
    }
    await database?.drop();
  });

  test('a command queued through process A reaches the device connected to process B within a second', async () => {
    const [a, b] = servers as [Server, Server];
    const liveKey = await createAccountDirect({ DATABASE_URL: database.url }, 'Two');
    const api = async (server: Server, method: string, url: string, body?: unknown) => {
      const res = await fetch(`http://127.0.0.1:${server.port}${url}`, {
        method,
        headers: { authorization: `Bearer ${liveKey}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    const farm = await api(a, 'POST', '/v1/farms', { name: 'Two Process Farm' });
    const device = await api(a, 'POST', `/v1/farms/${farm.body.id}/devices`, {
      type: 'house',
      name: 'House 1',
    });
    assert.equal(device.status, 201);
    const id = device.body.id as string;

    const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${b.mqttPort}`, {
      username: id,
      password: device.body.device_key,
      protocolVersion: 5,
      reconnectPeriod: 0,
    });
    const received: Array<{ topic: string; json: any; at: number }> = [];
    client.on('message', (topic, payload) =>
      received.push({ topic, json: JSON.parse(String(payload)), at: Date.now() }),
    );
    await client.subscribeAsync(
      [`farmstead/devices/${id}/commands`, `farmstead/devices/${id}/commands/+/result/outcome`],
      {
        qos: 1,
      },
    );

    for (let i = 0; i < 3; i++) {
      const sent = Date.now();
      const queued = await api(a, 'POST', `/v1/devices/${id}/commands`, {
        command: 'lights.set',
        params: { mode: 'on' },
      });
      assert.equal(queued.status, 201);
      const pushed = await waitFor('the pushed command', () =>
        received.find((m) => m.topic.endsWith('/commands') && m.json.id === queued.body.id),
      );
      assert.ok(pushed.at - sent < 1_000, `arrived after ${pushed.at - sent} ms`);
      await client.publishAsync(
        `farmstead/devices/${id}/commands/${queued.body.id}/result`,
        JSON.stringify({ status: 'done' }),
        {
          qos: 1,
        },
      );
      await waitFor('the answer outcome', () =>
        received.find((m) => m.topic.endsWith('/outcome') && m.json.id === queued.body.id),
      );
      const history = await api(a, 'GET', `/v1/devices/${id}/commands`);
      assert.equal(history.body.data[0].status, 'done');
      assert.equal(history.body.data[0].delivery_attempts, 1);
    }
    await client.endAsync(true);
  });
});
