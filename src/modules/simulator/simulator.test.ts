import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import * as make from '../../../test/factories.ts';
import { ENGINES } from '../../../test/harness.ts';
import { startMqttTestApp } from '../../../test/mqtt.ts';
import type { Alert, Command, Device, HouseReply, Items, List, Reading } from '../../../test/replies.ts';
import { runSimulation } from './run.ts';

for (const transport of ['mqtt', 'http'] as const) {
  test(`the simulator runs a few simulated hours over ${transport}: readings, alerts and answered commands`, async () => {
    const t = await startMqttTestApp(ENGINES[0] ?? 'sqlite');
    try {
      const acct = await t.account();
      const farm = (await make.farm(t, acct.live_key, { name: 'Simulated Farm' })).id;
      let queued: string | null = null;
      const status = await runSimulation({
        url: t.httpUrl,
        apiKey: acct.live_key,
        farmId: farm,
        devices: 9,
        transport,
        everyMs: 40,
        speed: 45_000, // 30 simulated minutes a report
        startAt: Date.UTC(2026, 5, 1, 21, 0),
        hours: 6,
        onStatus: (s) => {
          if (s.reports < 18 || queued) return;
          queued = 'pending';
          void t
            .request<Items<HouseReply>>('GET', `/v1/farms/${farm}/houses`, { key: acct.live_key })
            .then((houses) =>
              t.request<Command>('POST', `/v1/devices/${houses.body.data[0]!.id}/commands`, {
                key: acct.live_key,
                body: { command: 'lights.set', params: { mode: 'on' } },
              }),
            )
            .then((res) => {
              queued = res.body.id;
            });
        },
      });
      assert.equal(status.errors, 0, status.lastError ?? '');
      assert.ok(status.reports >= 9 * 12, `reports: ${status.reports}`);
      assert.equal(status.commandsAnswered, 1);

      const devices = await t.request<List<Device>>('GET', `/v1/farms/${farm}/devices?limit=100`, {
        key: acct.live_key,
      });
      assert.equal(devices.body.data.length, 9, 'one device of every type');
      assert.deepEqual(new Set(devices.body.data.map((d) => d.type)).size, 9);
      const house = devices.body.data.find((d) => d.type === 'house')!;
      const readings = await t.request<List<Reading>>(
        'GET',
        `/v1/devices/${house.id}/readings?metric=climate.nh3_ppm&limit=500`,
        {
          key: acct.live_key,
        },
      );
      assert.ok(readings.body.data.length >= 12);
      const alerts = await t.request<List<Alert>>('GET', `/v1/farms/${farm}/alerts?status=all`, {
        key: acct.live_key,
      });
      assert.ok(
        alerts.body.data.some((a) => a.rule === 'house.ammonia'),
        'ammonia builds up in a closed house overnight',
      );
      const history = await t.request<List<Command>>('GET', `/v1/devices/${house.id}/commands`, {
        key: acct.live_key,
      });
      assert.equal(history.body.data[0]!.id, queued);
      assert.equal(history.body.data[0]!.status, 'done');
      const after = await t.request<Device>('GET', `/v1/devices/${house.id}`, { key: acct.live_key });
      assert.equal(after.body.state.lights, 'on', "the house's state changed as the command said");
    } finally {
      await t.close();
    }
  });
}

// The two engines at once: each run waits out about 3 s of real time, so together they take the time of one.
describe('two fast runs on each engine', { concurrency: true }, () => {
  for (const engine of ENGINES) {
    test(`[${engine}] two fast runs (--speed 3600) one after the other both raise alerts, and neither reports a time in the future`, async () => {
      const t = await startMqttTestApp(engine);
      try {
        const acct = await t.account();
        const farm = (await make.farm(t, acct.live_key, { name: 'Twice Simulated' })).id;
        // An evening two days ago: the houses are shut for the night and their ammonia builds up.
        const day = 86_400_000;
        const evening = Math.floor(Date.now() / day) * day - 2 * day + 20 * 3_600_000;
        const run = async () => {
          const began = Date.now();
          const status = await runSimulation({
            url: t.httpUrl,
            apiKey: acct.live_key,
            farmId: farm,
            devices: 9,
            transport: 'http',
            everyMs: 200,
            speed: 3_600,
            startAt: evening,
            hours: 3,
          });
          assert.equal(status.errors, 0, status.lastError ?? '');
          const ended = Date.now();
          // 3 s of real time at 3600×, with room for a busy machine; a run that never caught up would take hours.
          assert.ok(ended - began < 60_000, `3 simulated hours at 3600× took ${ended - began} ms`);
          const alerts = await t.request<List<Alert>>(
            'GET',
            `/v1/farms/${farm}/alerts?status=all&limit=500`,
            {
              key: acct.live_key,
            },
          );
          const raised = alerts.body.data.filter((a) => Date.parse(a.created_at) >= began);
          const devices = await t.request<List<Device>>('GET', `/v1/farms/${farm}/devices?limit=100`, {
            key: acct.live_key,
          });
          for (const device of devices.body.data) {
            const newest = await t.request<List<Reading>>(
              'GET',
              `/v1/devices/${device.id}/readings?limit=1`,
              {
                key: acct.live_key,
              },
            );
            const at = newest.body.data[0]?.at;
            assert.ok(
              at === undefined || Date.parse(at) <= ended,
              `${device.name} reported ${at} at ${ended}`,
            );
          }
          return { raised, status };
        };
        const first = await run();
        assert.ok(first.raised.length > 0, 'the first run raises alerts');
        const second = await run();
        assert.ok(
          second.raised.length > 0,
          `the second run raises alerts too (first: ${first.raised.map((a) => a.rule).join(', ')})`,
        );
        assert.ok(
          second.raised.some((a) => a.rule === 'house.ammonia'),
          'the second run carries on after the first: its readings are judged',
        );
        assert.equal(
          (
            await t.request<List<Alert>>('GET', `/v1/farms/${farm}/alerts?status=all&limit=500`, {
              key: acct.live_key,
            })
          ).body.data.filter((a) => a.rule === 'device.clock').length,
          0,
          'no clock alert: nothing was dated ahead',
        );
      } finally {
        await t.close();
      }
    });
  }
});

