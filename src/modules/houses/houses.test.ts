import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as make from '../../../test/factories.ts';
import { expectError, forEachEngine } from '../../../test/harness.ts';
import type { HouseReply, List } from '../../../test/replies.ts';

forEachEngine('houses', (t) => {
  test('GET /v1/farms/{farm}/houses: every house with state, latest readings, battery, last_seen_at, recent commands', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const one = await make.device(t(), acct.live_key, farm, { name: 'House 1' });
    const two = await make.device(t(), acct.live_key, farm, { name: 'House 2' });
    await make.device(t(), acct.live_key, farm, { type: 'weather', name: 'Station' });
    await make.report(t(), one.device_key, {
      battery: 76,
      state: { doors: { '5': 'open' } },
      readings: [
        { metric: 'feed.bin_pct', value: 40, at: '2026-05-01T08:00:00Z' },
        { metric: 'feed.bin_pct', value: 38, at: '2026-05-01T09:00:00Z' },
        { metric: 'climate.temp_c', value: 22.5, at: '2026-05-01T09:00:00Z' },
      ],
    });
    for (let i = 0; i < 12; i++) {
      await t().request('POST', `/v1/devices/${one.id}/commands`, {
        key: acct.live_key,
        body: { command: 'feed.dispense', params: { kg: i + 1 } },
      });
    }
    const res = await t().request<List<HouseReply>>('GET', `/v1/farms/${farm}/houses`, {
      key: acct.live_key,
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.has_more, false, 'an ordinary farm is answered whole');
    assert.equal(res.body.next_before, null);
    assert.deepEqual(
      res.body.data.map((h) => h.name),
      ['House 1', 'House 2'],
      'only houses, oldest first',
    );
    const [h1, h2] = res.body.data;
    assert.equal(h1!.id, one.id);
    assert.equal(h1!.battery, 76);
    assert.ok(h1!.last_seen_at);
    assert.equal(h1!.state.doors['5'], 'open');
    assert.equal(h1!.state.move.status, 'stopped');
    assert.deepEqual(h1!.latest_readings, {
      'feed.bin_pct': { metric: 'feed.bin_pct', value: 38, unit: '%', at: '2026-05-01T09:00:00.000Z' },
      'climate.temp_c': { metric: 'climate.temp_c', value: 22.5, unit: '°C', at: '2026-05-01T09:00:00.000Z' },
    });
    assert.equal(h1!.recent_commands.length, 10, 'the last 10 commands');
    assert.deepEqual(
      h1!.recent_commands.map((c) => c.params.kg),
      [12, 11, 10, 9, 8, 7, 6, 5, 4, 3],
      'newest first',
    );
    assert.equal((h1 as Record<string, unknown>).device_key, undefined);
    assert.equal(h2!.id, two.id);
    assert.deepEqual(h2!.latest_readings, {});
    assert.deepEqual(h2!.recent_commands, []);
    assert.equal(h2!.last_seen_at, null);

    const single = await t().request('GET', `/v1/houses/${one.id}`, { key: acct.live_key });
    assert.equal(single.status, 200);
    assert.deepEqual(single.body, h1);
  });

  test('GET /v1/houses/{id} for a device that is not a house is 404', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const station = await make.device(t(), acct.live_key, farm, { type: 'weather', name: 'Station' });
    const err = expectError(
      await t().request('GET', `/v1/houses/${station.id}`, { key: acct.live_key }),
      404,
      'not_found',
    );
    assert.match(err.message, /house/);
    expectError(await t().request('GET', '/v1/houses/dev_missing', { key: acct.live_key }), 404, 'not_found');
    const empty = await t().request('GET', `/v1/farms/${farm}/houses`, { key: acct.live_key });
    assert.deepEqual(empty.body, { data: [], has_more: false, next_before: null });
  });

  test('GET /v1/farms/{farm}/houses pages oldest first: every house exactly once, limit and a bad cursor', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const ids: string[] = [];
    for (let i = 1; i <= 5; i++)
      ids.push((await make.device(t(), acct.live_key, farm, { name: `House ${i}` })).id);
    const seen: string[] = [];
    let before: string | null = null;
    let pages = 0;
    do {
      const query: string = before ? `?limit=2&before=${encodeURIComponent(before)}` : '?limit=2';
      const res = await t().request<List<HouseReply>>('GET', `/v1/farms/${farm}/houses${query}`, {
        key: acct.live_key,
      });
      assert.equal(res.status, 200);
      assert.ok(res.body.data.length <= 2);
      seen.push(...res.body.data.map((h) => h.id));
      before = res.body.has_more ? res.body.next_before : null;
      pages++;
    } while (before);
    assert.deepEqual(seen, ids, 'every house once, oldest first');
    assert.equal(pages, 3);
    expectError(
      await t().request('GET', `/v1/farms/${farm}/houses?limit=0`, { key: acct.live_key }),
      400,
      'invalid_request',
    );
    const bad = expectError(
      await t().request('GET', `/v1/farms/${farm}/houses?before=yesterday`, { key: acct.live_key }),
      400,
      'invalid_request',
    );
    assert.equal(bad.param, 'before');
  });

  test("a page of houses ends within 2 MiB counting each house's state and recent commands", async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const big = 'x'.repeat(60 * 1024);
    const ids: string[] = [];
    for (let i = 1; i <= 4; i++) {
      const house = await make.device(t(), acct.live_key, farm, { name: `House ${i}` });
      ids.push(house.id);
      // Ten commands each answered with a 60 KiB result: 600 KiB of command text per house, none of state.
      for (let c = 0; c < 10; c++) {
        const queued = await t().request<{ id: string }>('POST', `/v1/devices/${house.id}/commands`, {
          key: acct.live_key,
          body: { command: 'move.stop' },
        });
        assert.equal(queued.status, 201);
        const polled = await t().request('GET', '/v1/device/commands', { key: house.device_key });
        assert.equal(polled.status, 200);
        const done = await t().request('POST', `/v1/device/commands/${queued.body.id}`, {
          key: house.device_key,
          body: { status: 'done', result: { note: big } },
        });
        assert.equal(done.status, 200, JSON.stringify(done.body));
      }
    }
    const first = await t().request<List<HouseReply>>('GET', `/v1/farms/${farm}/houses`, {
      key: acct.live_key,
    });
    assert.equal(first.status, 200);
    assert.equal(first.body.has_more, true, '4 × 600 KiB of commands pass the 2 MiB budget');
    assert.equal(first.body.data.length, 3);
    assert.equal(first.body.data[0]!.recent_commands.length, 10);
    const rest = await t().request<List<HouseReply>>(
      'GET',
      `/v1/farms/${farm}/houses?before=${encodeURIComponent(first.body.next_before!)}`,
      { key: acct.live_key },
    );
    assert.equal(rest.body.has_more, false);
    assert.deepEqual(
      [...first.body.data, ...rest.body.data].map((h) => h.id),
      ids,
    );
  });
});
