import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as make from '../../../test/factories.ts';
import { expectError, forEachEngine } from '../../../test/harness.ts';
import type { List, Reading } from '../../../test/replies.ts';
import { latestReadings } from './service.ts';

const at = (minute: number) => new Date(Date.UTC(2026, 4, 1, 8, minute)).toISOString();

forEachEngine('readings', (t) => {
  test('GET /v1/devices/{id}/readings: newest first, filtered by metric and since, bounded by limit', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const house = await make.device(t(), acct.live_key, farm);
    await make.report(t(), house.device_key, {
      readings: [
        { metric: 'feed.bin_pct', value: 80, at: at(0) },
        { metric: 'climate.temp_c', value: 18.5, at: at(1) },
        { metric: 'feed.bin_pct', value: 78, at: at(10) },
        { metric: 'climate.temp_c', value: 21, at: at(11) },
      ],
    });
    await make.report(t(), house.device_key, {
      readings: [{ metric: 'feed.bin_pct', value: 75, at: at(20) }],
    });
    const url = `/v1/devices/${house.id}/readings`;
    const all = await t().request<List<Reading>>('GET', url, { key: acct.live_key });
    assert.equal(all.status, 200);
    assert.deepEqual(
      all.body.data.map((r) => [r.metric, r.value, r.at]),
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
    const feed = await t().request<List<Reading>>('GET', `${url}?metric=feed.bin_pct`, {
      key: acct.live_key,
    });
    assert.deepEqual(
      feed.body.data.map((r) => r.value),
      [75, 78, 80],
    );
    const since = await t().request<List<Reading>>('GET', `${url}?since=${encodeURIComponent(at(10))}`, {
      key: acct.live_key,
    });
    assert.deepEqual(
      since.body.data.map((r) => r.value),
      [75, 21, 78],
      'since is inclusive',
    );
    const limited = await t().request<List<Reading>>('GET', `${url}?metric=feed.bin_pct&limit=2`, {
      key: acct.live_key,
    });
    assert.deepEqual(
      limited.body.data.map((r) => r.value),
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
    const none = await t().request<List<Reading>>('GET', `${url}?metric=water.tank_pct`, {
      key: acct.live_key,
    });
    assert.deepEqual(none.body.data, []);
  });

  test('the latest value per metric moves only forward in time', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const house = await make.device(t(), acct.live_key, farm);
    const quiet = await make.device(t(), acct.live_key, farm, { name: 'Quiet' });
    await make.report(t(), house.device_key, {
      readings: [
        { metric: 'feed.bin_pct', value: 60, at: at(30) },
        { metric: 'feed.bin_pct', value: 58, at: at(31) },
        { metric: 'feed.bin_pct', value: 59, at: at(29) },
        { metric: 'water.tank_pct', value: 90, at: at(30) },
      ],
    });
    // A late report carrying older values must not replace newer ones.
    await make.report(t(), house.device_key, {
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

  test('interval and agg: one point per metric and bucket, computed by the database, newest bucket first', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const house = await make.device(t(), acct.live_key, farm);
    const atS = (minute: number, second: number) =>
      new Date(Date.UTC(2026, 4, 1, 8, minute, second)).toISOString();
    // Sent out of time order on purpose: `last` must follow `at`, not arrival.
    const res = await make.report(t(), house.device_key, {
      readings: [
        { metric: 'climate.temp_c', value: 20, at: atS(0, 50) },
        { metric: 'climate.temp_c', value: 10, at: atS(0, 0) },
        { metric: 'climate.temp_c', value: 30, at: atS(0, 30) },
        { metric: 'climate.temp_c', value: 5, at: atS(2, 59) },
        { metric: 'climate.temp_c', value: 7, at: atS(2, 1) },
        { metric: 'water.tank_pct', value: 90, at: atS(0, 10) },
        { metric: 'water.tank_pct', value: 80, at: atS(7, 0) },
      ],
    });
    assert.equal(res.status, 200);
    const url = `/v1/devices/${house.id}/readings`;
    const get = (query: string) =>
      t().request<List<Reading>>('GET', `${url}?${query}`, { key: acct.live_key });
    const points = async (query: string) => {
      const r = await get(query);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.data.map((p) => [p.metric, p.value, p.unit, p.at]);
    };
    const temp = 'metric=climate.temp_c&interval=1m';
    assert.deepEqual(await points(`${temp}&agg=avg`), [
      ['climate.temp_c', 6, '°C', atS(2, 0)],
      ['climate.temp_c', 20, '°C', atS(0, 0)],
    ]);
    assert.deepEqual(await points(temp), await points(`${temp}&agg=avg`), 'agg defaults to avg');
    assert.deepEqual(
      (await points(`${temp}&agg=min`)).map((p) => p[1]),
      [5, 10],
    );
    assert.deepEqual(
      (await points(`${temp}&agg=max`)).map((p) => p[1]),
      [7, 30],
    );
    assert.deepEqual(
      (await points(`${temp}&agg=sum`)).map((p) => p[1]),
      [12, 60],
    );
    assert.deepEqual(await points(`${temp}&agg=count`), [
      ['climate.temp_c', 2, null, atS(2, 0)],
      ['climate.temp_c', 3, null, atS(0, 0)],
    ]);
    assert.deepEqual(
      (await points(`${temp}&agg=last`)).map((p) => p[1]),
      [5, 20],
    );
    // 5-minute buckets, every metric: ordered by bucket (newest first), then metric.
    assert.deepEqual(await points('interval=5m&agg=max'), [
      ['water.tank_pct', 80, '%', atS(5, 0)],
      ['climate.temp_c', 30, '°C', atS(0, 0)],
      ['water.tank_pct', 90, '%', atS(0, 0)],
    ]);
    assert.deepEqual(await points('interval=1h&agg=count'), [
      ['climate.temp_c', 5, null, atS(0, 0)],
      ['water.tank_pct', 2, null, atS(0, 0)],
    ]);
    // since and before bound the readings that go into the buckets.
    assert.deepEqual(
      await points(
        `metric=climate.temp_c&interval=1h&agg=count&since=${encodeURIComponent(atS(0, 30))}&before=${encodeURIComponent(atS(2, 59))}`,
      ),
      [['climate.temp_c', 3, null, atS(0, 0)]],
    );
    // Paging: limit counts points; has_more says older buckets remain; before continues.
    const first = await get(`${temp}&agg=last&limit=1`);
    assert.equal(first.body.has_more, true);
    assert.deepEqual(
      first.body.data.map((p) => p.value),
      [5],
    );
    const next = await get(`${temp}&agg=last&limit=1&before=${encodeURIComponent(first.body.data[0]!.at)}`);
    assert.deepEqual(
      next.body.data.map((p) => p.value),
      [20],
    );
    assert.equal(next.body.has_more, false);
  });

  test('daily buckets are UTC days, also before 1970', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const house = await make.device(t(), acct.live_key, farm);
    await make.report(t(), house.device_key, {
      readings: [
        { metric: 'weather.rain_mm', value: 1, at: '2026-05-01T23:59:59.999Z' },
        { metric: 'weather.rain_mm', value: 2, at: '2026-05-02T00:00:00.000Z' },
        { metric: 'weather.rain_mm', value: 4, at: '2026-05-02T13:00:00+02:00' },
        { metric: 'weather.rain_mm', value: 8, at: '1969-12-31T18:00:00.000Z' },
      ],
    });
    const res = await t().request<List<Reading>>(
      'GET',
      `/v1/devices/${house.id}/readings?interval=1d&agg=sum`,
      {
        key: acct.live_key,
      },
    );
    assert.deepEqual(
      res.body.data.map((p) => [p.at, p.value]),
      [
        ['2026-05-02T00:00:00.000Z', 6],
        ['2026-05-01T00:00:00.000Z', 1],
        ['1969-12-31T00:00:00.000Z', 8],
      ],
    );
  });

  test('interval and agg are checked: agg needs an interval, only the listed names', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const house = await make.device(t(), acct.live_key, farm);
    const url = `/v1/devices/${house.id}/readings`;
    const cases: [string, string][] = [
      ['agg=avg', 'agg'],
      ['interval=2m', 'interval'],
      ['interval=1h&agg=median', 'agg'],
      ['interval=1h&before=soon', 'before'],
    ];
    for (const [query, param] of cases) {
      const error = expectError(
        await t().request('GET', `${url}?${query}`, { key: acct.live_key }),
        400,
        'invalid_request',
      );
      assert.equal(error.param, param, query);
    }
    const other = await t().account();
    expectError(await t().request('GET', `${url}?interval=1h`, { key: other.live_key }), 404, 'not_found');
  });

  test('reading values are stored exactly, whatever their magnitude up to ±1e15', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const house = await make.device(t(), acct.live_key, farm);
    const values = [0.30000000000000004, 1e-300, -273.15, 123456789.12345679, 2 ** 49, -0.5, -1e15];
    const res = await make.report(t(), house.device_key, {
      readings: values.map((value, i) => ({
        metric: 'x.exact',
        value,
        unit: i % 2 ? 'u' : undefined,
        at: at(i),
      })),
    });
    assert.equal(res.body.accepted, values.length);
    const list = await t().request<List<Reading>>('GET', `/v1/devices/${house.id}/readings?metric=x.exact`, {
      key: acct.live_key,
    });
    assert.deepEqual(
      list.body.data.map((r) => [r.value, r.unit]).reverse(),
      values.map((value, i) => [value, i % 2 ? 'u' : null]),
    );
  });

  test('a 1,000-reading report is stored whole', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const house = await make.device(t(), acct.live_key, farm);
    const base = Date.UTC(2026, 4, 1);
    const res = await make.report(t(), house.device_key, {
      readings: Array.from({ length: 1000 }, (_, i) => ({
        metric: `m.${i % 10}`,
        value: i,
        at: new Date(base + i * 1000).toISOString(),
      })),
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.accepted, 1000);
    const counted = await t().request<List<Reading>>(
      'GET',
      `/v1/devices/${house.id}/readings?interval=1d&agg=count`,
      {
        key: acct.live_key,
      },
    );
    assert.deepEqual(
      counted.body.data.map((p) => p.value),
      Array(10).fill(100),
    );
    const sum = await t().request<List<Reading>>(
      'GET',
      `/v1/devices/${house.id}/readings?interval=1d&agg=sum&metric=m.3`,
      {
        key: acct.live_key,
      },
    );
    assert.equal(sum.body.data[0]!.value, (3 + 993) * 50);
  });

  /** Every page of a readings query followed through next_before; checks each page holds exactly `limit`. */
  async function allPages(
    url: string,
    key: string,
    query: string,
    limit: number,
    firstBefore: string | null = null,
  ): Promise<string[][]> {
    const pages: string[][] = [];
    let before: string | null = firstBefore;
    for (let guard = 0; guard < 50; guard++) {
      const q = `${query}&limit=${limit}${before ? `&before=${encodeURIComponent(before)}` : ''}`;
      const res = await t().request<List<Reading>>('GET', `${url}?${q}`, { key });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      pages.push(res.body.data.map((r) => `${r.metric}@${r.at.slice(14, 16)}=${r.value}`));
      if (res.body.has_more) assert.equal(res.body.data.length, limit, 'a page that is not the last is full');
      else {
        assert.equal(res.body.next_before, null);
        break;
      }
      before = res.body.next_before;
      assert.ok(before);
    }
    return pages;
  }

  test('paging with next_before: exact limit, nothing skipped or repeated when readings share a millisecond', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const house = await make.device(t(), acct.live_key, farm);
    // A house reports 13 metrics at once, twice; one metric is reported twice in one millisecond.
    const metrics = Array.from({ length: 13 }, (_, i) => `m.${String(i).padStart(2, '0')}`);
    const sample = (minute: number) => metrics.map((metric, i) => ({ metric, value: i, at: at(minute) }));
    await make.report(t(), house.device_key, { readings: [...sample(5), ...sample(4)] });
    await make.report(t(), house.device_key, { readings: [{ metric: 'm.00', value: 0, at: at(4) }] });
    const url = `/v1/devices/${house.id}/readings`;
    const everything = (await allPages(url, acct.live_key, '', 500)).flat();
    assert.equal(everything.length, 27);
    for (const limit of [10, 2, 1, 13, 26]) {
      const pages = await allPages(url, acct.live_key, '', limit);
      assert.deepEqual(pages.flat(), everything, `limit=${limit}`);
    }
    const first = await t().request<List<Reading>>('GET', `${url}?limit=2`, { key: acct.live_key });
    assert.equal(first.body.data.length, 2, 'limit=2 returns 2');
    // A plain ISO time still pages: readings strictly before it.
    const older = await t().request<List<Reading>>(
      'GET',
      `${url}?limit=500&before=${encodeURIComponent(at(5))}`,
      {
        key: acct.live_key,
      },
    );
    assert.equal(older.body.data.length, 14);
    for (const bad of ['yesterday', `${at(5)}~x`, `${at(5)}~-1`, `${at(5)}~9999999`]) {
      const error = expectError(
        await t().request('GET', `${url}?before=${encodeURIComponent(bad)}`, { key: acct.live_key }),
        400,
        'invalid_request',
      );
      assert.equal(error.param, 'before', bad);
    }
  });

  test('aggregated points page with next_before too, with exact limit and whole buckets', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const house = await make.device(t(), acct.live_key, farm);
    const reading = (metric: string, minute: number) => ({ metric, value: minute, at: at(minute) });
    await make.report(t(), house.device_key, {
      readings: [
        reading('a', 5),
        reading('b', 5),
        reading('a', 4),
        reading('b', 4),
        reading('c', 4),
        reading('a', 3),
        reading('b', 3),
      ],
    });
    const url = `/v1/devices/${house.id}/readings`;
    const whole = (await allPages(url, acct.live_key, 'interval=1m&agg=count', 500)).flat();
    assert.deepEqual(whole, ['a@05=1', 'b@05=1', 'a@04=1', 'b@04=1', 'c@04=1', 'a@03=1', 'b@03=1']);
    for (const limit of [1, 2, 3, 4]) {
      assert.deepEqual(
        (await allPages(url, acct.live_key, 'interval=1m&agg=count', limit)).flat(),
        whole,
        `limit=${limit}`,
      );
    }
    // A page bounded inside a bucket keeps that bucket's points bounded the same way on the next page.
    assert.deepEqual((await allPages(url, acct.live_key, 'interval=1h&agg=count', 1, at(5))).flat(), [
      'a@00=2',
      'b@00=2',
      'c@00=1',
    ]);
  });
});
