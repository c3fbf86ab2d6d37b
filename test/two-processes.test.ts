/**
 * Two real server processes on one PostgreSQL database (PostgreSQL LISTEN/NOTIFY is the bus between them),
 * started once for the whole file (a start costs more CPU than all these tests together):
 *  - keys are cached briefly in each process (src/calls/key-cache.ts); revocation must still reach every
 *    process within a second: a key used (and so cached) in process B is revoked through process A, and B
 *    must refuse it within 1 s; the same for a device key rotated through A and a farm deleted through A.
 *    (SQLite is one process's embedded database: its in-process revocation is covered by the keys and
 *    devices tests);
 *  - an event written through process A reaches a stream served by process B within a second (the
 *    notification carries the farm id; B reads the outbox);
 *  - a device connected over MQTT to process B gets a command queued through process A's REST API within a
 *    second, and its answer over MQTT on B is what A's API then shows.
 * Then graceful shutdown (issue 18), on a server of its own (SQLite): SIGTERM while a stream and MQTT clients
 * (3.1.1 and 5) are connected ends the stream cleanly (the response completes, so EventSource reconnects
 * elsewhere), tells the MQTT 5 client the server is shutting down (DISCONNECT 0x8B), closes the MQTT 3.1.1
 * client's connection without an error, and exits 0 promptly: open streams and sessions are not waited for.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import mqtt from 'mqtt';
import { createPgDatabase, ENGINES, waitFor } from './engines.ts';
import { createAccountDirect, type Server as ProcessServer, startServer, startServers } from './processes.ts';
import { openSse } from './sse.ts';
import { freePort } from './throwaway.ts';

const WITHIN_MS = 1000;

interface Server extends ProcessServer {
  mqttPort: number;
}

async function call(
  server: ProcessServer,
  method: string,
  url: string,
  key: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, string> }> {
  const res = await fetch(`${server.url}${url}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

async function api(server: ProcessServer, key: string, method: string, url: string, body?: unknown) {
  const res = await fetch(`${server.url}${url}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  // Tests read members of the reply directly.
  return { status: res.status, body: (await res.json()) as any };
}

/** Milliseconds from `start` until `request` answers 401 (polling), or fails after 3 s. */
async function refusedAfter(start: number, request: () => Promise<{ status: number }>): Promise<number> {
  for (;;) {
    const res = await request();
    const elapsed = performance.now() - start;
    if (res.status === 401) return elapsed;
    assert.equal(res.status, 200);
    if (elapsed > 3000) assert.fail(`still accepted ${Math.round(elapsed)} ms after the change`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Server processes started at once, each with its MQTT TCP listener on a free port, once those are up. */
async function startMqttServers(env: Record<string, string>, count: number): Promise<Server[]> {
  const mqttPorts: number[] = [];
  for (let i = 0; i < count; i++) mqttPorts.push(await freePort());
  const started = await startServers(
    mqttPorts.map((port) => ({ ...env, FARMSTEAD_MQTT_PORT: String(port) })),
  );
  const servers = started.map((server, i) => ({ ...server, mqttPort: mqttPorts[i] ?? 0 }));
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

describe('two server processes on one PostgreSQL database', {
  skip: ENGINES.includes('postgres') ? false : 'PostgreSQL not under test',
}, () => {
  let database: { url: string; drop(): Promise<void> };
  let dataDir = '';
  let servers: Server[] = [];
  let a: Server;
  let b: Server;
  let liveKey = '';
  let farmId = '';

  before(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'farmstead-two-processes-'));
    database = await createPgDatabase({ migrated: true });
    const env = {
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DATABASE_URL: database.url,
      FARMSTEAD_DATA: dataDir,
      FARMSTEAD_PG_POOL_SIZE: '3',
      FARMSTEAD_WEBHOOK_WORKER: '0',
      // The stream's safety poll must not be what carries an event: the notification must.
      FARMSTEAD_STREAM_POLL_MS: '60000',
    };
    // The account first: servers that find one seed no first account of their own, and start sooner.
    liveKey = (await createAccountDirect(env, 'Ridge')).live_key;
    servers = await startMqttServers(env, 2);
    [a, b] = servers as [Server, Server];
    const farm = await call(a, 'POST', '/v1/farms', liveKey, { name: 'Ridge Farm' });
    assert.equal(farm.status, 201);
    farmId = farm.body.id as string;
  });

  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    servers = [];
    await database?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  test('an API key revoked through A is refused by B within 1 s', async () => {
    const extra = await call(a, 'POST', '/v1/keys', liveKey, { name: 'Crew tablet' });
    assert.equal(extra.status, 201);
    const key = extra.body.key as string;
    // B has just authenticated it: it is in B's cache.
    for (let i = 0; i < 3; i++) assert.equal((await call(b, 'GET', '/v1/me', key)).status, 200);
    const start = performance.now();
    assert.equal((await call(a, 'DELETE', `/v1/keys/${extra.body.id}`, liveKey)).status, 200);
    const elapsed = await refusedAfter(start, () => call(b, 'GET', '/v1/me', key));
    assert.ok(elapsed < WITHIN_MS, `refused after ${Math.round(elapsed)} ms`);
    assert.equal((await call(b, 'GET', '/v1/me', key)).status, 401, 'and stays refused');
  });

  test('a device key rotated through A is refused by B within 1 s, and the new key works there', async () => {
    const device = await call(a, 'POST', `/v1/farms/${farmId}/devices`, liveKey, {
      type: 'house',
      name: 'Trough 1',
    });
    assert.equal(device.status, 201);
    const oldKey = device.body.device_key as string;
    for (let i = 0; i < 3; i++) assert.equal((await call(b, 'POST', '/v1/ingest', oldKey, {})).status, 200);
    const start = performance.now();
    const rotated = await call(a, 'POST', `/v1/devices/${device.body.id}/key`, liveKey);
    assert.equal(rotated.status, 200);
    const elapsed = await refusedAfter(start, () => call(b, 'POST', '/v1/ingest', oldKey, {}));
    assert.ok(elapsed < WITHIN_MS, `refused after ${Math.round(elapsed)} ms`);
    assert.equal((await call(b, 'POST', '/v1/ingest', rotated.body.device_key as string, {})).status, 200);
  });

  test('deleting a farm stops its device keys in B within 1 s', async () => {
    const farm = await call(a, 'POST', '/v1/farms', liveKey, { name: 'Creek Farm' });
    const device = await call(a, 'POST', `/v1/farms/${farm.body.id}/devices`, liveKey, {
      type: 'house',
      name: 'Gate',
    });
    const key = device.body.device_key as string;
    assert.equal((await call(b, 'POST', '/v1/ingest', key, {})).status, 200);
    const start = performance.now();
    assert.equal((await call(a, 'DELETE', `/v1/farms/${farm.body.id}`, liveKey)).status, 200);
    const elapsed = await refusedAfter(start, () => call(b, 'POST', '/v1/ingest', key, {}));
    assert.ok(elapsed < WITHIN_MS, `refused after ${Math.round(elapsed)} ms`);
  });

  test('a rate rule on A sees a reading the device stored through B in between', async () => {
    // Process A keeps the device's recent readings between its reports (alerts/recent-readings.ts); a
    // report through B must make A read them again: B's spike is what minute 3's fall is measured from.
    const rule = await call(a, 'POST', `/v1/farms/${farmId}/rules`, liveKey, {
      name: 'silo.drain',
      kind: 'rate',
      metric: 'silo.level',
      change: -10,
      window_s: 600,
    });
    assert.equal(rule.status, 201, JSON.stringify(rule.body));
    const device = await call(a, 'POST', `/v1/farms/${farmId}/devices`, liveKey, {
      type: 'other',
      name: 'Silo',
    });
    assert.equal(device.status, 201);
    const deviceKey = device.body.device_key as string;
    const t0 = Date.now() - 3_600_000;
    const report = async (server: Server, minute: number, value: number) => {
      const at = new Date(t0 + minute * 60_000).toISOString();
      const res = await call(server, 'POST', '/v1/ingest', deviceKey, {
        readings: [{ metric: 'silo.level', value, at }],
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
    };
    await report(a, 0, 100);
    await report(a, 1, 100);
    await report(b, 2, 130);
    await report(a, 3, 119); // 11 under minute 2's 130; 19 over A's own last 100
    const alerts = await api(a, liveKey, 'GET', `/v1/farms/${farmId}/alerts?status=open`);
    assert.equal(alerts.status, 200);
    const drain = (alerts.body.data as Array<{ rule: string; reason: string }>).filter(
      (x) => x.rule === 'silo.drain',
    );
    assert.equal(drain.length, 1, JSON.stringify(alerts.body.data));
    assert.match(drain[0]?.reason ?? '', /fell 11 within 10 min/);
  });

  test('a list A has just answered shows an animal added through B at once (the read cache)', async () => {
    const path = `/v1/farms/${farmId}/animals?limit=50`;
    const names = async () => {
      const res = await api(a, liveKey, 'GET', path);
      assert.equal(res.status, 200);
      return (res.body.data as Array<{ name: string }>).map((x) => x.name);
    };
    const before = await names();
    assert.deepEqual(await names(), before, 'asked twice');
    const added = await api(b, liveKey, 'POST', `/v1/farms/${farmId}/animals`, {
      species: 'cattle',
      name: 'Through B',
    });
    assert.equal(added.status, 201);
    assert.deepEqual(await names(), ['Through B', ...before], 'the very next read, without waiting');
  });

  test('an event written through process A reaches the stream on process B within a second', async () => {
    const farm = await api(a, liveKey, 'POST', '/v1/farms', { name: 'Two Process Farm' });
    assert.equal(farm.status, 201);
    const stream = await openSse(`${b.url}/v1/farms/${farm.body.id}/stream`, liveKey);
    try {
      assert.equal(stream.status, 200);
      await waitFor('the opening frame', () => stream.retry !== null);
      for (let i = 0; i < 3; i++) {
        const sent = Date.now();
        const event = await api(a, liveKey, 'POST', `/v1/farms/${farm.body.id}/events`, {
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

  test('a command queued through process A reaches the device connected to process B within a second', async () => {
    const device = await api(a, liveKey, 'POST', `/v1/farms/${farmId}/devices`, {
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
      const queued = await api(a, liveKey, 'POST', `/v1/devices/${id}/commands`, {
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
      const history = await api(a, liveKey, 'GET', `/v1/devices/${id}/commands`);
      assert.equal(history.body.data[0].status, 'done');
      assert.equal(history.body.data[0].delivery_attempts, 1);
    }
    await client.endAsync(true);
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
