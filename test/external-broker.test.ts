/**
 * Devices on an external broker (issue 48): a real Mosquitto with its dynamic security plugin, on a free
 * port with a generated configuration (test/mosquitto.ts), and real Farmstead processes as its clients.
 * Three processes on one PostgreSQL database show: reports from many devices stored exactly once in total;
 * a wrong key and another device's topic refused by the broker; a rotated key refused within seconds; a
 * command queued through the API on one process delivered in under a second and its answer recorded;
 * `kill -9` of one process in a burst losing and doubling nothing. One process on SQLite shows the same
 * path on the other engine. Each part has a Mosquitto of its own: the broker keeps a stopped process's
 * session in the shared subscription (that is what makes a restart lose nothing), so another set of
 * processes on the same broker would share messages with the first set's sessions. The last part checks
 * the helper that starts Mosquitto: a port taken between its choice and the start is not a failed test.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { MqttClient } from 'mqtt';
import pg from 'pg';
import { createPgDatabase, ENGINES, waitFor } from './harness.ts';
import { type Mosquitto, mosquittoAvailable, startMosquitto } from './mosquitto.ts';
import { connectDevice, connectError, type TestDevice } from './mqtt.ts';
import {
  baseEnv,
  createAccountDirect,
  freePort,
  type Server,
  startServer,
  startServers,
} from './processes.ts';

type Json = any;
const DEVICES = 12;
const REPORTS_EACH = 10;
const BURST_EACH = 25;
const skipWithoutMosquitto = mosquittoAvailable()
  ? false
  : 'Mosquitto or its dynamic security plugin is not installed';

async function call(server: Server, method: string, url: string, key: string, body?: unknown) {
  const res = await fetch(`${server.url}${url}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as Json };
}

/** Until every server's sessions on the broker are connected (its /healthz says so). */
async function brokerUp(servers: Server[]): Promise<void> {
  await waitFor(
    'every process connected to the broker',
    async () => {
      for (const server of servers) {
        const health = (await (await fetch(`${server.url}/healthz`)).json()) as Json;
        if (health.mqtt?.broker !== 'up') return false;
      }
      return true;
    },
    30_000,
  );
}

/** A device client on the broker, the real `mqtt` package, MQTT 5 (so refusals carry reason codes). */
function device(broker: Mosquitto, id: string, key: string, name = 'test'): Promise<TestDevice> {
  return connectDevice(broker.url, id, key, { protocolVersion: 5, clientId: `${id}-${name}` });
}

const at = (i: number) => new Date(Date.UTC(2026, 9, 1, 6, 0, 0, i)).toISOString();

/** Publishes `count` QoS 1 reports from each device, values `from`…; resolves when the broker took them all. */
async function publishReports(clients: MqttClient[], ids: string[], from: number, count: number) {
  await Promise.all(
    clients.map(async (client, d) => {
      for (let r = 0; r < count; r++) {
        const value = from + r;
        await client.publishAsync(
          `farmstead/devices/${ids[d]}/report`,
          JSON.stringify({ readings: [{ metric: 'climate.nh3_ppm', value, at: at(value) }] }),
          { qos: 1 },
        );
      }
    }),
  );
}

