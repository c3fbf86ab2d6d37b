import assert from 'node:assert/strict';
import { test } from 'node:test';
import { expectError, forEachEngine, openTestAppOn } from '../../../test/harness.ts';
import type { ErrorReply, Key, List, Me, NewKey, RevokedKey, Usage } from '../../../test/replies.ts';

forEachEngine('auth and API keys', (t) => {
  test('a request without a key is 401 unauthorized with WWW-Authenticate; a successful one has none', async () => {
    const res = await t().request('GET', '/v1/farms');
    expectError(res, 401, 'unauthorized');
    assert.equal(res.headers['www-authenticate'], 'Bearer');
    const acct = await t().sharedAccount();
    const ok = await t().request('GET', '/v1/farms', { key: acct.live_key });
    assert.equal(ok.status, 200);
    assert.equal(ok.headers['www-authenticate'], undefined);
    const missing = await t().request('GET', '/v1/farms/farm_nothing', { key: acct.live_key });
    expectError(missing, 404, 'not_found');
    assert.equal(missing.headers['www-authenticate'], undefined);
  });

  test('a malformed key, an unknown key and a device-shaped key are each 401', async () => {
    expectError(
      await t().request('GET', '/v1/farms', { headers: { authorization: 'Basic abc' } }),
      401,
      'unauthorized',
    );
    expectError(await t().request('GET', '/v1/farms', { key: 'sk_live_nothing' }), 401, 'unauthorized');
    expectError(
      await t().request('GET', '/v1/farms', { key: `rk_live_${'x'.repeat(32)}` }),
      401,
      'unauthorized',
    );
    const device = expectError(
      await t().request('GET', '/v1/farms', { key: `rd_${'x'.repeat(32)}` }),
      401,
      'unauthorized',
    );
    assert.match(device.message, /device key/);
  });

  test('keys are rk_live_/rk_test_ with 32 random characters and are stored only hashed', async () => {
    const acct = await t().account();
    assert.match(acct.live_key, /^rk_live_[0-9A-Za-z]{32}$/);
    assert.match(acct.test_key, /^rk_test_[0-9A-Za-z]{32}$/);
    const rows = await t()
      .database.db.selectFrom('api_keys')
      .selectAll()
      .where('account_id', '=', acct.account_id)
      .execute();
    assert.equal(rows.length, 2);
    for (const row of rows) {
      assert.ok(!JSON.stringify(row).includes(acct.live_key.slice(12)), 'full key must not be stored');
      assert.match(row.key_hash, /^[0-9a-f]{64}$/);
    }
  });

  test('POST /v1/keys returns the full key once; GET /v1/keys shows prefix and last_used_at, never the key', async () => {
    const acct = await t().account();
    const created = await t().request<NewKey>('POST', '/v1/keys', {
      key: acct.live_key,
      body: { name: 'barn tablet' },
    });
    assert.equal(created.status, 201);
    assert.equal(created.body.mode, 'live', 'mode defaults to the calling key’s mode');
    assert.match(created.body.key, /^rk_live_/);
    assert.equal(created.body.prefix, created.body.key.slice(0, 12));
    // The new key works.
    const me = await t().request<Me>('GET', '/v1/me', { key: created.body.key });
    assert.equal(me.status, 200);
    assert.equal(me.body.key!.name, 'barn tablet');
    const list = await t().request<List<Key>>('GET', '/v1/keys', { key: acct.live_key });
    assert.equal(list.status, 200);
    assert.equal(list.body.data.length, 3);
    for (const k of list.body.data) {
      assert.equal(k.key, undefined);
      assert.equal(typeof k.prefix, 'string');
      assert.ok('last_used_at' in k);
    }
    const listed = list.body.data.find((k) => k.id === created.body.id);
    assert.notEqual(listed!.last_used_at, null, 'the new key was just used');
  });

  test('POST /v1/keys with a test key makes a test key; mode can be chosen; bad mode is 400', async () => {
    const acct = await t().sharedAccount();
    const fromTest = await t().request<NewKey>('POST', '/v1/keys', { key: acct.test_key });
    assert.equal(fromTest.status, 201);
    assert.equal(fromTest.body.mode, 'test');
    assert.match(fromTest.body.key, /^rk_test_/);
    const chosen = await t().request<NewKey>('POST', '/v1/keys', {
      key: acct.live_key,
      body: { mode: 'test' },
    });
    assert.equal(chosen.body.mode, 'test');
    const bad = expectError(
      await t().request('POST', '/v1/keys', { key: acct.live_key, body: { mode: 'prod' } }),
      400,
      'invalid_request',
    );
    assert.equal(bad.param, 'mode');
    const unknown = expectError(
      await t().request('POST', '/v1/keys', { key: acct.live_key, body: { nmae: 'x' } }),
      400,
      'invalid_request',
    );
    assert.equal(unknown.param, 'nmae');
  });

  test('a revoked key stops working at once', async () => {
    const acct = await t().sharedAccount();
    const extra = await t().request<NewKey>('POST', '/v1/keys', { key: acct.live_key });
    const revoked = await t().request<RevokedKey>('DELETE', `/v1/keys/${extra.body.id}`, {
      key: acct.live_key,
    });
    assert.equal(revoked.status, 200);
    assert.equal(revoked.body.deleted, true);
    expectError(await t().request('GET', '/v1/me', { key: extra.body.key }), 401, 'unauthorized');
    const list = await t().request<List<Key>>('GET', '/v1/keys', { key: acct.live_key });
    assert.ok(!list.body.data.some((k) => k.id === extra.body.id));
    expectError(
      await t().request('DELETE', `/v1/keys/${extra.body.id}`, { key: acct.live_key }),
      404,
      'not_found',
    );
  });

  test("the account's last live key cannot be revoked (409); with another live key it can", async () => {
    const acct = await t().account();
    const keys = await t().request<List<Key>>('GET', '/v1/keys', { key: acct.live_key });
    const live = keys.body.data.find((k) => k.mode === 'live');
    const refused = expectError(
      await t().request('DELETE', `/v1/keys/${live!.id}`, { key: acct.live_key }),
      409,
      'conflict',
    );
    assert.match(refused.message, /last live key/);
    const second = await t().request<NewKey>('POST', '/v1/keys', { key: acct.live_key });
    assert.equal((await t().request('DELETE', `/v1/keys/${live!.id}`, { key: second.body.key })).status, 200);
    expectError(await t().request('GET', '/v1/me', { key: acct.live_key }), 401, 'unauthorized');
  });

  test("another account's key id is 404 not_found", async () => {
    const a = await t().sharedAccount();
    const b = await t().account();
    const bKeys = await t().request<List<Key>>('GET', '/v1/keys', { key: b.live_key });
    const res = await t().request('DELETE', `/v1/keys/${bKeys.body.data[0]!.id}`, { key: a.live_key });
    expectError(res, 404, 'not_found');
  });

  test('GET /v1/me names the account and the calling key', async () => {
    const acct = await t().account('Hillside Ranch');
    const res = await t().request<Me>('GET', '/v1/me', { key: acct.test_key });
    assert.equal(res.status, 200);
    assert.equal(res.body.account.id, acct.account_id);
    assert.equal(res.body.account.name, 'Hillside Ranch');
    assert.equal(res.body.key!.mode, 'test');
    assert.equal(res.body.key!.prefix, acct.test_key.slice(0, 12));
    assert.ok(typeof res.headers['request-id'] === 'string' && res.headers['request-id'].startsWith('req_'));
  });

  test('usage counts move with authenticated calls, by day and surface', async () => {
    const acct = await t().account();
    for (let i = 0; i < 3; i++) await t().request('GET', '/v1/farms', { key: acct.live_key });
    const first = await t().request<Usage>('GET', '/v1/usage', { key: acct.live_key });
    assert.equal(first.status, 200);
    const today = new Date().toISOString().slice(0, 10);
    const day = first.body.days.find((d) => d.day === today);
    assert.equal(day!.api, 4, 'three list calls plus this usage call');
    await t().request('GET', '/v1/me', { key: acct.test_key });
    const second = await t().request<Usage>('GET', '/v1/usage', { key: acct.live_key });
    assert.equal(second.body.totals.api, 6);
    assert.equal(second.body.totals.ingest, 0);
    // Unauthenticated calls are not counted.
    await t().request('GET', '/v1/farms');
    const third = await t().request<Usage>('GET', '/v1/usage', { key: acct.live_key });
    assert.equal(third.body.totals.api, 7);
  });

  test('a test key cannot create a live key (403) and makes test keys only', async () => {
    const acct = await t().account();
    const refused = expectError(
      await t().request('POST', '/v1/keys', { key: acct.test_key, body: { mode: 'live' } }),
      403,
      'forbidden',
    );
    assert.match(refused.message, /test key cannot create live keys/);
    const keys = await t()
      .database.db.selectFrom('api_keys')
      .select('mode')
      .where('account_id', '=', acct.account_id)
      .execute();
    assert.deepEqual(keys.map((k) => k.mode).sort(), ['live', 'test'], 'nothing was created');
  });

  test('a test key lists only test keys and cannot revoke a live key (404, as if missing)', async () => {
    const acct = await t().account();
    const extraLive = await t().request<NewKey>('POST', '/v1/keys', {
      key: acct.live_key,
      body: { mode: 'live' },
    });
    const list = await t().request<List<Key>>('GET', '/v1/keys', { key: acct.test_key });
    assert.equal(list.status, 200);
    assert.equal(list.body.data.length, 1);
    assert.ok(list.body.data.every((k) => k.mode === 'test'));
    expectError(
      await t().request('DELETE', `/v1/keys/${extraLive.body.id}`, { key: acct.test_key }),
      404,
      'not_found',
    );
    assert.equal(
      (await t().request('GET', '/v1/me', { key: extraLive.body.key })).status,
      200,
      'still works',
    );
    // A live key still sees and manages both modes.
    const liveList = await t().request<List<Key>>('GET', '/v1/keys', { key: acct.live_key });
    assert.deepEqual(liveList.body.data.map((k) => k.mode).sort(), ['live', 'live', 'test']);
  });

  test('50 concurrent revocations of an account’s live keys leave exactly one live key', async () => {
    const acct = await t().account();
    const created = [];
    for (let i = 0; i < 49; i++) {
      created.push(
        (await t().request<NewKey>('POST', '/v1/keys', { key: acct.live_key, body: { name: `k${i}` } })).body,
      );
    }
    const keys = (
      await t().request<List<Key>>('GET', '/v1/keys?limit=500', { key: acct.live_key })
    ).body.data.filter((k) => k.mode === 'live');
    assert.equal(keys.length, 50);
    // Each key revokes itself, all at once; on PostgreSQL through two processes with room for 25
    // transactions each (SQLite serialises writers in its one connection).
    const byId = new Map<string, string>(created.map((c) => [c.id, c.key]));
    byId.set(keys.find((k) => !byId.has(k.id))!.id, acct.live_key);
    const apps =
      t().engine === 'postgres'
        ? [await openTestAppOn(t(), { pgPoolSize: 25 }), await openTestAppOn(t(), { pgPoolSize: 25 })]
        : [t()];
    const results = await Promise.all(
      keys.map((k, i: number) =>
        apps[i % apps.length]!.request('DELETE', `/v1/keys/${k.id}`, { key: byId.get(k.id) }),
      ),
    );
    if (apps.length > 1) await Promise.all(apps.map((app) => app.close()));
    const ok = results.filter((r) => r.status === 200).length;
    const refused = results.filter(
      (r) => r.status === 409 && (r.body as ErrorReply).error.code === 'conflict',
    ).length;
    assert.equal(ok, 49);
    assert.equal(refused, 1);
    const live = await t()
      .database.db.selectFrom('api_keys')
      .select('id')
      .where('account_id', '=', acct.account_id)
      .where('mode', '=', 'live')
      .where('revoked_at', 'is', null)
      .execute();
    assert.equal(live.length, 1);
  });
});
