import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as make from '../../../test/factories.ts';
import { expectError, forEachEngine } from '../../../test/harness.ts';
import type { HouseReply, Items } from '../../../test/replies.ts';

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
    const res = await t().request<Items<HouseReply>>('GET', `/v1/farms/${farm}/houses`, {
      key: acct.live_key,
    });
    assert.equal(res.status, 200);
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
    assert.deepEqual(empty.body, { data: [] });
  });
});