describe('devices on an external Mosquitto, three processes on one PostgreSQL database', {
  skip: skipWithoutMosquitto || (ENGINES.includes('postgres') ? false : 'PostgreSQL not under test'),
}, () => {
  let broker: Mosquitto;
  let database: { url: string; drop(): Promise<void> };
  let sql: pg.Pool;
  let envs: Record<string, string>[] = [];
  let servers: Server[] = [];
  let liveKey = '';
  let farmId = '';
  let devices: { id: string; key: string }[] = [];
  const clients: TestDevice[] = [];

  /** Readings of the report burst's metric: total, and any (device, value) stored more than once. */
  async function stored(): Promise<{ total: number; doubled: number }> {
    // This farm's only: the first start's sample farm has readings of its own.
    const total = await sql.query(
      "select count(*)::int as n from readings where farm_id = $1 and metric = 'climate.nh3_ppm'",
      [farmId],
    );
    const doubled = await sql.query(
      `select count(*)::int as n from (select device_id, value from readings
        where farm_id = $1 and metric = 'climate.nh3_ppm' group by device_id, value having count(*) > 1) d`,
      [farmId],
    );
    return { total: total.rows[0].n, doubled: doubled.rows[0].n };
  }

  before(async () => {
    broker = await startMosquitto();
    database = await createPgDatabase();
    sql = new pg.Pool({ connectionString: database.url, max: 2 });
    envs = [0, 1, 2].map((i) => ({
      ...baseEnv(),
      LOG_LEVEL: 'warn',
      DATABASE_URL: database.url,
      FARMSTEAD_PG_POOL_SIZE: '5',
      FARMSTEAD_MQTT_BROKER: broker.brokerUrl,
      FARMSTEAD_MQTT_BROKER_AUTH: 'dynsec',
      FARMSTEAD_MQTT_CLIENT_ID: `farmstead-test-${i}`,
      FARMSTEAD_USAGE_FLUSH_MS: '3600000',
    }));
    servers = await startServers(envs);
    await brokerUp(servers);
    const account = await createAccountDirect(envs[0] as Record<string, string>, 'Broker farm');
    liveKey = account.live_key;
    const farm = await call(servers[0] as Server, 'POST', '/v1/farms', liveKey, { name: 'Broker Farm' });
    assert.equal(farm.status, 201, JSON.stringify(farm.body));
    farmId = farm.body.id;
    // Made through all three: each process's hook gives its devices their logins on the broker.
    const made = await Promise.all(
      Array.from({ length: DEVICES }, (_, i) =>
        call(servers[i % 3] as Server, 'POST', `/v1/farms/${farm.body.id}/devices`, liveKey, {
          type: 'house',
          name: `House ${i + 1}`,
        }),
      ),
    );
    devices = made.map((d) => {
      assert.equal(d.status, 201, JSON.stringify(d.body));
      return { id: d.body.id, key: d.body.device_key };
    });
    for (const d of devices) clients.push(await device(broker, d.id, d.key));
  });

  after(async () => {
    await Promise.all(clients.map((c) => c.end()));
    for (const server of servers) {
      if (server.child.exitCode === null) {
        server.child.kill('SIGKILL');
        await once(server.child, 'exit');
      }
    }
    await sql?.end();
    await database?.drop();
    await broker?.stop();
  });

  test('reports from many devices are stored exactly once in total, each answered on its result topic', async () => {
    const first = devices[0] as { id: string };
    const answered = (clients[0] as TestDevice).client.subscribeAsync(
      `farmstead/devices/${first.id}/report/result`,
      {
        qos: 1,
      },
    );
    await answered;
    await publishReports(
      clients.map((c) => c.client),
      devices.map((d) => d.id),
      0,
      REPORTS_EACH,
    );
    const total = DEVICES * REPORTS_EACH;
    await waitFor('every report stored', async () => (await stored()).total >= total, 20_000);
    assert.deepEqual(await stored(), { total, doubled: 0 });
    const result = await (clients[0] as TestDevice).next(`farmstead/devices/${first.id}/report/result`);
    assert.equal(result.json.ok, true, JSON.stringify(result.json));
    // The messages went through all three processes: the shared subscription spreads them.
    const last = await sql.query(
      "select count(distinct device_id)::int as n from readings where farm_id = $1 and metric = 'climate.nh3_ppm'",
      [farmId],
    );
    assert.equal(last.rows[0].n, DEVICES);
  });

  test('the broker refuses a wrong key, and another device’s topics', async () => {
    const [a, b] = devices as [{ id: string; key: string }, { id: string; key: string }];
    const wrong = await connectError(broker.url, {
      username: a.id,
      password: b.key,
      protocolVersion: 5,
      clientId: 'wrong-key',
    });
    assert.ok(wrong, 'a wrong key is refused');
    assert.match(
      String((wrong as { code?: number }).code ?? wrong.message),
      /13[45]|Bad User Name or Password|Not authorized/i,
    );

    const before = await stored();
    // A connection of its own: the client ends a connection whose publish was refused.
    const alien = await device(broker, a.id, a.key, 'alien');
    await assert.rejects(
      alien.client.subscribeAsync(`farmstead/devices/${b.id}/commands`, { qos: 1 }),
      /Not authorized/,
      'subscribing to another device’s commands is refused',
    );
    await assert.rejects(
      alien.client.publishAsync(`farmstead/devices/${b.id}/report`, JSON.stringify({ battery: 5 }), {
        qos: 1,
      }),
      /Not authorized/,
      'publishing to another device’s report topic is refused',
    );
    await alien.end();
    const battery = await sql.query('select battery from devices where id = $1', [b.id]);
    assert.equal(battery.rows[0].battery, null);
    assert.equal((await stored()).total, before.total);
  });

  test('a rotated key disconnects the device and is refused within seconds; the new key is accepted', async () => {
    const d = devices[DEVICES - 1] as { id: string; key: string };
    const connected = clients[DEVICES - 1] as TestDevice;
    const closed = new Promise<void>((resolve) => connected.client.once('close', () => resolve()));
    const started = Date.now();
    const rotated = await call(servers[1] as Server, 'POST', `/v1/devices/${d.id}/key`, liveKey);
    assert.equal(rotated.status, 200);
    await closed;
    assert.ok(Date.now() - started < 3_000, 'the old session is kicked at once');
    const refused = await connectError(broker.url, {
      username: d.id,
      password: d.key,
      protocolVersion: 5,
      clientId: 'old-key',
    });
    assert.ok(refused, 'the old key is refused');
    const renewed = await device(broker, d.id, rotated.body.device_key);
    clients[DEVICES - 1] = renewed;
    d.key = rotated.body.device_key;
  });

  test('a command queued on one process reaches the device on the broker in under a second; its answer is recorded', async () => {
    const d = devices[1] as { id: string; key: string };
    const client = clients[1] as TestDevice;
    await client.client.subscribeAsync(`farmstead/devices/${d.id}/commands/#`, { qos: 1 });
    const started = Date.now();
    const queued = await call(servers[2] as Server, 'POST', `/v1/devices/${d.id}/commands`, liveKey, {
      command: 'lights.set',
      params: { mode: 'on' },
    });
    assert.equal(queued.status, 201, JSON.stringify(queued.body));
    const pushed = await client.next(`farmstead/devices/${d.id}/commands`);
    const took = Date.now() - started;
    assert.equal(pushed.json.id, queued.body.id);
    assert.ok(took < 1_000, `delivered in ${took} ms`);
    await client.client.publishAsync(
      `farmstead/devices/${d.id}/commands/${queued.body.id}/result`,
      JSON.stringify({ status: 'done', result: { lights: 'on' } }),
      { qos: 1 },
    );
    const outcome = await client.next(`farmstead/devices/${d.id}/commands/${queued.body.id}/result/outcome`);
    assert.equal(outcome.json.status, 'done');
    const read = await call(servers[0] as Server, 'GET', `/v1/devices/${d.id}/commands`, liveKey);
    assert.equal(read.body.data[0].status, 'done');
    assert.deepEqual(read.body.data[0].result, { lights: 'on' });
  });

  test('kill -9 of one process in a burst loses and doubles nothing', async () => {
    const before = await stored();
    const burst = publishReports(
      clients.map((c) => c.client),
      devices.map((d) => d.id),
      1_000,
      BURST_EACH,
    );
    const expected = before.total + DEVICES * BURST_EACH;
    // Killed once the burst is well under way, with messages in its hands.
    await waitFor('the burst under way', async () => (await stored()).total >= before.total + 60, 20_000);
    const victim = servers[2] as Server;
    victim.child.kill('SIGKILL');
    await once(victim.child, 'exit');
    await burst;
    // Its sessions kept what the broker gave them: the same client ids take them back.
    const restarted = await startServer(envs[2] as Record<string, string>);
    servers[2] = restarted;
    await waitFor('every report of the burst stored', async () => (await stored()).total >= expected, 60_000);
    assert.deepEqual(await stored(), { total: expected, doubled: 0 });
  });
});

