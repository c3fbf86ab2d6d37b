/**
 * Device positions: every lat/lon a report carries is kept (HTTP, MQTT, reports grouped into one statement
 * on PostgreSQL), a report without one costs no statement, the track pages like readings and thins long
 * ranges to `limit` points, and retention prunes positions with the readings' setting.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as make from '../../../test/factories.ts';
import { expectError, forEachEngine, type TestApp, waitFor } from '../../../test/harness.ts';
import { connectDevice, forEachMqttEngine } from '../../../test/mqtt.ts';
import { StatementCounter } from '../../../test/statement-counter.ts';
import type { Db } from '../../db/schema.ts';
import { ingestReport } from '../ingest/service.ts';
import { topics } from '../mqtt/topics.ts';
import type { Track } from './schemas.ts';
import { removeOldPositions, thinningStep } from './service.ts';

async function positionsOf(t: { database: { db: Db } }, deviceId: string) {
  return t.database.db
    .selectFrom('device_positions')
    .select(['lat', 'lon', 'at', 'farm_id'])
    .where('device_id', '=', deviceId)
    .orderBy('at')
    .execute();
}

const DAY = 86_400_000;
const ORIGIN = Date.UTC(2026, 9, 1);

/** `n` reports through the ingest service, one every `everyMs` from ORIGIN, walking east. */
async function walk(t: TestApp, deviceId: string, n: number, everyMs: number, from = ORIGIN) {
  for (let i = 0; i < n; i++) {
    await ingestReport(
      t.database.db,
      { deviceId },
      { lat: 38.95, lon: -92.34 + i * 1e-5 },
      from + i * everyMs,
    );
  }
}

/**
 * The positions `walk` would store, written in one statement: for the track's reading tests, which need
 * many (the tests above hold that ingest keeps every position a report carries; a thousand reports through
 * it one by one cost seconds of a test run).
 */
async function storedWalk(t: TestApp, device: { id: string; farm_id: string }, n: number, everyMs: number) {
  const rows = Array.from({ length: n }, (_, i) => ({
    device_id: device.id,
    farm_id: device.farm_id,
    lat: 38.95,
    lon: -92.34 + i * 1e-5,
    at: ORIGIN + i * everyMs,
  }));
  await t.database.db.insertInto('device_positions').values(rows).execute();
}

test('the thinning step keeps at most limit points, first and last included', () => {
  for (const [count, limit] of [
    [1000, 100],
    [1001, 100],
    [999, 100],
    [10, 3],
    [5, 2],
    [100_000, 500],
  ] as const) {
    const step = thinningStep(count, limit);
    const kept = new Set<number>();
    for (let i = 0; i < count; i += step) kept.add(i);
    kept.add(count - 1);
    assert.ok(kept.size <= limit, `${count}/${limit}: ${kept.size}`);
    assert.ok(kept.size >= limit / 2, `${count}/${limit}: ${kept.size} is not too few`);
    assert.ok(kept.has(0) && kept.has(count - 1));
  }
  assert.equal(thinningStep(50, 100), 1, 'no thinning when they fit');
});

