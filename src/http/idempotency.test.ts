import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as make from '../../test/factories.ts';
import { expectError, forEachEngine, openTestAppOn, type TestApp } from '../../test/harness.ts';
import { callTool, connect, ERAS, ok } from '../../test/mcp.ts';
import type {
  Alert,
  Animal,
  Command,
  ErrorReply,
  Farm,
  FarmEvent,
  IngestReply,
  List,
  NewDevice,
  Task,
} from '../../test/replies.ts';
import { claimIdempotencyKey, IDEMPOTENCY_TTL_MS, pruneIdempotencyKeys } from '../calls/idempotency-store.ts';
import { JOBS } from '../workers/jobs.ts';

const withKey = (key: string) => ({ 'idempotency-key': key });

async function farmsNamed(t: TestApp, accountId: string, name: string): Promise<number> {
  const rows = await t.database.db
    .selectFrom('farms')
    .select('id')
    .where('account_id', '=', accountId)
    .where('name', '=', name)
    .execute();
  return rows.length;
}

forEachEngine('idempotency', (t) => {
  // Tests share one account (a fresh one seeds a sample farm, most of what a test here costs): each uses
  // its own Idempotency-Key values and farm names; the test about two credentials makes its own accounts.
  test('a retried POST with the same key and body replays the first 201 with the same id', async () => {
    const acct = await t().sharedAccount();
    const send = () =>
      t().request<Farm>('POST', '/v1/farms', {
        key: acct.live_key,
        body: { name: 'Retry Farm' },
        headers: withKey('k-1'),
      });
    const first = await send();
    assert.equal(first.status, 201);
    assert.equal(first.headers['idempotent-replayed'], undefined);
    const second = await send();
    assert.equal(second.status, 201);
    assert.equal(second.headers['idempotent-replayed'], 'true');
    assert.deepEqual(second.body, first.body);
    assert.match(String(second.headers['content-type']), /application\/json/);
    assert.equal(await farmsNamed(t(), acct.account_id, 'Retry Farm'), 1);
    // The same body with its members in another order is the same request.
    const reordered = await t().request<Task>('POST', `/v1/farms/${first.body.id}/tasks`, {
      key: acct.live_key,
      body: { title: 'Fix fence', notes: 'north side' },
      headers: withKey('k-2'),
    });
    const again = await t().request<Task>('POST', `/v1/farms/${first.body.id}/tasks`, {
      key: acct.live_key,
      rawBody: '{"notes":"north side","title":"Fix fence"}',
      headers: withKey('k-2'),
    });
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.body.id, reordered.body.id);
  });

  test('an answer holding a secret shown once is never stored: its retry is 409, and no secret is in the table', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const device = await make.device(t(), acct.live_key, farm);
    const calls: Array<[string, Record<string, unknown>, string]> = [
      ['/v1/keys', { name: 'once' }, 'key'],
      [`/v1/farms/${farm}/devices`, { type: 'water', name: 'Trough' }, 'device_key'],
      [`/v1/devices/${device.id}/key`, {}, 'device_key'],
      [`/v1/farms/${farm}/webhooks`, { url: 'https://93.184.216.34/hook', events: ['*'] }, 'secret'],
      [`/v1/farms/${farm}/integrations`, { type: 'chirpstack', name: 'CS' }, 'secret'],
      ['/v1/people/invites', { email: `once-${farm}@farm.test`, role: 'crew' }, 'url'],
    ];
    for (const [path, body, member] of calls) {
      const key = `once-${path}`;
      const send = () =>
        t().request<Record<string, string>>('POST', path, {
          key: acct.live_key,
          body,
          headers: withKey(key),
        });
      const first = await send();
      assert.ok(first.status === 201 || first.status === 200, `${path}: ${JSON.stringify(first.body)}`);
      const secret = first.body[member];
      assert.ok(typeof secret === 'string' && secret.length > 10, `${path} answered its ${member}`);
      const retry = expectError(await send(), 409, 'conflict');
      assert.equal(retry.param, 'Idempotency-Key');
      assert.match(retry.message, /shown only once/);
      const stored = await t()
        .database.db.selectFrom('idempotency_keys')
        .select('response_body')
        .where('key', '=', key)
        .executeTakeFirstOrThrow();
      assert.ok(!String(stored.response_body).includes(secret), `${path}: no ${member} kept`);
    }
    // An error of such a route is stored as any other.
    const refused = () =>
      t().request('POST', '/v1/keys', {
        key: acct.live_key,
        body: { name: 'x', farms: ['farm_nope'] },
        headers: withKey('once-err'),
      });
    expectError(await refused(), 400, 'invalid_request');
    const replayed = await refused();
    assert.equal(replayed.headers['idempotent-replayed'], 'true');
  });

  test('the same key with a different body or path is 409 conflict naming the key', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const url = `/v1/farms/${farm}/animals`;
    const first = await t().request('POST', url, {
      key: acct.live_key,
      body: { species: 'cattle', tag: 'A1' },
      headers: withKey('animal-1'),
    });
    assert.equal(first.status, 201);
    const other = expectError(
      await t().request('POST', url, {
        key: acct.live_key,
        body: { species: 'cattle', tag: 'A2' },
        headers: withKey('animal-1'),
      }),
      409,
      'conflict',
    );
    assert.equal(other.param, 'Idempotency-Key');
    assert.match(other.message, /different request/);
    expectError(
      await t().request('POST', `/v1/farms/${farm}/tasks`, {
        key: acct.live_key,
        body: { title: 'A1' },
        headers: withKey('animal-1'),
      }),
      409,
      'conflict',
    );
    const animals = await t().request<List<Animal>>('GET', url, { key: acct.live_key });
    assert.deepEqual(
      animals.body.data.map((a) => a.tag),
      ['A1'],
    );
  });

  test('keys are 1 to 255 characters; longer is 400 and nothing is written', async () => {
    const acct = await t().sharedAccount();
    const long = expectError(
      await t().request('POST', '/v1/farms', {
        key: acct.live_key,
        body: { name: 'Too Long' },
        headers: withKey('x'.repeat(256)),
      }),
      400,
      'invalid_request',
    );
    assert.equal(long.param, 'Idempotency-Key');
    assert.equal(await farmsNamed(t(), acct.account_id, 'Too Long'), 0);
    const max = await t().request('POST', '/v1/farms', {
      key: acct.live_key,
      body: { name: 'Just Right' },
      headers: withKey('x'.repeat(255)),
    });
    assert.equal(max.status, 201);
  });

  test('keys belong to one credential: another key with the same Idempotency-Key acts on its own', async () => {
    const a = await t().sharedAccount();
    const b = await t().account();
    const one = await t().request<Farm>('POST', '/v1/farms', {
      key: a.live_key,
      body: { name: 'Shared Key Farm' },
      headers: withKey('same'),
    });
    const two = await t().request<Farm>('POST', '/v1/farms', {
      key: b.live_key,
      body: { name: 'Shared Key Farm' },
      headers: withKey('same'),
    });
    assert.equal(two.status, 201);
    assert.equal(two.headers['idempotent-replayed'], undefined);
    assert.notEqual(one.body.id, two.body.id);
  });

  test('an error caused by the request (4xx) is replayed too', async () => {
    const acct = await t().sharedAccount();
    const send = () =>
      t().request<ErrorReply>('POST', '/v1/tasks/task_missing/done', {
        key: acct.live_key,
        headers: withKey('done-1'),
      });
    const first = expectError(await send(), 404, 'not_found');
    const second = await send();
    assert.equal(second.headers['idempotent-replayed'], 'true');
    assert.deepEqual(second.body.error, first);
  });

  test('20 concurrent duplicates produce one record and all get the same 201', async () => {
    const acct = await t().sharedAccount();
    const replies = await Promise.all(
      Array.from({ length: 20 }, () =>
        t().request<Farm>('POST', '/v1/farms', {
          key: acct.live_key,
          body: { name: 'Concurrent Farm' },
          headers: withKey('burst'),
        }),
      ),
    );
    assert.deepEqual(new Set(replies.map((r) => r.status)), new Set([201]));
    assert.equal(new Set(replies.map((r) => r.body.id)).size, 1);
    assert.equal(replies.filter((r) => r.headers['idempotent-replayed'] === 'true').length, 19);
    assert.equal(await farmsNamed(t(), acct.account_id, 'Concurrent Farm'), 1);
  });

  test('duplicates sent to two processes on one database produce one record', async () => {
    const acct = await t().sharedAccount();
    const other = await openTestAppOn(t());
    try {
      const replies = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          (i % 2 ? other : t()).request<Farm>('POST', '/v1/farms', {
            key: acct.live_key,
            body: { name: 'Two Process Farm' },
            headers: withKey('two-processes'),
          }),
        ),
      );
      assert.equal(new Set(replies.map((r) => r.body.id)).size, 1);
      assert.equal(await farmsNamed(t(), acct.account_id, 'Two Process Farm'), 1);
    } finally {
      await other.close();
    }
  });

  test('a retried ingest report stores its readings once and opens one alert', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const house = await make.device(t(), acct.live_key, farm);
    const body = {
      readings: [
        { metric: 'climate.nh3_ppm', value: 30 },
        { metric: 'feed.bin_pct', value: 60 },
      ],
      events: [{ type: 'note.checked', data: { by: 'sensor' } }],
    };
    const send = () =>
      t().request<IngestReply>('POST', '/ingest', {
        key: house.device_key,
        body,
        headers: withKey('report-1'),
      });
    const first = await send();
    assert.equal(first.status, 200);
    // A flaky link: the device retries, some of the retries at once.
    const retries = await Promise.all([send(), send(), send()]);
    for (const retry of retries) {
      assert.equal(retry.headers['idempotent-replayed'], 'true');
      assert.deepEqual(retry.body, first.body);
    }
    const readings = await t()
      .database.db.selectFrom('readings')
      .select('metric')
      .where('device_id', '=', house.id)
      .execute();
    assert.equal(readings.length, 2);
    const alerts = await t().request<List<Alert>>('GET', `/v1/farms/${farm}/alerts?status=all`, {
      key: acct.live_key,
    });
    assert.deepEqual(
      alerts.body.data.map((a: { rule: string }) => a.rule),
      ['house.ammonia'],
    );
    const events = await t().request<List<FarmEvent>>('GET', `/v1/farms/${farm}/events?type=note.checked`, {
      key: acct.live_key,
    });
    assert.equal(events.body.data.length, 1);
    // A new report (new key) is stored as usual.
    const next = await t().request<IngestReply>('POST', '/ingest', {
      key: house.device_key,
      body: { readings: [{ metric: 'feed.bin_pct', value: 59 }] },
      headers: withKey('report-2'),
    });
    assert.equal(next.headers['idempotent-replayed'], undefined);
    assert.equal(next.body.accepted, 1);
  });

  test('device keys scope their own idempotency keys', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const one = await make.device(t(), acct.live_key, farm, { name: 'One' });
    const two = await make.device(t(), acct.live_key, farm, { name: 'Two' });
    const body = { readings: [{ metric: 'feed.bin_pct', value: 50 }] };
    await make.report(t(), one.device_key, body);
    const a = await t().request('POST', '/v1/ingest', { key: one.device_key, body, headers: withKey('r') });
    const b = await t().request('POST', '/v1/ingest', { key: two.device_key, body, headers: withKey('r') });
    assert.equal(a.headers['idempotent-replayed'], undefined);
    assert.equal(b.headers['idempotent-replayed'], undefined);
  });

  test('a device answering a command retries safely: the first answer is replayed', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const house = await make.device(t(), acct.live_key, farm);
    const queued = await t().request<Command>('POST', `/v1/devices/${house.id}/commands`, {
      key: acct.live_key,
      body: { command: 'lights.set', params: { mode: 'on' } },
    });
    assert.equal(queued.status, 201);
    await t().request('GET', '/v1/device/commands', { key: house.device_key });
    const answer = () =>
      t().request('POST', `/v1/device/commands/${queued.body.id}`, {
        key: house.device_key,
        body: { status: 'done', result: { lights: 'on' } },
        headers: withKey('answer-1'),
      });
    const first = await answer();
    assert.equal(first.status, 200);
    const retry = await answer();
    assert.equal(retry.status, 200);
    assert.equal(retry.headers['idempotent-replayed'], 'true');
    assert.deepEqual(retry.body, first.body);
    const done = await make.outboxEvents(t(), farm, 'command.done');
    assert.equal(done.length, 1, 'one command.done event');
  });

  test('a pending claim waits, then is 409 while the first still runs; a crashed claim runs again', async () => {
    const acct = await t().sharedAccount();
    const db = t().database.db;
    const scope = `key:test-${acct.account_id}`;
    const claim = { scope, key: 'slow', fingerprint: 'f' };
    const first = await claimIdempotencyKey(db, claim, { param: 'Idempotency-Key' });
    assert.equal(first.kind, 'run');
    await assert.rejects(
      claimIdempotencyKey(db, claim, { param: 'Idempotency-Key', waitMs: 60 }),
      (err: Error & { code?: string }) => err.code === 'conflict' && /still in progress/.test(err.message),
    );
    // The first request's process died: once its lease has passed, a retry takes the key over.
    await db
      .updateTable('idempotency_keys')
      .set({ locked_until: Date.now() - 1 })
      .where('scope', '=', scope)
      .execute();
    const retry = await claimIdempotencyKey(db, claim, { param: 'Idempotency-Key', waitMs: 60 });
    assert.equal(retry.kind, 'run');
    assert.ok(retry.kind === 'run' && first.kind === 'run' && retry.owner !== first.owner);
  });

  test('keys expire after 24 hours: pruned in the background, then the key acts anew', async () => {
    assert.ok(JOBS.some((job) => job.name === 'idempotency.prune'));
    const acct = await t().sharedAccount();
    const send = () =>
      t().request<Farm>('POST', '/v1/farms', {
        key: acct.live_key,
        body: { name: 'Expiring Farm' },
        headers: withKey('day-old'),
      });
    const first = await send();
    // A pass just before the key's 24 h are up leaves it (keys of earlier tests may go: they are older).
    await pruneIdempotencyKeys(t().database.db, Date.now() + IDEMPOTENCY_TTL_MS - 60_000);
    assert.equal((await send()).body.id, first.body.id);
    const pruned = await pruneIdempotencyKeys(t().database.db, Date.now() + IDEMPOTENCY_TTL_MS + 1);
    assert.ok(pruned >= 1);
    const later = await send();
    assert.equal(later.status, 201);
    assert.equal(later.headers['idempotent-replayed'], undefined);
    assert.notEqual(later.body.id, first.body.id);
  });

  const era = ERAS[0];
  if (era) {
    test('MCP write tools take idempotency_key: a repeat returns the first result and acts once', async () => {
      const acct = await t().sharedAccount();
      const { client, close } = await connect(t(), acct.test_key, era);
      try {
        const tools = (await client.listTools()).tools;
        for (const tool of tools) {
          const props = (tool.inputSchema as { properties?: Record<string, unknown> }).properties ?? {};
          const writes = tool.annotations?.readOnlyHint === false;
          assert.equal('idempotency_key' in props, writes, `${tool.name} idempotency_key`);
        }
        const args = { title: 'Check the waterer', idempotency_key: 'task-1' };
        const first = await ok(client, 'add_task', args);
        const second = await ok(client, 'add_task', args);
        assert.deepEqual(second, first);
        const tasks = await t().request<List<Task>>(
          'GET',
          `/v1/farms/${acct.sample_farm_id}/tasks?limit=500`,
          {
            key: acct.test_key,
          },
        );
        assert.equal(
          tasks.body.data.filter((x: { title: string }) => x.title === 'Check the waterer').length,
          1,
        );
        const clash = await callTool(client, 'add_task', { title: 'Other', idempotency_key: 'task-1' });
        assert.equal(clash.isError, true);
        assert.match(clash.text, /idempotency_key/);
        const tooLong = await callTool(client, 'add_task', { title: 'X', idempotency_key: 'k'.repeat(256) });
        assert.equal(tooLong.isError, true);
        // house_command advertises it too, and the command is queued once.
        const house = await t().request<NewDevice>('POST', `/v1/farms/${acct.sample_farm_id}/devices`, {
          key: acct.test_key,
          body: { type: 'house', name: 'Idem House' },
        });
        const cmd = {
          house_id: house.body.id,
          command: 'lights.set',
          params: { mode: 'on' },
          idempotency_key: 'c1',
        };
        const c1 = await ok(client, 'house_command', cmd);
        const c2 = await ok(client, 'house_command', cmd);
        assert.equal(c2.command.id, c1.command.id);
        const history = await t().request<List<Command>>('GET', `/v1/devices/${house.body.id}/commands`, {
          key: acct.test_key,
        });
        assert.equal(history.body.data.length, 1);
      } finally {
        await close();
      }
    });
  }
});