test('simulated houses and trackers report where they are; a house sent to a paddock drives there, and its crossing is recorded', async () => {
  const t = await startMqttTestApp(ENGINES[0] ?? 'sqlite');
  try {
    const acct = await t.account();
    const key = acct.live_key;
    const origin = { lat: 45, lon: 10 };
    const farm = (await make.farm(t, key, { name: 'Moving Farm', ...origin, timezone: 'UTC' })).id;
    // A paddock from 150 to 250 m east of the farm's place; the houses start at the place, outside it.
    const east = (m: number) => origin.lon + m / (111_320 * Math.cos((origin.lat * Math.PI) / 180));
    const north = (m: number) => origin.lat + m / 111_132;
    const paddock = await make.paddock(t, key, farm, {
      name: 'East',
      geometry: {
        type: 'Polygon',
        coordinates: [
          [
            [east(150), north(-50)],
            [east(250), north(-50)],
            [east(250), north(50)],
            [east(150), north(50)],
            [east(150), north(-50)],
          ],
        ],
      },
    });
    const day = 86_400_000;
    const run = (startAt: number, hours: number) =>
      runSimulation({
        url: t.httpUrl,
        apiKey: key,
        farmId: farm,
        devices: 9,
        transport: 'http',
        everyMs: 20,
        speed: 36_000, // 12 simulated minutes a report
        startAt,
        hours,
      });
    const first = await run(Date.now() - 2 * day, 1);
    assert.equal(first.errors, 0, first.lastError ?? '');
    const devices = await t.request<List<Device>>('GET', `/v1/farms/${farm}/devices?limit=100`, { key });
    const house = devices.body.data.find((d) => d.type === 'house')!;
    const tag = devices.body.data.find((d) => d.type === 'tag')!;
    assert.ok(Math.abs(house.lat! - origin.lat) < 1e-4 && Math.abs(house.lon! - origin.lon) < 1e-4);
    assert.ok(tag.lat !== null && tag.lon !== null, 'an ear tag reports where it is');
    assert.equal(
      devices.body.data.find((d) => d.type === 'weather')?.lat,
      null,
      'a weather station does not',
    );
    assert.equal(house.paddock_id, null);

    // Told to move at 4 km a day to the paddock: about 200 m, there within the next two simulated hours.
    for (const body of [
      { command: 'move.start', params: { meters_per_day: 4_000 } },
      { command: 'move.to_paddock', params: { paddock_id: paddock.id } },
    ]) {
      const queued = await t.request('POST', `/v1/devices/${house.id}/commands`, { key, body });
      assert.equal(queued.status, 201, JSON.stringify(queued.body));
    }
    const second = await run(Date.now() - 2 * day + 2 * 3_600_000, 3);
    assert.equal(second.errors, 0, second.lastError ?? '');
    assert.equal(second.commandsAnswered, 2);

    const moved = await t.request<Device>('GET', `/v1/devices/${house.id}`, { key });
    assert.equal(moved.body.paddock_id, paddock.id, 'the house stands in the paddock');
    const move = (moved.body.state as { move: { status: string; target_paddock_id: string | null } }).move;
    // null removes a key from the stored state (docs/devices.md), so the target is gone.
    assert.deepEqual([move.status, move.target_paddock_id ?? null], ['stopped', null], 'arrived, it stopped');
    const track = await t.request<{ data: { lon: number; at: string }[] }>(
      'GET',
      `/v1/devices/${house.id}/track?limit=1000`,
      { key },
    );
    const lons = track.body.data.map((p) => p.lon).reverse();
    assert.ok(lons.length > 10, `the track has ${lons.length} positions`);
    assert.ok(
      lons.every((lon, i) => i === 0 || lon >= (lons[i - 1] ?? lon)),
      'it only ever went east',
    );
    const crossings = await t.request<List<{ data: { to?: { paddock_id?: string }; reason?: string } }>>(
      'GET',
      `/v1/farms/${farm}/events?type=move&subject_id=${house.id}`,
      { key },
    );
    assert.deepEqual(
      crossings.body.data.map((e) => [e.data.to?.paddock_id, e.data.reason]),
      [[paddock.id, 'position']],
      'its crossing into the paddock is recorded once',
    );
  } finally {
    await t.close();
  }
});
