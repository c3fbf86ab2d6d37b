import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as make from '../../../test/factories.ts';
import { expectError, forEachEngine, type TestApp } from '../../../test/harness.ts';
import type {
  Alert,
  Animal,
  Command,
  Device,
  FarmEvent,
  HouseDevice,
  List,
  Reading,
} from '../../../test/replies.ts';
import { StatementCounter } from '../../../test/statement-counter.ts';
import { ingestReport } from './service.ts';

async function readingCount(t: TestApp, deviceId: string): Promise<number> {
  const row = await t.database.db
    .selectFrom('readings')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('device_id', '=', deviceId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

function manyReadings(n: number, base = Date.UTC(2026, 4, 1)): Array<Record<string, unknown>> {
  return Array.from({ length: n }, (_, i) => ({
    metric: i % 2 ? 'climate.temp_c' : 'feed.bin_pct',
    value: 20 + (i % 7),
    unit: i % 2 ? '°C' : '%',
    at: new Date(base + i * 1000).toISOString(),
  }));
}

forEachEngine('ingest', (t) => {
  test('POST /ingest and POST /v1/ingest accept the same report and answer {ok, accepted, commands}', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const device = await make.device(t(), acct.live_key, farm);
    for (const path of ['/ingest', '/v1/ingest']) {
      const res = await make.report(
        t(),
        device.device_key,
        { readings: [{ metric: 'feed.bin_pct', value: 61.5, at: '2026-05-01T10:00:00Z' }] },
        path,
      );
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body, { ok: true, accepted: 1, commands: [] });
    }
    assert.equal(await readingCount(t(), device.id), 2);
  });

  test('a reading without unit takes the catalog unit, another accepted unit is converted; without at it takes the time of receipt', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const device = await make.device(t(), acct.live_key, farm, { type: 'weather', name: 'Station' });
    const before = Date.now();
    const res = await make.report(t(), device.device_key, {
      readings: [
        { metric: 'wind.kph', value: 12 },
        { metric: 'soil.moisture', value: 0.31 },
        { metric: 'rain.mm', value: 2, unit: 'in', at: '2026-05-01T06:00:00.000Z' },
      ],
    });
    const after = Date.now();
    assert.equal(res.body.accepted, 3);
    const readings = await t().request<List<Reading>>('GET', `/v1/devices/${device.id}/readings`, {
      key: acct.live_key,
    });
    const byMetric = Object.fromEntries(readings.body.data.map((r) => [r.metric, r]));
    assert.equal(byMetric['wind.kph']!.unit, 'km/h');
    assert.equal(byMetric['soil.moisture']!.unit, null, 'unknown metrics are stored, without a unit');
    assert.equal(byMetric['rain.mm']!.unit, 'mm', "a catalog metric is stored in the catalog's unit");
    assert.equal(byMetric['rain.mm']!.value, 50.8);
    assert.equal(byMetric['rain.mm']!.raw_value, 2, 'what the device sent is kept');
    assert.equal(byMetric['rain.mm']!.raw_unit, 'in');
    assert.equal(byMetric['wind.kph']!.raw_value, undefined, 'nothing converted: no raw value');
    assert.equal(byMetric['rain.mm']!.at, '2026-05-01T06:00:00.000Z');
    const at = Date.parse(byMetric['wind.kph']!.at);
    assert.ok(at >= before && at <= after, 'at defaults to receipt');
  });

  test('a report of 1,000 readings is accepted; 1,001 is refused with nothing stored', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const device = await make.device(t(), acct.live_key, farm);
    const ok = await make.report(t(), device.device_key, { readings: manyReadings(1000) });
    assert.equal(ok.status, 200, JSON.stringify(ok.body).slice(0, 300));
    assert.equal(ok.body.accepted, 1000);
    assert.equal(await readingCount(t(), device.id), 1000);
    const tooMany = await make.report(t(), device.device_key, {
      readings: manyReadings(1001, Date.UTC(2026, 5, 1)),
      state: { marker: 1 },
      battery: 12,
    });
    const err = expectError(tooMany, 413, 'payload_too_large');
    assert.equal(err.param, 'readings');
    assert.match(err.message, /1000|1,000/);
    assert.equal(await readingCount(t(), device.id), 1000, 'nothing of the refused report is stored');
    const got = await t().request<Device>('GET', `/v1/devices/${device.id}`, { key: acct.live_key });
    assert.equal(got.body.state.marker, undefined);
    assert.equal(got.body.battery, null);
  });

  test('an invalid reading rejects the whole report, naming its index; nothing is stored', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const device = await make.device(t(), acct.live_key, farm);
    const good = manyReadings(20);
    const cases: [Record<string, unknown>, string][] = [
      [{ metric: 'feed.bin_pct', value: 'high' }, 'readings[17].value'],
      [{ metric: 'feed.bin_pct' }, 'readings[17].value'],
      [{ value: 3 }, 'readings[17].metric'],
      [{ metric: '', value: 3 }, 'readings[17].metric'],
      [{ metric: 'feed.bin_pct', value: null }, 'readings[17].value'],
      [{ metric: 'feed.bin_pct', value: 3, at: 'yesterday' }, 'readings[17].at'],
      [{ metric: 'feed.bin_pct', value: 3, unit: 7 }, 'readings[17].unit'],
      [{ metric: 'feed.bin_pct', value: 3, colour: 'red' }, 'readings[17].colour'],
    ];
    for (const [bad, param] of cases) {
      const readings = [...good];
      readings[17] = bad;
      const err = expectError(
        await make.report(t(), device.device_key, {
          readings,
          state: { touched: true },
          events: [{ type: 'note' }],
          battery: 50,
        }),
        400,
        'invalid_request',
      );
      assert.equal(err.param, param, JSON.stringify(bad));
      assert.match(err.message, /readings\[17\]/);
    }
    // JSON allows 1e999, which parses to Infinity: not a finite number.
    const infinite = await t().request('POST', '/v1/ingest', {
      key: device.device_key,
      rawBody: '{"readings":[{"metric":"feed.bin_pct","value":1},{"metric":"feed.bin_pct","value":1e999}]}',
    });
    assert.equal(expectError(infinite, 400, 'invalid_request').param, 'readings[1].value');
    assert.equal(await readingCount(t(), device.id), 0);
    const got = await t().request<Device>('GET', `/v1/devices/${device.id}`, { key: acct.live_key });
    assert.equal(got.body.state.touched, undefined);
    assert.equal(got.body.battery, null);
    assert.equal(got.body.last_seen_at, null, 'a refused report is not a sign of life either');
    const events = await t().request<List<FarmEvent>>(
      'GET',
      `/v1/farms/${farm}/events?subject_id=${device.id}`,
      {
        key: acct.live_key,
      },
    );
    assert.equal(events.body.data.length, 0);
  });

  test('unknown members and wrongly typed members are rejected, naming the field', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const device = await make.device(t(), acct.live_key, farm);
    const cases: [unknown, string][] = [
      [{ colour: 'red' }, 'colour'],
      [{ readings: {} }, 'readings'],
      [{ state: [1, 2] }, 'state'],
      [{ state: 'open' }, 'state'],
      [{ events: [{ data: {} }] }, 'events[0].type'],
      [{ events: [{ type: 'x', data: 5 }] }, 'events[0].data'],
      [{ events: [{ type: 'x', at: 'soon' }] }, 'events[0].at'],
      [{ events: [{ type: 'x', extra: 1 }] }, 'events[0].extra'],
      [{ events: [{ type: 'door.cycle' }, { type: '  ' }] }, 'events[1].type'],
      [{ events: [{ type: 'Alert.Escalated', data: { reason: 'forged' } }] }, 'events[0].type'],
      [{ battery: 'full' }, 'battery'],
      [{ battery: 101 }, 'battery'],
      [{ lat: 91 }, 'lat'],
      [{ lon: -181 }, 'lon'],
      [{ lat: 45 }, 'lon'],
      [{ lon: 7, battery: 50 }, 'lat'],
      [{ firmware: 2 }, 'firmware'],
    ];
    for (const [body, param] of cases) {
      const err = expectError(await make.report(t(), device.device_key, body), 400, 'invalid_request');
      assert.equal(err.param, param, JSON.stringify(body));
    }
  });

  test('state is deep-merged: objects key by key, other values replaced, null removes a key', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const device = await make.device(t(), acct.live_key, farm, { type: 'guardian', name: 'Guard' });
    await make.report(t(), device.device_key, {
      state: { mode: 'watch', sensors: { pir: 'ok', camera: { fps: 10, ir: true } }, zones: [1, 2] },
    });
    await make.report(t(), device.device_key, {
      state: { sensors: { camera: { fps: 15 }, radar: 'ok' }, zones: [3], mode: null, siren: false },
    });
    const got = await t().request<Device>('GET', `/v1/devices/${device.id}`, { key: acct.live_key });
    assert.deepEqual(got.body.state, {
      sensors: { pir: 'ok', camera: { fps: 15, ir: true }, radar: 'ok' },
      zones: [3],
      siren: false,
    });

    const house = await make.device(t(), acct.live_key, farm, { type: 'house', name: 'House 1' });
    await make.report(t(), house.device_key, {
      state: { doors: { '3': 'open' }, climate: { target_temp_c: 24 }, vision: { pods: 4 } },
    });
    const h = await t().request<HouseDevice>('GET', `/v1/devices/${house.id}`, { key: acct.live_key });
    assert.equal(h.body.state.doors['3'], 'open');
    assert.equal(h.body.state.doors['4'], 'closed', 'other doors are kept');
    assert.equal(Object.keys(h.body.state.doors).length, 14);
    assert.deepEqual(h.body.state.climate, { mode: 'auto', target_temp_c: 24 });
    assert.deepEqual(h.body.state.vision, { pods: 4 }, 'a house may report more than the spec describes');
  });

  test('a state that would grow past 64 KiB is refused', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const device = await make.device(t(), acct.live_key, farm, { type: 'other', name: 'Logger' });
    const err = expectError(
      await make.report(t(), device.device_key, { state: { blob: 'x'.repeat(70_000) } }),
      400,
      'invalid_request',
    );
    assert.equal(err.param, 'state');
  });

  test('battery, lat, lon and firmware are updated and last_seen_at set by any report', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const device = await make.device(t(), acct.live_key, farm, { type: 'tag', name: 'Tag', firmware: '1.0' });
    const before = Date.now();
    const res = await make.report(t(), device.device_key, {
      battery: 87.5,
      lat: 38.95,
      lon: -92.33,
      firmware: '1.1',
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.accepted, 0);
    const got = await t().request<Device>('GET', `/v1/devices/${device.id}`, { key: acct.live_key });
    assert.equal(got.body.battery, 87.5);
    assert.equal(got.body.lat, 38.95);
    assert.equal(got.body.lon, -92.33);
    assert.equal(got.body.firmware, '1.1');
    assert.ok(Date.parse(got.body.last_seen_at!) >= before);
    await make.report(t(), device.device_key, { battery: 80 });
    const again = await t().request<Device>('GET', `/v1/devices/${device.id}`, { key: acct.live_key });
    assert.equal(again.body.battery, 80);
    assert.equal(again.body.firmware, '1.1', 'members left out are kept');
    const empty = await t().request('POST', '/v1/ingest', { key: device.device_key });
    assert.equal(empty.status, 200, 'an empty report is a heartbeat');
  });

  test("a report's at dates its status, readings and events; one made before the device's status leaves it", async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const device = await make.device(t(), acct.live_key, farm, { type: 'tag', name: 'Tracker' });
    const key = device.device_key;
    const get = () => make.fetched<Device>(t(), acct.live_key, `/v1/devices/${device.id}`);
    const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
    const newer = ago(10);
    await make.report(t(), key, { at: newer, battery: 80, lat: 51.5, lon: -0.1, firmware: '2.0' });
    // Sent later, made earlier: its reading and event take its time, its position the track's; the rest stays.
    const older = ago(30);
    const late = await make.report(t(), key, {
      at: older,
      battery: 95,
      lat: 51.4,
      lon: -0.2,
      firmware: '1.0',
      readings: [{ metric: 'climate.temp_c', value: 12 }],
      events: [{ type: 'collar.moved' }],
    });
    assert.equal(late.status, 200, JSON.stringify(late.body));
    const kept = await get();
    assert.deepEqual([kept.battery, kept.lat, kept.lon, kept.firmware], [80, 51.5, -0.1, '2.0']);
    const readings = await make.fetched<{ data: Array<{ at: string }> }>(
      t(),
      acct.live_key,
      `/v1/devices/${device.id}/readings?metric=climate.temp_c`,
    );
    assert.deepEqual(
      readings.data.map((r) => r.at),
      [older],
    );
    const [event] = await make.farmEvents(t(), farm, 'collar.moved');
    assert.equal(Number(event?.at), Date.parse(older));
    const track = await make.fetched<{ data: Array<{ lat: number; at: string }> }>(
      t(),
      acct.live_key,
      `/v1/devices/${device.id}/track`,
    );
    assert.deepEqual(
      track.data.map((p) => [p.lat, p.at]),
      [
        [51.5, newer],
        [51.4, older],
      ],
    );
    // A report made after it (or without at: made when it arrives) sets them; a bad at names at.
    await make.report(t(), key, { battery: 70 });
    assert.equal((await get()).battery, 70);
    const bad = await make.report(t(), key, { at: 'yesterday', battery: 1 });
    assert.equal(expectError(bad, 400, 'invalid_request').param, 'at');
    // A clock far ahead: its reading is refused, its battery dated on arrival (newer than the last), kept.
    const ahead = await make.report(t(), key, {
      at: new Date(Date.now() + 3_600_000).toISOString(),
      battery: 60,
      readings: [{ metric: 'climate.temp_c', value: 13 }],
    });
    assert.equal(ahead.status, 200, JSON.stringify(ahead.body));
    assert.equal(ahead.body.accepted, 0);
    assert.equal(ahead.body.refused?.length, 1);
    assert.equal((await get()).battery, 60);
  });

  test('device events are stored as farm events with the device as subject and emit event.created', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const device = await make.device(t(), acct.live_key, farm);
    const res = await make.report(t(), device.device_key, {
      events: [
        { type: 'door.cycle', data: { door: 3 }, at: '2026-05-01T05:30:00Z' },
        { type: 'egg.count', data: { eggs: 212 } },
      ],
    });
    assert.equal(res.status, 200);
    const events = await t().request<List<FarmEvent>>(
      'GET',
      `/v1/farms/${farm}/events?subject_id=${device.id}`,
      {
        key: acct.live_key,
      },
    );
    assert.equal(events.body.data.length, 2);
    const cycle = events.body.data.find((e) => e.type === 'door.cycle')!;
    assert.equal(cycle.subject_type, 'device');
    assert.equal(cycle.subject_id, device.id);
    assert.deepEqual(cycle.data, { door: 3 });
    assert.equal(cycle.at, '2026-05-01T05:30:00.000Z');
    const created = await make.outboxEvents(t(), farm, 'event.created');
    assert.equal(created.length, 2);
  });

  test('the alert engine sees the report: a reading past a rule and an alarm event open alerts', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const device = await make.device(t(), acct.live_key, farm, { name: 'House 2' });
    await make.report(t(), device.device_key, {
      readings: [{ metric: 'climate.nh3_ppm', value: 26 }],
      events: [{ type: 'predator.detected', data: { species: 'fox' } }],
    });
    const alerts = await t().request<List<Alert>>('GET', `/v1/farms/${farm}/alerts?status=all`, {
      key: acct.live_key,
    });
    assert.equal(alerts.body.data.length, 2, JSON.stringify(alerts.body));
    const ammonia = alerts.body.data.find((a) => a.rule === 'house.ammonia')!;
    assert.equal(ammonia.severity, 'urgent');
    assert.equal(ammonia.subject_id, device.id);
    const predator = alerts.body.data.find((a) => a.rule !== 'house.ammonia')!;
    assert.match(`${predator.rule} ${predator.title}`, /predator/i);
  });

  test('queued commands ride back on the next report and are marked delivered once', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const device = await make.device(t(), acct.live_key, farm);
    const first = await t().request<Command>('POST', `/v1/devices/${device.id}/commands`, {
      key: acct.live_key,
      body: { command: 'doors.open', params: { doors: 'all' } },
    });
    const second = await t().request<Command>('POST', `/v1/devices/${device.id}/commands`, {
      key: acct.live_key,
      body: { command: 'lights.set', params: { mode: 'on' } },
    });
    const res = await make.report(t(), device.device_key, {
      readings: [{ metric: 'feed.bin_pct', value: 40 }],
    });
    assert.deepEqual(
      res.body.commands.map((c) => [c.id, c.status]),
      [
        [first.body.id, 'delivered'],
        [second.body.id, 'delivered'],
      ],
    );
    assert.deepEqual(res.body.commands[0]?.params, { doors: 'all' });
    const again = await make.report(t(), device.device_key, {});
    assert.deepEqual(again.body.commands, [], 'a command is delivered only once');
  });

  test('a report hands commands out only when one is due, and reads its farm in the device update', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const device = await make.device(t(), acct.live_key, farm, { type: 'house', name: 'House 1' });
    const counter = new StatementCounter();
    const db = t().database.db.withPlugin(counter);
    const origin = Date.UTC(2026, 4, 1);
    const report = async (minutes: number) => {
      counter.count = 0;
      const at = origin + minutes * 60_000;
      const result = await ingestReport(
        db,
        { deviceId: device.id },
        { readings: [{ metric: 'climate.temp_c', value: 21, at: new Date(at).toISOString() }] },
        at,
      );
      return { statements: counter.count, commands: result.commands.map((c) => c.command) };
    };
    await report(0);
    const idle = await report(1);
    assert.deepEqual(idle.commands, []);
    const queued = await t().request<Command>('POST', `/v1/devices/${device.id}/commands`, {
      key: acct.live_key,
      body: { command: 'lights.set', params: { mode: 'on' } },
    });
    assert.equal(queued.status, 201, JSON.stringify(queued.body));
    // The command's own clock is the app's; the report comes later than it was queued.
    const handing = await report(60 * 24);
    assert.deepEqual(handing.commands, ['lights.set']);
    if (t().engine === 'sqlite') {
      // The device update (farm and due commands read in it), the reading, the latest value, the watermark,
      // the alert state: no farm select and no hand-out while nothing is due, and no savepoint (a report
      // alone in its group, or in a group where none fails: group-commit.ts).
      assert.equal(idle.statements, 5);
      assert.equal(handing.statements, idle.statements + 1, 'the hand-out runs when a command is due');
    } else {
      // PostgreSQL hands commands out inside the report's one statement.
      assert.equal(handing.statements, idle.statements);
    }
    // Half a minute on: before the command's redelivery time.
    assert.deepEqual((await report(60 * 24 + 0.5)).commands, [], 'delivered once');
  });

  test('concurrent reports from one device lose no state and deliver each command once', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const device = await make.device(t(), acct.live_key, farm, { type: 'other', name: 'Busy' });
    const queued: string[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await t().request<Command>('POST', `/v1/devices/${device.id}/commands`, {
        key: acct.live_key,
        body: { command: `step.${i}` },
      });
      queued.push(res.body.id);
    }
    const replies = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        make.report(t(), device.device_key, {
          state: { [`k${i}`]: i, shared: { [`s${i}`]: true } },
          readings: [{ metric: 'power.load_w', value: i }],
        }),
      ),
    );
    assert.ok(replies.every((r) => r.status === 200));
    const delivered = replies.flatMap((r) => r.body.commands.map((c) => c.id));
    assert.deepEqual([...delivered].sort(), [...queued].sort(), 'every command delivered exactly once');
    const got = await t().request<Device>('GET', `/v1/devices/${device.id}`, { key: acct.live_key });
    for (let i = 0; i < 8; i++) {
      assert.equal(got.body.state[`k${i}`], i);
      assert.equal((got.body.state.shared as Record<string, unknown>)[`s${i}`], true);
    }
    assert.equal(await readingCount(t(), device.id), 8);
  });

  test('a scale head weight.kg with an eid is written to that animal’s history; an unknown eid is reported', async () => {
    const acct = await t().account();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const scale = await make.device(t(), acct.live_key, farm, { type: 'reader', name: 'Chute scale' });
    const cow = await t().request<Animal>('POST', `/v1/farms/${farm}/animals`, {
      key: acct.live_key,
      body: { species: 'cattle', name: 'Daisy', eid: '982000123456789' },
    });
    assert.equal(cow.status, 201);
    const res = await make.report(t(), scale.device_key, {
      readings: [
        { metric: 'weight.kg', value: 512.5, eid: '982000123456789', at: '2026-05-01T08:00:00Z' },
        { metric: 'weight.kg', value: 430, eid: '982000000000000', at: '2026-05-01T08:01:00Z' },
        // A stick reader's line for the same cow: the same ISO 11784 number.
        { metric: 'weight.kg', value: 513, eid: 'LA 982 000123456789', at: '2026-05-01T08:02:00Z' },
        // A scale not zeroed: no cow weighs that much. A reading of the scale, not her weight.
        { metric: 'weight.kg', value: 5130, eid: '982000123456789', at: '2026-05-01T08:03:00Z' },
      ],
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.accepted, 4, 'every reading is stored on the scale');
    assert.deepEqual(res.body.unmatched_eids, ['982000000000000']);
    assert.deepEqual(
      res.body.impossible_weights?.map((w) => [w.index, w.eid]),
      [[3, '982000123456789']],
    );
    assert.match(
      String(res.body.impossible_weights?.[0]?.message),
      /5130 kg is not a possible weight for cattle/,
    );
    const history = await t().request<List<FarmEvent>>(
      'GET',
      `/v1/farms/${farm}/events?subject_id=${cow.body.id}&type=weight`,
      {
        key: acct.live_key,
      },
    );
    assert.deepEqual(
      history.body.data.map((e) => [e.data.kg, e.at]),
      [
        [513, '2026-05-01T08:02:00.000Z'],
        [512.5, '2026-05-01T08:00:00.000Z'],
      ],
    );
    assert.equal(await readingCount(t(), scale.id), 4);
  });
});
