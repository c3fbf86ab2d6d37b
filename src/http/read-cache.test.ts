/**
 * The read cache (read-cache.ts) answers record lists and house views again only while nothing has been
 * committed, and only to the credential that read them: every write, through the API or another connection,
 * shows in the next answer, and another key's permissions are checked as if there were no cache.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import * as make from '../../test/factories.ts';
import { forEachEngine, type TestApp } from '../../test/harness.ts';
import { freshDataVersion } from '../db/data-version.ts';
import { openDatabase } from '../db/database.ts';
import { registry } from '../lib/metrics.ts';
import { toIso } from '../lib/time.ts';
import { createAnimal } from '../modules/animals/service.ts';
import { ReadCache } from './read-cache.ts';

type Json = any;

async function list(t: TestApp, key: string, path: string): Promise<Json[]> {
  return (await make.fetched<{ data: Json[] }>(t, key, path)).data;
}

async function readCacheCount(result: 'hit' | 'miss' | 'shared'): Promise<number> {
  const metric = (await registry.getSingleMetric('farmstead_read_cache_total')?.get()) as
    | { values: Array<{ labels: { result?: string }; value: number }> }
    | undefined;
  return metric?.values.find((v) => v.labels.result === result)?.value ?? 0;
}

forEachEngine('read cache', (t) => {
  test('every write to a list shows in the next answer: create, change, delete, and another connection', async () => {
    const acct = await t().sharedAccount();
    const key = acct.live_key;
    const farmId = (await make.farm(t(), key, { name: 'Cached Farm' })).id;
    const path = `/v1/farms/${farmId}/animals?limit=50`;
    assert.deepEqual(await list(t(), key, path), []);
    assert.deepEqual(await list(t(), key, path), [], 'asked twice');

    const bessie = await make.animal(t(), key, farmId, { species: 'cattle', name: 'Bessie' });
    assert.deepEqual(
      (await list(t(), key, path)).map((a) => a.name),
      ['Bessie'],
    );
    const renamed = await t().request('PATCH', `/v1/animals/${bessie.id}`, { key, body: { name: 'Bess' } });
    assert.equal(renamed.status, 200);
    assert.deepEqual(
      (await list(t(), key, path)).map((a) => a.name),
      ['Bess'],
    );

    const other = await openDatabase(t().config, { migrate: false });
    try {
      const scope = { accountId: acct.account_id, mode: 'live' as const };
      await createAnimal(other.db, scope, farmId, { species: 'sheep', name: 'Dolly' });
    } finally {
      await other.close();
    }
    assert.deepEqual(
      (await list(t(), key, path)).map((a) => a.name),
      ['Dolly', 'Bess'],
      'a commit through another connection',
    );

    assert.equal((await t().request('DELETE', `/v1/animals/${bessie.id}`, { key })).status, 200);
    assert.deepEqual(
      (await list(t(), key, path)).map((a) => a.name),
      ['Dolly'],
    );
    assert.deepEqual(
      (await list(t(), key, `/v1/farms/${farmId}/animals?limit=50&species=cattle`)).map((a) => a.name),
      [],
      'another query string is another answer',
    );
  });

  test('a record shows every change in the next read, and a deleted one is 404, not the kept body', async () => {
    const acct = await t().sharedAccount();
    const key = acct.live_key;
    const farmId = (await make.farm(t(), key)).id;
    const daisy = await make.animal(t(), key, farmId, { species: 'cattle', name: 'Daisy' });
    const path = `/v1/animals/${daisy.id}`;
    assert.equal((await make.fetched<Json>(t(), key, path)).name, 'Daisy');
    assert.equal((await make.fetched<Json>(t(), key, path)).name, 'Daisy', 'asked twice');
    const patched = await t().request('PATCH', path, { key, body: { name: 'Dais' } });
    assert.equal(patched.status, 200);
    assert.equal((await make.fetched<Json>(t(), key, path)).name, 'Dais');
    assert.equal((await t().request('DELETE', path, { key })).status, 200);
    assert.equal((await t().request('GET', path, { key })).status, 404);
  });

  test('the shared version read sees every commit made before it was asked for', async () => {
    const db = t().database.db;
    const accountId = (await t().sharedAccount()).account_id;
    const first = freshDataVersion(db);
    const second = freshDataVersion(db);
    assert.equal(second, first, 'asked in the same turn: one statement');
    const before = await first;
    await db
      .updateTable('accounts')
      .set({ name: 'Renamed for the version' })
      .where('id', '=', accountId)
      .execute();
    const later = freshDataVersion(db);
    assert.notEqual(later, first, 'asked after the first was sent: a statement of its own');
    assert.notEqual(await later, before, 'the commit before the ask shows');
  });

  test("a house view shows the device's newest report every time", async () => {
    const acct = await t().sharedAccount();
    const key = acct.live_key;
    const farmId = (await make.farm(t(), key)).id;
    const house = await make.device(t(), key, farmId, { name: 'House 1' });
    for (const value of [21.5, 22.5, 23.5]) {
      const sent = await make.report(t(), house.device_key, {
        readings: [{ metric: 'air.temp_c', value, at: toIso(Date.now()) }],
      });
      assert.equal(sent.status, 200);
      const view = await make.fetched<Json>(t(), key, `/v1/houses/${house.id}`);
      assert.equal(view.latest_readings['air.temp_c'].value, value);
      const listed = await list(t(), key, `/v1/farms/${farmId}/houses`);
      assert.equal(listed[0].latest_readings['air.temp_c'].value, value);
    }
  });

  test('another key never gets a body read for the first: its farms and permissions are its own', async () => {
    const acct = await t().sharedAccount();
    const key = acct.live_key;
    const farmA = (await make.farm(t(), key, { name: 'Farm A' })).id;
    const farmB = (await make.farm(t(), key, { name: 'Farm B' })).id;
    const billy = await make.animal(t(), key, farmA, { species: 'goat', name: 'Billy' });
    const path = `/v1/farms/${farmA}/animals`;
    assert.equal((await list(t(), key, path)).length, 1);
    assert.equal((await list(t(), key, path)).length, 1);

    const onlyB = await make.created<{ key: string }>(t(), key, '/v1/keys', {
      name: 'farm B only',
      farms: [farmB],
    });
    const refused = await t().request('GET', path, { key: onlyB.key });
    assert.equal(refused.status, 404, 'a farm outside the key is not found, cache or not');
    const record = `/v1/animals/${billy.id}`;
    assert.equal((await t().request('GET', record, { key })).status, 200);
    assert.equal((await t().request('GET', record, { key })).status, 200);
    assert.equal((await t().request('GET', record, { key: onlyB.key })).status, 404, 'nor its records');
    const noRecords = await make.created<{ key: string }>(t(), key, '/v1/keys', {
      name: 'alerts only',
      permissions: { records: 'none', alerts: 'read' },
    });
    assert.equal((await t().request('GET', path, { key: noRecords.key })).status, 403);
  });

  test('a repeated read is answered from the cache, compressed or not, with the same body', async (ctx) => {
    // PostgreSQL's snapshot moves with any write in the cluster (other test files run at once), so only
    // SQLite, whose test database nothing else writes, can show the hit for certain.
    if (t().engine !== 'sqlite') return ctx.skip('PostgreSQL: other tests write to the cluster');
    const acct = await t().sharedAccount();
    const key = acct.live_key;
    const farmId = (await make.farm(t(), key)).id;
    for (let i = 0; i < 30; i++) await make.animal(t(), key, farmId, { species: 'cattle', tag: `T${i}` });
    const path = `/v1/farms/${farmId}/animals?limit=30`;
    const first = await t().request('GET', path, { key });
    const hits = await readCacheCount('hit');
    const second = await t().request('GET', path, { key });
    assert.equal(await readCacheCount('hit'), hits + 1);
    assert.deepEqual(second.body, first.body);
    assert.equal(second.headers['content-type'], 'application/json; charset=utf-8');

    const zipped = await t().app.inject({
      method: 'GET',
      url: path,
      headers: { authorization: `Bearer ${key}`, 'accept-encoding': 'gzip' },
    });
    assert.equal(await readCacheCount('hit'), hits + 2);
    assert.equal(zipped.headers['content-encoding'], 'gzip');
    assert.deepEqual(JSON.parse(gunzipSync(zipped.rawPayload).toString()), first.body);
  });

  test('a crowd asking at once reads once: the others wait for its body, and read themselves if it fails', async (ctx) => {
    if (t().engine !== 'sqlite') return ctx.skip('PostgreSQL: other tests write to the cluster');
    const acct = await t().sharedAccount();
    const key = acct.live_key;
    const farmId = (await make.farm(t(), key)).id;
    for (let i = 0; i < 5; i++) await make.animal(t(), key, farmId, { species: 'sheep', tag: `C${i}` });
    const path = `/v1/farms/${farmId}/animals?limit=5`;
    const [misses, shared, hits] = [
      await readCacheCount('miss'),
      await readCacheCount('shared'),
      await readCacheCount('hit'),
    ];
    const crowd = await Promise.all(Array.from({ length: 20 }, () => t().request('GET', path, { key })));
    const [first] = crowd;
    assert.ok(first && crowd.every((r) => r.status === 200));
    for (const r of crowd) assert.deepEqual(r.body, first.body);
    assert.equal((first.body as { data: Json[] }).data.length, 5);
    assert.equal(await readCacheCount('miss'), misses + 1, 'one read');
    assert.equal(
      (await readCacheCount('shared')) - shared + ((await readCacheCount('hit')) - hits),
      19,
      'the others had its body',
    );

    const missing = `/v1/animals/ani_${'0'.repeat(24)}`;
    const before = await readCacheCount('miss');
    const refused = await Promise.all(Array.from({ length: 5 }, () => t().request('GET', missing, { key })));
    assert.deepEqual(
      refused.map((r) => r.status),
      [404, 404, 404, 404, 404],
    );
    assert.equal(await readCacheCount('miss'), before + 5, 'a 404 is not shared: each read for itself');
  });
});

describe('ReadCache', () => {
  test('a body is kept for its data version only', () => {
    const cache = new ReadCache(1_000);
    cache.set('k', 'v1', '{"a":1}');
    assert.equal(cache.get('k', 'v1')?.toString(), '{"a":1}');
    assert.equal(cache.get('k', 'v2'), undefined);
    cache.set('k', 'v2', '{"a":2}');
    assert.equal(cache.get('k', 'v1'), undefined);
    assert.equal(cache.get('k', 'v2')?.toString(), '{"a":2}');
  });

  test('a body marked with a maximum age is served for no longer than that after it was read', () => {
    const cache = new ReadCache(1_000);
    cache.set('brief', 'v1', '{"b":1}', 10_000);
    assert.ok(cache.get('brief', 'v1', 10_999, 1_000), 'within the second');
    assert.equal(cache.get('brief', 'v1', 11_000, 1_000), undefined, 'a second later');
    assert.equal(cache.get('brief', 'v1', 9_999, 1_000), undefined, 'a clock that went back');
    assert.ok(cache.get('brief', 'v1', 99_999), 'no maximum age: as long as the version holds');
  });

  test('a read under way hands its body to those waiting on it; one that gives none lets them read', async () => {
    const cache = new ReadCache(1_000);
    assert.equal(cache.pending('k', 'v1'), undefined, 'nothing under way');
    const first = cache.begin('k', 'v1', 5);
    const waiting = cache.pending('k', 'v1');
    assert.ok(waiting);
    assert.equal(cache.pending('k', 'v2'), undefined, 'another version is another read');
    first.settle('{"a":1}');
    first.settle('{"a":2}');
    assert.equal((await waiting)?.toString(), '{"a":1}', 'the first settle counts');
    assert.equal(cache.get('k', 'v1', 5)?.toString(), '{"a":1}', 'and is kept');
    assert.equal(cache.pending('k', 'v1'), undefined, 'no longer under way');

    const failed = cache.begin('k', 'v2');
    const waitingInVain = cache.pending('k', 'v2');
    failed.settle(undefined);
    assert.equal(await waitingInVain, undefined);
    assert.equal(cache.get('k', 'v2'), undefined);

    const older = cache.begin('k', 'v3');
    const newer = cache.begin('k', 'v4');
    assert.equal(cache.pending('k', 'v3'), undefined, 'a newer version replaces the older read');
    older.settle('{"v":3}');
    assert.ok(cache.pending('k', 'v4'), "the older read's end leaves the newer one under way");
    newer.settle('{"v":4}');
    assert.equal(cache.get('k', 'v4')?.toString(), '{"v":4}');
  });

  test('its size is bounded: the oldest bodies go first, and one too large is not kept', () => {
    const cache = new ReadCache(100);
    const body = 'x'.repeat(30);
    for (const k of ['a', 'b', 'c', 'd']) cache.set(k, 'v', body);
    assert.equal(cache.get('a', 'v'), undefined, 'the oldest went');
    for (const k of ['b', 'c', 'd']) assert.ok(cache.get(k, 'v'));
    assert.ok(cache.bytes <= 100);
    cache.set('big', 'v', 'y'.repeat(101));
    assert.equal(cache.get('big', 'v'), undefined);
    assert.ok(cache.get('d', 'v'), 'what was kept stays');
  });
});
