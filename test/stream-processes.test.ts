/**
 * The live stream with real server processes:
 *  - two processes on one PostgreSQL database: an event written through process A reaches a stream served by
 *    process B within a second (LISTEN/NOTIFY carries the farm id; B reads the outbox);
 *  - graceful shutdown (issue 18): SIGTERM while a stream and MQTT clients (3.1.1 and 5) are connected ends
 *    the stream cleanly (the response completes, so EventSource reconnects elsewhere), tells the MQTT 5
 *    client the server is shutting down (DISCONNECT 0x8B), closes the MQTT 3.1.1 client's connection without
 *    an error, and exits 0 promptly: open streams and sessions are not waited for.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import mqtt from 'mqtt';
import { createPgDatabase, ENGINES, waitFor } from './harness.ts';
import { createAccountDirect, type Server, startServer, startServers } from './processes.ts';
import { openSse } from './sse.ts';
import { freePort } from './throwaway.ts';

const _run = promisify(execFile);

async function api(server: Server, key: string, method: string, url: string, body?: unknown) {
  const res = await fetch(`${server.url}${url}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  // Tests read members of the reply directly.
  return { status: res.status, body: (await res.json()) as any };
}

describe('live stream across two server processes on one PostgreSQL database', {
  skip: ENGINES.includes('postgres') ? false : 'PostgreSQL not under test',
}, () => {
  let database: { url: string; drop(): Promise<void> };
  let servers: Server[] = [];

  before(async () => {
    database = await createPgDatabase({ migrated: true });
    const env = {
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DATABASE_URL: database.url,
      FARMSTEAD_PG_POOL_SIZE: '3',
      FARMSTEAD_MQTT_PORT: 'off',
      FARMSTEAD_WEBHOOK_WORKER: '0',
      // The safety poll must not be what carries the event: the notification must.
      FARMSTEAD_STREAM_POLL_MS: '60000',
    };
    servers = await startServers([env, env]);
  });

  after(async () => {
    for (const server of servers) await server.stop();
    await database?.drop();
  });

  test('an event written through process A reaches the stream on process B within a second', async () => {
    const [a, b] = servers as [Server, Server];
    const key = await createAccountDirect({ DATABASE_URL: database.url }, 'Two');
    const farm = await api(a, key, 'POST', '/v1/farms', { name: 'Two Process Farm' });
    assert.equal(farm.status, 201);
    const stream = await openSse(`${b.url}/v1/farms/${farm.body.id}/stream`, key);
    try {
      assert.equal(stream.status, 200);
      await waitFor('the opening frame', () => stream.retry !== null);
      for (let i = 0; i < 3; i++) {
        const sent = Date.now();
        const event = await api(a, key, 'POST', `/v1/farms/${farm.body.id}/events`, {
          type: 'note',
          data: { n: i },
        });
        assert.equal(event.status, 201);
        const got = await stream.next('event.created', (e) => e.json?.data?.id === event.body.id);
        const took = Date.now() - sent;
        assert.ok(took < 1_000, `arrived after ${took} ms`);
        assert.equal(got.json.data.data.n, i);
      }
      assert.equal(stream.events.length, 3, 'each event once');
    } finally {
      stream.close();
    }
  });
});

describe('graceful shutdown with open streams and MQTT sessions', () => {
  let root: string;
  before(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'farmstead-shutdown-'));
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  test('SIGTERM: the stream ends cleanly, MQTT clients see a clean close, the process exits 0 promptly', async () => {
    const mqttPort = await freePort();
    const env = {
      FARMSTEAD_DATA: path.join(root, 'data'),
      FARMSTEAD_WEBHOOK_WORKER: '0',
      FARMSTEAD_MQTT_PORT: String(mqttPort),
    };
    const server = await startServer(env);
    const keys = readFileSync(path.join(env.FARMSTEAD_DATA, 'first-start-keys.txt'), 'utf8');
    const key = /live key\s+(\S+)/.exec(keys)?.[1] ?? '';
    const farm = await api(server, key, 'POST', '/v1/farms', { name: 'Shutdown Farm' });
    const device = await api(server, key, 'POST', `/v1/farms/${farm.body.id}/devices`, {
      type: 'house',
      name: 'House 1',
    });
    assert.equal(device.status, 201);
    await waitFor('the MQTT listener', async () => {
      const health = await fetch(`${server.url}/healthz`).then(
        (r) => r.json() as Promise<{ mqtt?: { tcp: string } }>,
        () => null,
      );
      return health?.mqtt?.tcp === 'up';
    });
    const login = { username: device.body.id, password: device.body.device_key, reconnectPeriod: 0 };
    const v5 = await mqtt.connectAsync(`mqtt://127.0.0.1:${mqttPort}`, { ...login, protocolVersion: 5 });
    const v4 = await mqtt.connectAsync(`mqtt://127.0.0.1:${mqttPort}`, { ...login, protocolVersion: 4 });
    const overWs = await mqtt.connectAsync(`${server.url.replace('http', 'ws')}/mqtt`, {
      ...login,
      protocolVersion: 5,
    });
    const clients = [v5, v4, overWs];
    const seen = {
      v5Disconnect: null as number | null,
      wsDisconnect: null as number | null,
      v5Closed: false,
      v4Closed: false,
      wsClosed: false,
      errors: [] as Error[],
    };
    overWs.on('disconnect', (packet) => {
      seen.wsDisconnect = packet.reasonCode ?? 0;
    });
    overWs.on('close', () => {
      seen.wsClosed = true;
    });
    v5.on('disconnect', (packet) => {
      seen.v5Disconnect = packet.reasonCode ?? 0;
    });
    v5.on('close', () => {
      seen.v5Closed = true;
    });
    v4.on('close', () => {
      seen.v4Closed = true;
    });
    for (const client of clients) client.on('error', (err) => seen.errors.push(err));
    try {
      const stream = await openSse(`${server.url}/v1/farms/${farm.body.id}/stream`, key);
      assert.equal(stream.status, 200);
      await waitFor('the opening frame', () => stream.retry !== null);

      const started = Date.now();
      server.child.kill('SIGTERM');
      const [code] = await once(server.child, 'exit');
      const took = Date.now() - started;
      assert.equal(code, 0, server.output.text);
      // Far below any keep-alive or session timeout: nothing open was waited for.
      assert.ok(took < 5_000, `exited after ${took} ms`);

      assert.deepEqual(await stream.ended, { clean: true }, 'the response completed: a clean end, not a cut');
      assert.ok(stream.comments.some((c) => /shutting down/.test(c)));
      await waitFor(
        'the MQTT clients to see the close',
        () => seen.v5Closed && seen.v4Closed && seen.wsClosed,
      );
      assert.equal(seen.v5Disconnect, 0x8b, 'MQTT 5: DISCONNECT with "Server shutting down"');
      assert.equal(seen.wsDisconnect, 0x8b, 'over WebSocket too');
      assert.deepEqual(seen.errors, [], 'no connection errors');
    } finally {
      for (const client of clients) client.end(true);
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
    }
  });
});