describe('devices on an external Mosquitto, one process on SQLite', {
  skip: skipWithoutMosquitto || (ENGINES.includes('sqlite') ? false : 'SQLite not under test'),
}, () => {
  let broker: Mosquitto;
  let server: Server;
  let dataDir = '';
  let client: TestDevice | undefined;

  before(async () => {
    broker = await startMosquitto();
    dataDir = mkdtempSync(path.join(tmpdir(), 'farmstead-broker-sqlite-'));
  });

  after(async () => {
    await client?.end();
    await server?.stop();
    await broker?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  test('a device reports through the broker once per message, and gets its command and answers it', async () => {
    const env = {
      ...baseEnv(),
      LOG_LEVEL: 'warn',
      FARMSTEAD_DATA: dataDir,
      FARMSTEAD_MQTT_BROKER: broker.brokerUrl,
      FARMSTEAD_MQTT_BROKER_AUTH: 'dynsec',
      FARMSTEAD_MQTT_CLIENT_ID: 'farmstead-sqlite',
    };
    const { live_key: liveKey } = await createAccountDirect(env, 'Solo farm');
    server = await startServer(env);
    await brokerUp([server]);
    const farm = await call(server, 'POST', '/v1/farms', liveKey, { name: 'Solo Farm' });
    const made = await call(server, 'POST', `/v1/farms/${farm.body.id}/devices`, liveKey, {
      type: 'house',
      name: 'House',
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const id = made.body.id as string;
    client = await device(broker, id, made.body.device_key);
    await client.client.subscribeAsync(`farmstead/devices/${id}/#`, { qos: 1 });
    await publishReports([client.client], [id], 0, REPORTS_EACH);
    const readings = async () =>
      (await call(server, 'GET', `/v1/devices/${id}/readings?metric=climate.nh3_ppm&limit=100`, liveKey)).body
        .data as unknown[];
    await waitFor('the reports stored', async () => (await readings()).length >= REPORTS_EACH, 20_000);
    assert.equal((await readings()).length, REPORTS_EACH);
    const result = await client.next(`farmstead/devices/${id}/report/result`);
    assert.equal(result.json.ok, true, JSON.stringify(result.json));
    // Its own reports do not come back to it (its role does not let it receive them).
    assert.equal(client.received.filter((m) => m.topic.endsWith('/report')).length, 0);

    const queued = await call(server, 'POST', `/v1/devices/${id}/commands`, liveKey, {
      command: 'move.stop',
    });
    assert.equal(queued.status, 201, JSON.stringify(queued.body));
    const pushed = await client.next(`farmstead/devices/${id}/commands`);
    assert.equal(pushed.json.id, queued.body.id);
    await client.client.publishAsync(
      `farmstead/devices/${id}/commands/${queued.body.id}/result`,
      JSON.stringify({ status: 'failed', result: { reason: 'jammed' } }),
      { qos: 1 },
    );
    const outcome = await client.next(`farmstead/devices/${id}/commands/${queued.body.id}/result/outcome`);
    assert.equal(outcome.json.status, 'failed');
  });
});

describe('devices on an external Mosquitto that goes away and comes back, one process on SQLite', {
  skip: skipWithoutMosquitto || (ENGINES.includes('sqlite') ? false : 'SQLite not under test'),
}, () => {
  let broker: Mosquitto;
  let server: Server;
  let dataDir = '';
  const clients: TestDevice[] = [];
  let env: Record<string, string> = {};
  let liveKey = '';
  let a = { id: '', key: '' };

  before(async () => {
    // As the reference config: persistent sessions saved across a restart.
    broker = await startMosquitto({ persistence: true });
    dataDir = mkdtempSync(path.join(tmpdir(), 'farmstead-broker-restart-'));
  });

  after(async () => {
    await Promise.all(clients.map((c) => c.end()));
    await server?.stop();
    await broker?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  test('a restart: reports flow again; while it is down a key is 503 and nothing changes; no device gets another’s commands', async () => {
    env = {
      ...baseEnv(),
      LOG_LEVEL: 'warn',
      FARMSTEAD_DATA: dataDir,
      FARMSTEAD_MQTT_BROKER: broker.brokerUrl,
      FARMSTEAD_MQTT_BROKER_AUTH: 'dynsec',
      FARMSTEAD_MQTT_CLIENT_ID: 'farmstead-restart',
    };
    liveKey = (await createAccountDirect(env, 'Restart farm')).live_key;
    server = await startServer(env);
    await brokerUp([server]);
    const farm = (await call(server, 'POST', '/v1/farms', liveKey, { name: 'Restart Farm' })).body;
    const make = async (name: string) => {
      const made = await call(server, 'POST', `/v1/farms/${farm.id}/devices`, liveKey, {
        type: 'house',
        name,
      });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      return { id: made.body.id as string, key: made.body.device_key as string };
    };
    a = await make('House A');
    const stored = async () =>
      (await call(server, 'GET', `/v1/devices/${a.id}/readings?metric=climate.nh3_ppm&limit=100`, liveKey))
        .body.data.length as number;
    const report = async (value: number) => {
      const client = await device(broker, a.id, a.key, `r${value}`);
      clients.push(client);
      await publishReports([client.client], [a.id], value, 1);
      await client.end();
    };
    await report(1);
    await waitFor('the first report stored', async () => (await stored()) === 1, 10_000);

    // The broker restarts from its saved state: Farmstead's sessions come back, and subscribe again.
    await broker.restart();
    await brokerUp([server]);
    await report(2);
    await waitFor('the report after the restart stored', async () => (await stored()) === 2, 10_000);

    // Down: a key the broker cannot be given is refused at once, and nothing changes.
    await broker.kill();
    await waitFor(
      'the health check to see the broker gone',
      async () => ((await (await fetch(`${server.url}/healthz`)).json()) as Json).mqtt?.broker === 'down',
      10_000,
    );
    const before = (await call(server, 'GET', `/v1/farms/${farm.id}/devices?limit=100`, liveKey)).body.data
      .length;
    const refused = await call(server, 'POST', `/v1/farms/${farm.id}/devices`, liveKey, {
      type: 'house',
      name: 'Later',
    });
    assert.equal(refused.status, 503, JSON.stringify(refused.body));
    assert.equal(refused.body.error.code, 'unavailable');
    const rotate = await call(server, 'POST', `/v1/devices/${a.id}/key`, liveKey);
    assert.equal(rotate.status, 503, JSON.stringify(rotate.body));
    assert.equal(
      (await call(server, 'GET', `/v1/farms/${farm.id}/devices?limit=100`, liveKey)).body.data.length,
      before,
      'no device made',
    );
    assert.equal(server.child.exitCode, null, 'the process lives on');
    await broker.restart();
    await brokerUp([server]);
    // The key was not changed on either side: the old one still logs in.
    await report(3);
    await waitFor('the old key still reports', async () => (await stored()) === 3, 10_000);

    // Another device that connects with A's client id takes over A's session, but gets none of its commands.
    const b = await make('House B');
    const session = {
      protocolVersion: 5,
      clientId: a.id,
      clean: false,
      properties: { sessionExpiryInterval: 3600 },
    } as const;
    const own = await connectDevice(broker.url, a.id, a.key, session);
    clients.push(own);
    await own.client.subscribeAsync(`farmstead/devices/${a.id}/commands`, { qos: 1 });
    const thief = await connectDevice(broker.url, b.id, b.key, session);
    clients.push(thief);
    const queued = await call(server, 'POST', `/v1/devices/${a.id}/commands`, liveKey, {
      command: 'move.stop',
    });
    assert.equal(queued.status, 201, JSON.stringify(queued.body));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    assert.deepEqual(
      thief.received.map((m) => m.topic),
      [],
      'B received nothing of A',
    );
  });

  test('fewer consumers after a restart: the sessions left behind hand over what they held, and end', async () => {
    assert.ok(a.id, 'the test before made the device');
    // Four consumer sessions (the default) stay on the broker while the process is stopped…
    await server.stop();
    const client = await device(broker, a.id, a.key, 'held');
    clients.push(client);
    await publishReports([client.client], [a.id], 100, 20);
    // …and one consumer after: -0 to -3 are no longer this process's, and hold the 20 reports.
    server = await startServer({ ...env, FARMSTEAD_MQTT_BROKER_CONSUMERS: '1' });
    await brokerUp([server]);
    const held = async () =>
      (
        (await call(server, 'GET', `/v1/devices/${a.id}/readings?metric=climate.nh3_ppm&limit=100`, liveKey))
          .body.data as Array<{ value: number }>
      ).filter((r) => r.value >= 100).length;
    await waitFor('the reports the old sessions held, stored', async () => (await held()) === 20, 15_000);
    await publishReports([client.client], [a.id], 200, 5);
    await waitFor('new reports stored, none held back any more', async () => (await held()) === 25, 10_000);
  });
});

describe('the tests’ Mosquitto', { skip: skipWithoutMosquitto }, () => {
  test('started on a port another process took after it was chosen, it starts again on another', async () => {
    const taken = net.createServer().listen(0, '127.0.0.1');
    await once(taken, 'listening');
    const takenPort = (taken.address() as AddressInfo).port;
    const chosen: number[] = [];
    let broker: Mosquitto | undefined;
    try {
      broker = await startMosquitto({
        port: async () => {
          const port = chosen.length === 0 ? takenPort : await freePort();
          chosen.push(port);
          return port;
        },
      });
      assert.equal(chosen.length, 2);
      assert.equal(broker.port, chosen[1]);
      assert.notEqual(broker.port, takenPort);
    } finally {
      await broker?.stop();
      taken.close();
    }
  });
});