forEachEngine('device positions', (t) => {
  test('every reported lat/lon is kept with its time over HTTP, the same position again too; a report without none', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const tracker = await make.device(t(), acct.live_key, farm, { type: 'tag', name: 'Collar' });
    assert.equal((await make.report(t(), tracker.device_key, { lat: 38.951, lon: -92.335 })).status, 200);
    assert.equal((await make.report(t(), tracker.device_key, { lat: 38.951, lon: -92.335 })).status, 200);
    assert.equal((await make.report(t(), tracker.device_key, { battery: 80 })).status, 200);
    // Half a position is refused: beside the other half of the last it would be a place never reported.
    expectError(await make.report(t(), tracker.device_key, { lat: 38.952 }), 400, 'invalid_request');
    const rows = await positionsOf(t(), tracker.id);
    assert.equal(rows.length, 2, 'a repeated position is kept; none without one');
    assert.deepEqual(
      rows.map((r) => [r.lat, r.lon, r.farm_id]),
      [
        [38.951, -92.335, farm],
        [38.951, -92.335, farm],
      ],
    );
    const device = await make.fetched<{ lat: number; last_seen_at: string }>(
      t(),
      acct.live_key,
      `/v1/devices/${tracker.id}`,
    );
    assert.equal(device.lat, 38.951, 'the device keeps its whole position');
    const track = await t().request<Track>('GET', `/v1/devices/${tracker.id}/track`, { key: acct.live_key });
    assert.equal(track.status, 200);
    assert.deepEqual(
      track.body.data.map((p) => [p.lat, p.lon, p.at]),
      [...rows].reverse().map((r) => [r.lat, r.lon, new Date(r.at).toISOString()]),
      'newest first',
    );
    assert.equal(track.body.has_more, false);
  });

  test('a report without a position runs no statement for one; with one, SQLite runs one more and PostgreSQL none', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const device = await make.device(t(), acct.live_key, farm, { type: 'tag', name: 'T' });
    const counter = new StatementCounter();
    const db = t().database.db.withPlugin(counter);
    const report = async (minutes: number, body: Record<string, unknown>) => {
      counter.count = 0;
      const at = ORIGIN + minutes * 60_000;
      const reading = { metric: 'battery.pct', value: 90, at: new Date(at).toISOString() };
      await ingestReport(db, { deviceId: device.id }, { readings: [reading], ...body }, at);
      return counter.count;
    };
    await report(0, {});
    const plain = await report(1, {});
    // The first position also places the device in a paddock (docs/grazing.md); the same position again
    // places nothing, so the second report counts the position's own storing alone.
    await report(2, { lat: 38.95, lon: -92.33 });
    const stored = await report(3, { lat: 38.95, lon: -92.33 });
    const again = await report(4, {});
    assert.equal(again, plain);
    assert.equal(
      stored,
      t().engine === 'sqlite' ? plain + 1 : plain,
      'PostgreSQL folds it into the report statement',
    );
    assert.equal((await positionsOf(t(), device.id)).length, 2);
  });

  test('reports arriving together (one grouped statement on PostgreSQL) each keep their own position', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const devices = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        make.device(t(), acct.live_key, farm, { type: 'tag', name: `T${i}` }),
      ),
    );
    const replies = await Promise.all(
      devices.map((d, i) =>
        make.report(t(), d.device_key, i % 2 ? { battery: 50 } : { lat: 38 + i / 100, lon: -92 - i / 100 }),
      ),
    );
    for (const r of replies) assert.equal(r.status, 200);
    for (const [i, d] of devices.entries()) {
      const rows = await positionsOf(t(), d.id);
      assert.deepEqual(
        rows.map((r) => [r.lat, r.lon]),
        i % 2 ? [] : [[38 + i / 100, -92 - i / 100]],
        d.name,
      );
    }
  });

  test('a long range is thinned to limit points, first and last kept, evenly spaced; pages otherwise', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const house = await make.device(t(), acct.live_key, farm, { name: 'House 1' });
    // A week of a report every 10 minutes: 1,008 positions.
    await storedWalk(t(), house, 1008, 600_000);
    const key = acct.live_key;
    const url = `/v1/devices/${house.id}/track`;
    const since = new Date(ORIGIN).toISOString();
    const week = await t().request<Track>('GET', `${url}?since=${since}&limit=100`, { key });
    assert.equal(week.status, 200, JSON.stringify(week.body));
    const points = week.body.data;
    assert.equal(week.body.thinned, true);
    assert.equal(week.body.has_more, false);
    assert.ok(points.length <= 100 && points.length >= 90, String(points.length));
    assert.equal(points[0]?.at, new Date(ORIGIN + 1007 * 600_000).toISOString(), 'the newest is kept');
    assert.equal(points.at(-1)?.at, new Date(ORIGIN).toISOString(), 'the oldest is kept');
    const gaps = points.slice(1).map((p, i) => Date.parse(points[i]?.at ?? '') - Date.parse(p.at));
    assert.deepEqual(
      [...new Set(gaps.slice(1))],
      [11 * 600_000],
      'evenly spaced from the oldest: every 11th report (step ⌈1007/99⌉)',
    );
    assert.ok((gaps[0] ?? 0) <= 11 * 600_000, 'then the newest');

    const day = await t().request<Track>(
      'GET',
      `${url}?since=${since}&until=${new Date(ORIGIN + DAY - 1).toISOString()}&limit=500`,
      { key },
    );
    assert.equal(day.body.data.length, 144, 'a day fits: every position');
    assert.equal(day.body.thinned, false);

    // Pages, newest first, without thinning: every position once.
    const seen: string[] = [];
    let before: string | null = null;
    for (let i = 0; i < 20; i++) {
      const query: string = `?limit=300${before ? `&before=${encodeURIComponent(before)}` : ''}`;
      const page: Track = (await t().request<Track>('GET', `${url}${query}`, { key })).body;
      seen.push(...page.data.map((p) => p.at));
      if (!page.has_more) break;
      before = page.next_before;
    }
    assert.equal(seen.length, 1008);
    assert.equal(new Set(seen).size, 1008);
    assert.deepEqual(seen, [...seen].sort().reverse());
    const raw = await t().request<Track>('GET', `${url}?since=${since}&thin=false&limit=200`, { key });
    assert.equal(raw.body.data.length, 200);
    assert.equal(raw.body.has_more, true);

    for (const [query, param] of [
      ['?limit=0', 'limit'],
      ['?since=yesterday', 'since'],
      [`?since=${since}&until=2020-01-01T00:00:00Z`, 'until'],
      ['?before=soon', 'before'],
    ]) {
      const err = expectError(await t().request('GET', `${url}${query}`, { key }), 400, 'invalid_request');
      assert.equal(err.param, param, query);
    }
    const other = await t().account('Other');
    expectError(await t().request('GET', url, { key: other.live_key }), 404, 'not_found');
  });

  test('retention removes positions older than the cutoff, in batches, and keeps the rest', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const old = await make.device(t(), acct.live_key, farm, { type: 'tag', name: 'Old' });
    await walk(t(), old.id, 30, DAY);
    const cutoff = ORIGIN + 20 * DAY;
    const removed = await removeOldPositions(t().database.db, cutoff, { batchRows: 7 });
    assert.ok(removed >= 20, String(removed));
    const left = await positionsOf(t(), old.id);
    assert.equal(left.length, 10);
    assert.ok(left.every((p) => p.at >= cutoff));
    // The device's own last position stays on its row.
    const device = await make.fetched<{ lat: number | null }>(t(), acct.live_key, `/v1/devices/${old.id}`);
    assert.equal(device.lat, 38.95);
  });
});

forEachMqttEngine('device positions over MQTT', (t) => {
  test('a position reported over MQTT is kept like one over HTTP', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const device = await make.device(t(), acct.live_key, farm, { type: 'tag', name: 'Collar' });
    const d = await connectDevice(`mqtt://127.0.0.1:${t().mqttPort}`, device.id, device.device_key);
    await d.client.subscribeAsync(topics.reportResult(device.id), { qos: 1 });
    await d.client.publishAsync(topics.report(device.id), JSON.stringify({ lat: 38.9531, lon: -92.3312 }), {
      qos: 1,
    });
    await d.next(topics.reportResult(device.id));
    await d.end();
    const rows = await waitFor('the position', async () => {
      const found = await positionsOf(t(), device.id);
      return found.length > 0 ? found : null;
    });
    assert.deepEqual(
      rows.map((r) => [r.lat, r.lon]),
      [[38.9531, -92.3312]],
    );
  });
});
