import assert from 'node:assert/strict';
import { test } from 'node:test';
import { expectError, forEachEngine } from '../../../test/harness.ts';
import { addDevice, createLiveFarm, report } from '../devices/test-helpers.ts';
import { latestReadings } from './service.ts';

const at = (minute: number) => new Date(Date.UTC(2026, 4, 1, 8, minute)).toISOString();

forEachEngine('readings', (t) => {
  test('GET /v1/devices/{id}/readings: newest first, filtered by metric and since, bounded by limit', async () => {
    const acct = await t().account();
    const farm = await createLiveFarm(t(), acct.live_key);
    const house = await addDevice(t(), acct.live_key, farm);
    await report(t(), house.device_key, {
      readings: [
        { metric: 'feed.bin_pct', value: 80, at: at(0) },
        { metric: 'climate.temp_c', value: 18.5, at: at(1) },
        { metric: 'feed.bin_pct', value: 78, at: at(10) },
        { metric: 'climate.temp_c', value: 21, at: at(11) },
      ],
    });
    await report(t(), house.device_key, { readings: [{ metric: 'feed.bin_pct', value: 75, at: at(20) }] });
    const url = `/v1/devices/${house.id}/readings`;
    const all = await t().request('GET', url, { key: acct.live_key });
    assert.equal(all.status, 200);
    assert.deepEqual(
      all.body.data.map((r: any) => [r.metric, r.value, r.at]),
      [
        ['feed.bin_pct', 75, at(20)],
        ['climate.temp_c', 21, at(11)],
        ['feed.bin_pct', 78, at(10)],
        ['climate.temp_c', 18.5, at(1)],
        ['feed.bin_pct', 80, at(0)],
      ],
    );
    assert.deepEqual(all.body.data[0], { metric: 'feed.bin_pct', value: 75, unit: '%', at: at(20) });
    assert.equal(all.body.has_more, false);
    const feed = await t().request('GET', `${url}?metric=feed.bin_pct`, { key: acct.live_key });
    assert.deepEqual(
      feed.body.data.map((r: any) => r.value),
      [75, 78, 80],
    );
    const since = await t().request('GET', `${url}?since=${encodeURIComponent(at(10))}`, {
      key: acct.live_key,
    });
    assert.deepEqual(
      since.body.data.map((r: any) => r.value),
      [75, 21, 78],
      'since is inclusive',
    );
    const limited = await t().request('GET', `${url}?metric=feed.bin_pct&limit=2`, { key: acct.live_key });
    assert.deepEqual(
      limited.body.data.map((r: any) => r.value),
      [75, 78],
    );
    assert.equal(limited.body.has_more, true);
    for (const query of ['limit=0', 'limit=501', 'limit=x', 'since=yesterday', 'colour=red']) {
      expectError(
        await t().request('GET', `${url}?${query}`, { key: acct.live_key }),
        400,
        'invalid_request',
      );
    }
    const none = await t().request('GET', `${url}?metric=water.tank_pct`, { key: acct.live_key });
    assert.deepEqual(none.body.data, []);
  });

  test('the latest value per metric moves only forward in time', async () => {
    const acct = await t().account();
    const farm = await createLiveFarm(t(), acct.live_key);
    const house = await addDevice(t(), acct.live_key, farm);
    const quiet = await addDevice(t(), acct.live_key, farm, { name: 'Quiet' });
    await report(t(), house.device_key, {
      readings: [
        { metric: 'feed.bin_pct', value: 60, at: at(30) },
        { metric: 'feed.bin_pct', value: 58, at: at(31) },
        { metric: 'feed.bin_pct', value: 59, at: at(29) },
        { metric: 'water.tank_pct', value: 90, at: at(30) },
      ],
    });
    // A late report carrying older values must not replace newer ones.
    await report(t(), house.device_key, {
      readings: [
        { metric: 'feed.bin_pct', value: 99, at: at(5) },
        { metric: 'water.tank_pct', value: 88, at: at(40) },
      ],
    });
    const latest = await latestReadings(t().database.db, [house.id, quiet.id]);
    assert.deepEqual(latest[house.id], {
      'feed.bin_pct': { metric: 'feed.bin_pct', value: 58, unit: '%', at: at(31) },
      'water.tank_pct': { metric: 'water.tank_pct', value: 88, unit: '%', at: at(40) },
    });
    assert.deepEqual(latest[quiet.id], {}, 'a device that never reported has no latest values');
  });
});
