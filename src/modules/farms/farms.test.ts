import assert from 'node:assert/strict';
import { test } from 'node:test';
import { expectError, forEachEngine } from '../../../test/harness.ts';
import type { BriefReply, ErrorReply, Farm, List } from '../../../test/replies.ts';

forEachEngine('farms', (t) => {
  test('POST /v1/farms creates a farm in the key’s mode with every field', async () => {
    const acct = await t().sharedAccount();
    const res = await t().request<Farm>('POST', '/v1/farms', {
      key: acct.live_key,
      body: { name: 'North Pasture', timezone: 'America/Denver', lat: 40.5, lon: -105.1, acres: 320.5 },
    });
    assert.equal(res.status, 201);
    assert.match(res.body.id, /^farm_/);
    assert.equal(res.body.mode, 'live');
    assert.equal(res.body.sample, false);
    assert.equal(res.body.timezone, 'America/Denver');
    assert.equal(res.body.acres, 320.5);
    assert.deepEqual(res.body.settings, {});
    assert.match(res.body.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const got = await t().request('GET', `/v1/farms/${res.body.id}`, { key: acct.live_key });
    assert.deepEqual(got.body, res.body);
    const withTest = await t().request<Farm>('POST', '/v1/farms', {
      key: acct.test_key,
      body: { name: 'Trial' },
    });
    assert.equal(withTest.body.mode, 'test');
    assert.equal(withTest.body.timezone, 'UTC', 'timezone defaults to UTC');
  });

  test('farm validation errors name the field', async () => {
    const acct = await t().sharedAccount();
    const count = async () =>
      (await t().request<List<Farm>>('GET', '/v1/farms?limit=500', { key: acct.live_key })).body.data.length;
    const farmsBefore = await count();
    const cases: [unknown, string][] = [
      [{}, 'name'],
      [{ name: '' }, 'name'],
      [{ name: 42 }, 'name'],
      [{ name: 'x', timezone: 'Mars/Olympus' }, 'timezone'],
      [{ name: 'x', lat: 91 }, 'lat'],
      [{ name: 'x', lon: -181 }, 'lon'],
      [{ name: 'x', acres: -1 }, 'acres'],
      [{ name: 'x', acres: '10' }, 'acres'],
      [{ name: 'x', colour: 'red' }, 'colour'],
    ];
    for (const [body, param] of cases) {
      const err = expectError(
        await t().request('POST', '/v1/farms', { key: acct.live_key, body }),
        400,
        'invalid_request',
      );
      assert.equal(err.param, param, JSON.stringify(body));
    }
    assert.equal(await count(), farmsBefore, 'rejected requests wrote nothing');
  });

  test('malformed JSON, a non-JSON content type and an oversize body are 4xx Error objects', async () => {
    const acct = await t().sharedAccount();
    expectError(
      await t().request('POST', '/v1/farms', { key: acct.live_key, rawBody: '{"name":' }),
      400,
      'invalid_request',
    );
    const text = await t().request('POST', '/v1/farms', {
      key: acct.live_key,
      rawBody: 'name=x',
      headers: { 'content-type': 'text/plain' },
    });
    expectError(text, 415, 'unsupported_media_type');
    const big = await t().request('POST', '/v1/farms', {
      key: acct.live_key,
      body: { name: 'x', settings: { notes: 'a'.repeat(2_000_000) } },
    });
    expectError(big, 413, 'payload_too_large');
  });

  test('live keys see only live farms and test keys only test farms (404 across modes)', async () => {
    const acct = await t().account();
    const live = await t().request<Farm>('POST', '/v1/farms', {
      key: acct.live_key,
      body: { name: 'Live farm' },
    });
    const liveList = await t().request<List<Farm>>('GET', '/v1/farms', { key: acct.live_key });
    assert.deepEqual(
      liveList.body.data.map((f) => f.id),
      [live.body.id],
    );
    const testList = await t().request<List<Farm>>('GET', '/v1/farms', { key: acct.test_key });
    assert.deepEqual(
      testList.body.data.map((f) => f.id),
      [acct.sample_farm_id],
    );
    assert.equal(testList.body.data[0]!.sample, true);
    assert.equal(testList.body.data[0]!.mode, 'test');
    for (const [method, body] of [['GET'], ['PATCH', { name: 'y' }], ['DELETE'], ['GET']] as const) {
      const url =
        method === 'GET' && body === undefined ? `/v1/farms/${live.body.id}` : `/v1/farms/${live.body.id}`;
      expectError(await t().request(method, url, { key: acct.test_key, body }), 404, 'not_found');
    }
    expectError(
      await t().request('GET', `/v1/farms/${acct.sample_farm_id}`, { key: acct.live_key }),
      404,
      'not_found',
    );
    expectError(
      await t().request('GET', `/v1/farms/${acct.sample_farm_id}/brief`, { key: acct.live_key }),
      404,
      'not_found',
    );
  });

  test("another account's farm is 404 not_found on every farm endpoint, like a missing id", async () => {
    const a = await t().sharedAccount();
    const b = await t().account();
    const farm = await t().request<Farm>('POST', '/v1/farms', { key: b.live_key, body: { name: 'B farm' } });
    const missing = await t().request<ErrorReply>('GET', '/v1/farms/farm_doesnotexist', { key: a.live_key });
    const foreign = await t().request<ErrorReply>('GET', `/v1/farms/${farm.body.id}`, { key: a.live_key });
    expectError(missing, 404, 'not_found');
    expectError(foreign, 404, 'not_found');
    assert.equal(
      foreign.body.error.message.replace(farm.body.id, 'ID'),
      missing.body.error.message.replace('farm_doesnotexist', 'ID'),
    );
    expectError(
      await t().request('PATCH', `/v1/farms/${farm.body.id}`, { key: a.live_key, body: { name: 'x' } }),
      404,
      'not_found',
    );
    expectError(
      await t().request('DELETE', `/v1/farms/${farm.body.id}`, { key: a.live_key }),
      404,
      'not_found',
    );
    expectError(
      await t().request('GET', `/v1/farms/${farm.body.id}/brief`, { key: a.live_key }),
      404,
      'not_found',
    );
    const still = await t().request<Farm>('GET', `/v1/farms/${farm.body.id}`, { key: b.live_key });
    assert.equal(still.body.name, 'B farm');
  });

  test('PATCH updates any subset of fields and merges settings one level deep', async () => {
    const acct = await t().sharedAccount();
    const farm = await t().request<Farm>('POST', '/v1/farms', {
      key: acct.live_key,
      body: { name: 'A', settings: { units: 'metric', contact: { phone: '555' } } },
    });
    const id = farm.body.id;
    const renamed = await t().request<Farm>('PATCH', `/v1/farms/${id}`, {
      key: acct.live_key,
      body: { name: 'B', acres: 12 },
    });
    assert.equal(renamed.status, 200);
    assert.equal(renamed.body.name, 'B');
    assert.equal(renamed.body.acres, 12);
    assert.equal(renamed.body.timezone, 'UTC');
    const patched = await t().request<Farm>('PATCH', `/v1/farms/${id}`, {
      key: acct.live_key,
      body: { settings: { rules: { 'house.heat': { watch: 31, urgent: 34, clear: 29 } }, units: null } },
    });
    assert.equal(patched.status, 200);
    assert.deepEqual(patched.body.settings.rules, { 'house.heat': { watch: 31, urgent: 34, clear: 29 } });
    assert.equal(patched.body.settings.units, undefined, 'null removes a member');
    assert.deepEqual(patched.body.settings.contact, { phone: '555' }, 'other members are kept as given');
    const got = await t().request('GET', `/v1/farms/${id}`, { key: acct.live_key });
    assert.deepEqual(got.body, patched.body);
    expectError(
      await t().request('PATCH', `/v1/farms/${id}`, {
        key: acct.live_key,
        body: { timezone: 'Nowhere/Land' },
      }),
      400,
      'invalid_request',
    );
    expectError(
      await t().request('PATCH', `/v1/farms/${id}`, { key: acct.live_key, body: { mode: 'test' } }),
      400,
      'invalid_request',
    );
  });

  test('settings.rules validation names the rule and member; nothing is written on rejection', async () => {
    const acct = await t().sharedAccount();
    const farm = await t().request<Farm>('POST', '/v1/farms', {
      key: acct.live_key,
      body: { name: 'Rules' },
    });
    const url = `/v1/farms/${farm.body.id}`;
    const bad: [unknown, RegExp][] = [
      [{ 'house.unknown': { watch: 1, urgent: 2, clear: 0 } }, /house\.unknown/],
      [{ 'house.heat': { watch: 'hot' } }, /watch/],
      [{ 'house.heat': { watch: 36, urgent: 35, clear: 30 } }, /house\.heat/],
      [{ 'house.heat': { watch: 32, urgent: 35, clear: 33 } }, /house\.heat/],
      [{ 'house.feed': { watch: 15, urgent: 20, clear: 25 } }, /house\.feed/],
      [{ 'house.feed': { watch: 15, urgent: 5, clear: 10 } }, /house\.feed/],
      [{ 'house.heat': { watch: 32, urgent: 35, clear: 30, extra: 1 } }, /extra/],
    ];
    for (const [rules, pattern] of bad) {
      const res = await t().request('PATCH', url, { key: acct.live_key, body: { settings: { rules } } });
      const err = expectError(res, 400, 'invalid_request');
      assert.match(`${err.param} ${err.message}`, pattern, JSON.stringify(rules));
    }
    const unchanged = await t().request<Farm>('GET', url, { key: acct.live_key });
    assert.deepEqual(unchanged.body.settings, {});
    const ok = await t().request<Farm>('PATCH', url, {
      key: acct.live_key,
      body: {
        settings: {
          rules: { 'device.battery': { watch: 20, urgent: null, clear: 30 }, 'house.feed': { watch: 20 } },
        },
      },
    });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
  });

  test('DELETE removes the farm (and what it holds); the sample farm is refused with 409', async () => {
    const acct = await t().sharedAccount();
    const farm = await t().request<Farm>('POST', '/v1/farms', { key: acct.live_key, body: { name: 'Gone' } });
    const del = await t().request('DELETE', `/v1/farms/${farm.body.id}`, { key: acct.live_key });
    assert.equal(del.status, 200);
    assert.deepEqual(del.body, { id: farm.body.id, deleted: true });
    expectError(
      await t().request('GET', `/v1/farms/${farm.body.id}`, { key: acct.live_key }),
      404,
      'not_found',
    );
    const sample = expectError(
      await t().request('DELETE', `/v1/farms/${acct.sample_farm_id}`, { key: acct.test_key }),
      409,
      'conflict',
    );
    assert.match(sample.message, /reset/);
  });

  test('GET /v1/farms/{farm}/brief answers a Brief for a farm the key can see', async () => {
    const acct = await t().sharedAccount();
    const res = await t().request<BriefReply>('GET', `/v1/farms/${acct.sample_farm_id}/brief`, {
      key: acct.test_key,
    });
    assert.equal(res.status, 200);
    assert.equal(typeof res.body.headline, 'string');
    assert.ok(res.body.headline.length > 0);
    assert.ok(
      Array.isArray(res.body.alerts) && Array.isArray(res.body.tasks) && Array.isArray(res.body.houses),
    );
  });

  test('pagination: limit bounds, before, newest first, no overlap within one millisecond', async () => {
    const acct = await t().account();
    const db = t().database.db;
    // 7 farms created in the same millisecond, 5 in later ones.
    const { newId } = await import('../../domain/ids.ts');
    const base = Date.UTC(2026, 0, 1);
    const rows = [];
    for (let i = 0; i < 12; i++) {
      const at = i < 7 ? base : base + i;
      rows.push({
        id: newId('farm', at),
        account_id: acct.account_id,
        name: `F${i}`,
        mode: 'live' as const,
        timezone: 'UTC',
        lat: null,
        lon: null,
        acres: null,
        sample: 0,
        settings: '{}',
        created_at: at,
      });
    }
    await db.insertInto('farms').values(rows).execute();
    for (const limit of [0, 501, -1]) {
      const err = expectError(
        await t().request('GET', `/v1/farms?limit=${limit}`, { key: acct.live_key }),
        400,
        'invalid_request',
      );
      assert.equal(err.param, 'limit');
    }
    expectError(
      await t().request('GET', '/v1/farms?limit=abc', { key: acct.live_key }),
      400,
      'invalid_request',
    );
    expectError(
      await t().request('GET', '/v1/farms?before=yesterday', { key: acct.live_key }),
      400,
      'invalid_request',
    );
    const seen: string[] = [];
    let url = '/v1/farms?limit=3';
    for (let page = 0; page < 10; page++) {
      const res = await t().request<List<Farm>>('GET', url, { key: acct.live_key });
      assert.equal(res.status, 200);
      seen.push(...res.body.data.map((f) => f.id));
      if (!res.body.has_more) {
        assert.equal(res.body.next_before, null);
        break;
      }
      url = `/v1/farms?limit=3&before=${encodeURIComponent(res.body.next_before!)}`;
    }
    assert.equal(seen.length, 12);
    assert.equal(new Set(seen).size, 12, 'no record repeated');
    const expected = [...rows]
      .sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? 1 : -1))
      .map((r) => r.id);
    assert.deepEqual(seen, expected, 'newest first, ties by id');
    const older = await t().request<List<Farm>>(
      'GET',
      `/v1/farms?before=${new Date(base + 1).toISOString()}`,
      {
        key: acct.live_key,
      },
    );
    assert.equal(older.body.data.length, 7, 'a plain ISO time returns records strictly before it');
    const all = await t().request<List<Farm>>('GET', '/v1/farms', { key: acct.live_key });
    assert.equal(all.body.data.length, 12, 'default page size 50');
  });
});
