/**
 * Several `npm start` processes on one PostgreSQL database behave as one service. Three real server
 * processes (src/main.ts serve) share a fresh database; the test drives concurrent ingest, commands,
 * key changes and webhooks through all three at once, then checks the invariants in the database and
 * at a real webhook receiver on 127.0.0.1:
 *  - one first account, however many processes start on an empty database;
 *  - one active alert per farm, rule and subject;
 *  - each command handed to its device exactly once;
 *  - a revoked API key or a rotated device key refused by every process at once;
 *  - each webhook event answered 2xx by the receiver exactly once (with failed first attempts retried,
 *    by whichever process claims them);
 *  - usage counts equal to the requests made, per surface, once the processes flush them on SIGTERM.
 * PostgreSQL only: SQLite is one process's embedded database.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import pg from 'pg';
import { createPgDatabase, ENGINES, type Receiver, startReceiver, waitFor } from './harness.ts';
import { baseEnv } from './processes.ts';
import { freePort } from './throwaway.ts';

const MAIN = path.resolve(import.meta.dirname, '../src/main.ts');
const run = promisify(execFile);
const PROCESSES = 3;
const DEVICES = 9;
const COMMANDS_PER_DEVICE = 4;

interface Server {
  port: number;
  child: ChildProcess;
  output: { text: string };
}

type Json = any;

async function startServer(env: Record<string, string>): Promise<Server> {
  const port = await freePort();
  const child = spawn(process.execPath, [MAIN, 'serve'], {
    env: { ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { text: '' };
  child.stdout?.on('data', (d) => {
    output.text += String(d);
  });
  child.stderr?.on('data', (d) => {
    output.text += String(d);
  });
  await waitFor(
    `server on port ${port}`,
    async () => {
      if (child.exitCode !== null) throw new Error(`server exited early: ${output.text}`);
      return fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
    },
    60_000,
  );
  return { port, child, output };
}

describe('three server processes on one PostgreSQL database', {
  skip: ENGINES.includes('postgres') ? false : 'PostgreSQL not under test',
}, () => {
  let database: { url: string; drop(): Promise<void> };
  let env: Record<string, string>;
  let dataDir = '';
  let servers: Server[] = [];
  let receiver: Receiver;
  let sql: pg.Pool;
  /** Requests that passed authentication, per usage surface: what the usage counts must add up to. */
  const made = { api: 0, ingest: 0 };
  /** Webhook event id → how many of its deliveries the receiver answered 2xx. */
  const succeeded = new Map<string, number>();
  const firstSeen = new Set<string>();
  let accountId = '';
  let liveKey = '';
  let farmId = '';
  let devices: { id: string; key: string }[] = [];

  /** Calls server `i % 3` (so consecutive calls spread over all three), counting authenticated calls. */
  async function call(
    i: number,
    method: string,
    url: string,
    key: string,
    body?: unknown,
  ): Promise<{ status: number; body: Json }> {
    const server = servers[i % PROCESSES] as Server;
    const res = await fetch(`http://127.0.0.1:${server.port}${url}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await res.json().catch(() => null);
    if (res.status !== 401) made[key.startsWith('rd_') ? 'ingest' : 'api']++;
    return { status: res.status, body: json };
  }

  before(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'farmstead-multi-'));
    database = await createPgDatabase();
    sql = new pg.Pool({ connectionString: database.url, max: 2 });
    // Every fourth event's first delivery fails, so retries happen, from whichever process claims them.
    receiver = await startReceiver((request) => {
      const id = String((JSON.parse(request.body) as { id: string }).id);
      const first = !firstSeen.has(id);
      firstSeen.add(id);
      if (first && firstSeen.size % 4 === 0) return 503;
      succeeded.set(id, (succeeded.get(id) ?? 0) + 1);
      return 200;
    });
    env = {
      ...baseEnv(),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DATABASE_URL: database.url,
      // Where the first start's keys file goes.
      FARMSTEAD_DATA: dataDir,
      FARMSTEAD_PG_POOL_SIZE: '5',
      FARMSTEAD_WEBHOOK_ALLOW_PRIVATE: '1',
      FARMSTEAD_WEBHOOK_RETRY_SCHEDULE_MS: '200,400,800,1600',
      FARMSTEAD_WEBHOOK_POLL_MS: '50',
      // Counts stay in memory for the whole test: only the flush on SIGTERM writes them.
      FARMSTEAD_USAGE_FLUSH_MS: '3600000',
    };
    servers = await Promise.all(Array.from({ length: PROCESSES }, () => startServer(env)));
  });

  after(async () => {
    for (const server of servers) {
      if (server.child.exitCode === null) {
        server.child.kill('SIGKILL');
        await once(server.child, 'exit');
      }
    }
    await receiver?.close();
    await sql?.end();
    await database?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  test('started together on an empty database, they migrate once and create one first account', async () => {
    const printed = servers.filter((s) => / are in \S+first-start-keys\.txt/.test(s.output.text));
    assert.equal(printed.length, 1, 'exactly one process writes the first keys');
    const accounts = await sql.query('select count(*)::int as n from accounts');
    assert.equal(accounts.rows[0].n, 1);
    const migrations = await sql.query('select count(*)::int as n from kysely_migration');
    assert.ok(migrations.rows[0].n >= 6);

    const { stdout } = await run(
      process.execPath,
      [MAIN, 'accounts', 'create', '--name', 'Ridge', '--json'],
      {
        env,
      },
    );
    const account = JSON.parse(stdout.trim());
    accountId = account.account_id;
    liveKey = account.live_key;
    const farm = await call(0, 'POST', '/v1/farms', liveKey, { name: 'Ridge Farm' });
    assert.equal(farm.status, 201);
    farmId = farm.body.id;
    const hook = await call(1, 'POST', `/v1/farms/${farmId}/webhooks`, liveKey, {
      url: receiver.url,
      events: ['*'],
    });
    assert.equal(hook.status, 201, JSON.stringify(hook.body));
    const created = await Promise.all(
      Array.from({ length: DEVICES }, (_, i) =>
        call(i, 'POST', `/v1/farms/${farmId}/devices`, liveKey, { type: 'house', name: `House ${i + 1}` }),
      ),
    );
    devices = created.map((d) => {
      assert.equal(d.status, 201);
      return { id: d.body.id, key: d.body.device_key };
    });
  });

  test('concurrent reports through all three open one alert per rule and subject, and resolve it once', async () => {
    const at = (minute: number) => new Date(Date.UTC(2026, 9, 1, 6, minute)).toISOString();
    // Each device reports six times at once, two reports through each process: urgent ammonia and a predator.
    const reports = devices.flatMap((device, d) =>
      Array.from({ length: 6 }, (_, r) =>
        call(d + r, 'POST', '/v1/ingest', device.key, {
          readings: [{ metric: 'climate.nh3_ppm', value: 26 + r, at: at(r) }],
          events: [{ type: 'predator.detected', data: { species: 'fox' }, at: at(r) }],
        }),
      ),
    );
    for (const res of await Promise.all(reports)) assert.equal(res.status, 200, JSON.stringify(res.body));

    const duplicates = await sql.query(
      `select rule, subject_id, count(*)::int as n from alerts
       where status in ('open', 'acknowledged') group by farm_id, rule, subject_type, subject_id having count(*) > 1`,
    );
    assert.deepEqual(duplicates.rows, [], 'no two active alerts for one rule and subject');
    const active = await sql.query(
      `select rule, count(*)::int as n from alerts where farm_id = $1 and status = 'open' group by rule order by rule`,
      [farmId],
    );
    assert.deepEqual(active.rows, [
      { rule: 'house.ammonia', n: DEVICES },
      { rule: 'predator.detected', n: DEVICES },
    ]);

    // Clearing readings, again six at once per device: each ammonia alert resolves once.
    const clears = devices.flatMap((device, d) =>
      Array.from({ length: 6 }, (_, r) =>
        call(d + r, 'POST', '/v1/ingest', device.key, {
          readings: [{ metric: 'climate.nh3_ppm', value: 8, at: at(10 + r) }],
        }),
      ),
    );
    for (const res of await Promise.all(clears)) assert.equal(res.status, 200);
    const events = await sql.query(
      `select type, count(*)::int as n from outbox where farm_id = $1 and type like 'alert.%' group by type order by type`,
      [farmId],
    );
    assert.deepEqual(events.rows, [
      { type: 'alert.created', n: 2 * DEVICES },
      { type: 'alert.resolved', n: DEVICES },
    ]);
  });

  test('each command is handed to its device exactly once, whichever process the device asks', async () => {
    const queued = await Promise.all(
      devices.flatMap((device, d) =>
        Array.from({ length: COMMANDS_PER_DEVICE }, (_, c) =>
          call(d + c, 'POST', `/v1/devices/${device.id}/commands`, liveKey, {
            command: c % 2 ? 'move.stop' : 'lights.set',
            ...(c % 2 ? {} : { params: { mode: 'on' } }),
          }),
        ),
      ),
    );
    const queuedIds = new Map<string, string>();
    for (const res of queued) {
      assert.equal(res.status, 201, JSON.stringify(res.body));
      queuedIds.set(res.body.id, res.body.device_id);
    }
    // Every device asks through all three processes at once: polls and (empty) reports, twice over.
    const handed = new Map<string, string[]>();
    const asks = devices.flatMap((device, d) =>
      Array.from({ length: 12 }, async (_, r) => {
        const res =
          r % 2
            ? await call(d + r, 'GET', '/v1/device/commands', device.key)
            : await call(d + r, 'POST', '/v1/ingest', device.key, {});
        assert.equal(res.status, 200);
        const commands: Json[] = r % 2 ? res.body.data : res.body.commands;
        for (const command of commands)
          handed.set(command.id, [...(handed.get(command.id) ?? []), device.id]);
      }),
    );
    await Promise.all(asks);
    assert.equal(handed.size, queuedIds.size, 'every queued command was handed out');
    for (const [id, to] of handed) {
      assert.deepEqual(to, [queuedIds.get(id)], `command ${id} went once, to its own device`);
    }
    const statuses = await sql.query(
      `select status, count(*)::int as n from commands where farm_id = $1 group by status`,
      [farmId],
    );
    assert.deepEqual(statuses.rows, [{ status: 'delivered', n: queuedIds.size }]);

    // Each answered once, through any process; a second answer is refused.
    const answers = await Promise.all(
      [...handed].map(([id, to], i) => {
        const device = devices.find((d) => d.id === to[0]) as { key: string };
        return call(i, 'POST', `/v1/device/commands/${id}`, device.key, { status: 'done' });
      }),
    );
    for (const res of answers) assert.equal(res.status, 200);
    const [firstId, firstTo] = [...handed][0] as [string, string[]];
    const device = devices.find((d) => d.id === firstTo[0]) as { key: string };
    assert.equal(
      (await call(1, 'POST', `/v1/device/commands/${firstId}`, device.key, { status: 'done' })).status,
      409,
    );
  });

  test('a revoked API key and a rotated device key stop working on all three at once', async () => {
    const second = await call(0, 'POST', '/v1/keys', liveKey, { name: 'Crew tablet', mode: 'live' });
    assert.equal(second.status, 201);
    const everywhere = (key: string, method: string, url: string, body?: unknown) =>
      Promise.all(servers.map((_, i) => call(i, method, url, key, body)));
    for (const res of await everywhere(second.body.key, 'GET', '/v1/me')) assert.equal(res.status, 200);
    assert.equal((await call(2, 'DELETE', `/v1/keys/${second.body.id}`, liveKey)).status, 200);
    // The promise (issue 19, docs/api.md): refused by every process within one second of the revocation.
    const revokedAt = Date.now();
    await waitFor(
      'the revoked key refused by every process',
      async () => (await everywhere(second.body.key, 'GET', '/v1/me')).every((res) => res.status === 401),
      1_000,
    );
    assert.ok(Date.now() - revokedAt <= 1_100, 'refused within the second');

    const device = devices[0] as { id: string; key: string };
    const rotated = await call(1, 'POST', `/v1/devices/${device.id}/key`, liveKey);
    assert.equal(rotated.status, 200);
    await waitFor(
      'the old device key refused by every process',
      async () => (await everywhere(device.key, 'POST', '/v1/ingest', {})).every((res) => res.status === 401),
      1_000,
    );
    for (const res of await everywhere(rotated.body.device_key, 'POST', '/v1/ingest', {})) {
      assert.equal(res.status, 200);
    }
    device.key = rotated.body.device_key;
  });

  test('each webhook event is delivered to the receiver once, retries included', async () => {
    const outbox = async () =>
      (await sql.query('select id from outbox where farm_id = $1 order by id', [farmId])).rows.map(
        (r: { id: string }) => r.id,
      );
    await waitFor(
      'every event delivered',
      async () => {
        const pending = await sql.query(
          `select count(*)::int as n from webhook_deliveries where farm_id = $1 and status <> 'succeeded'`,
          [farmId],
        );
        const ids = await outbox();
        const delivered = await sql.query(
          'select count(*)::int as n from webhook_deliveries where farm_id = $1',
          [farmId],
        );
        return pending.rows[0].n === 0 && delivered.rows[0].n === ids.length;
      },
      60_000,
    );
    const ids = await outbox();
    // device.created ×9, alert.created ×18, alert.resolved ×9, event.created ×54, command.queued ×36, command.done ×36
    assert.ok(ids.length >= 100, `${ids.length} events`);
    const once = ids.filter((id) => succeeded.get(id) === 1);
    assert.equal(once.length, ids.length, 'each event answered 2xx exactly once');
    assert.deepEqual([...succeeded.keys()].sort(), ids, 'nothing but the farm’s events was delivered');
    const retried = await sql.query(
      'select count(*)::int as n from webhook_deliveries where farm_id = $1 and attempt_count > 1',
      [farmId],
    );
    assert.ok(retried.rows[0].n >= Math.floor(ids.length / 4) - 1, 'failed first attempts were retried');
  });

  test('after SIGTERM every process has flushed its usage counts, and they add up to the requests made', async () => {
    await Promise.all(
      servers.map(async (server) => {
        const exited = once(server.child, 'exit');
        server.child.kill('SIGTERM');
        const [code] = await exited;
        assert.equal(code, 0, server.output.text);
      }),
    );
    const counts = await sql.query(
      'select surface, sum(count)::int as n from usage_counts where account_id = $1 group by surface order by surface',
      [accountId],
    );
    assert.deepEqual(counts.rows, [
      { surface: 'api', n: made.api },
      { surface: 'ingest', n: made.ingest },
    ]);
  });
});
