import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  expectError,
  forEachEngine,
  startReceiver,
  startWebhookWorker,
  type TestApp,
  waitFor,
} from '../../../test/harness.ts';
import type {
  Animal,
  BriefReply,
  Command,
  Farm,
  FarmEvent,
  HouseReply,
  Items,
  List,
  NewDevice,
  Reading,
} from '../../../test/replies.ts';
import { DEVICE_TYPES } from '../../domain/devices.ts';
import { HOUSE_STATE_JSON_SCHEMA } from '../../domain/house-state.ts';
import { classifyReading, DEFAULT_RULES } from '../../domain/rules.ts';
import { DAY_MS, HOUR_MS } from '../../lib/time.ts';

type Json = any;

async function list(t: TestApp, key: string, path: string): Promise<Json[]> {
  const res = await t.request<List<Json>>('GET', `${path}${path.includes('?') ? '&' : '?'}limit=500`, {
    key,
  });
  assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
  return res.body.data;
}

/** What a sample farm holds, without ids and times, to compare two of them. */
async function snapshot(t: TestApp, key: string, farmId: string) {
  const farm = (await t.request<Farm>('GET', `/v1/farms/${farmId}`, { key })).body;
  const animals = await list(t, key, `/v1/farms/${farmId}/animals`);
  const devices = await list(t, key, `/v1/farms/${farmId}/devices`);
  const readings: Record<string, number> = {};
  for (const d of devices) {
    const res = await t.request<List<Reading>>('GET', `/v1/devices/${d.id}/readings?limit=500`, { key });
    readings[d.name] = res.body.data.length;
  }
  const alerts = await list(t, key, `/v1/farms/${farmId}/alerts?status=all`);
  return {
    farm: {
      name: farm.name,
      timezone: farm.timezone,
      lat: farm.lat,
      lon: farm.lon,
      acres: farm.acres,
      settings: farm.settings,
      holding: farm.holding,
    },
    // The herd book: the cabinet with its stock, the treatments given, the movements.
    medicines: (await list(t, key, `/v1/farms/${farmId}/medicines`))
      .map((m) => `${m.name}/${m.batches.map((b: Json) => `${b.batch}:${b.remaining}`).join(',')}`)
      .sort(),
    treatments: (await list(t, key, `/v1/farms/${farmId}/treatments`))
      .map((x) => `${x.medicine}/${x.dose}/${x.course.doses}`)
      .sort(),
    movements: (await list(t, key, `/v1/farms/${farmId}/movements`))
      .map((m) => `${m.direction}/${m.reason}/${m.head_count}`)
      .sort(),
    paddocks: (await list(t, key, `/v1/farms/${farmId}/paddocks`)).map((p) => p.name).sort(),
    groups: (await list(t, key, `/v1/farms/${farmId}/groups`)).map((g) => `${g.name}/${g.head_count}`).sort(),
    animals: animals.map((a) => `${a.name}/${a.tag}/${a.eid}/${a.breed}`).sort(),
    devices: devices.map((d) => `${d.type}/${d.name}/${d.serial}`).sort(),
    readings,
    alerts: alerts.map((a) => `${a.status}/${a.severity}/${a.title}`).sort(),
    tasks: (await list(t, key, `/v1/farms/${farmId}/tasks`)).map((x) => `${x.status}/${x.title}`).sort(),
    events: (await list(t, key, `/v1/farms/${farmId}/events`)).length,
    webhooks: (await list(t, key, `/v1/farms/${farmId}/webhooks`)).map((w) => w.url),
  };
}

forEachEngine(
  'sample farm',
  (t) => {
    // The first three tests only read the sample farm, so they read the shared account's (and the fourth
    // compares it with a new account's); tests that change a sample farm make their own account.
    test('every account gets a complete sample farm: records of every kind, devices of every type', async () => {
      const acct = await t().sharedAccount();
      const key = acct.test_key;
      const farmId = acct.sample_farm_id;
      const farm = (await t().request<Farm>('GET', `/v1/farms/${farmId}`, { key })).body;
      assert.equal(farm.sample, true);
      assert.equal(farm.mode, 'test');
      assert.equal(farm.timezone, 'America/Chicago');
      assert.ok(farm.name && farm.lat !== null && farm.lon !== null && farm.acres! > 0);

      const paddocks = await list(t(), key, `/v1/farms/${farmId}/paddocks`);
      assert.ok(paddocks.length >= 4 && paddocks.length <= 6, `${paddocks.length} paddocks`);
      for (const p of paddocks) {
        assert.ok(p.acres > 0 && p.rest_days_target > 0 && p.last_grazed_at, JSON.stringify(p));
      }

      const groups = await list(t(), key, `/v1/farms/${farmId}/groups`);
      const species = groups.map((g) => `${g.species}/${g.kind}`).sort();
      assert.deepEqual(species, ['cattle/herd', 'chicken/flock', 'chicken/flock', 'pig/pen']);

      const animals = await list(t(), key, `/v1/farms/${farmId}/animals`);
      assert.ok(animals.length >= 20, `${animals.length} animals`);
      for (const a of animals) {
        assert.ok(a.tag && a.breed && a.birth_date && a.paddock_id, JSON.stringify(a));
        if (a.species === 'cattle') assert.match(a.eid, /^\d{15}$/);
        if (a.species === 'cattle' || a.species === 'pig') assert.ok(a.group_id, `${a.name} is in a group`);
      }

      const devices = await list(t(), key, `/v1/farms/${farmId}/devices`);
      const types = new Set(devices.map((d) => d.type));
      for (const type of DEVICE_TYPES) assert.ok(types.has(type), `a ${type} device`);
      const houses = devices.filter((d) => d.type === 'house');
      assert.equal(houses.length, 2);
      for (const house of houses) {
        for (const part of HOUSE_STATE_JSON_SCHEMA.required)
          assert.ok(part in house.state, `${house.name} state.${part}`);
        assert.equal(Object.keys(house.state.doors).length, 14);
        assert.ok(house.group_id, 'each house holds a flock');
      }
      for (const type of ['bolus', 'tag']) {
        const onCattle = devices.filter((d) => d.type === type && d.animal_id);
        assert.ok(onCattle.length >= 1, `${type}s on cattle`);
      }

      const houseViews = (await t().request<Items<HouseReply>>('GET', `/v1/farms/${farmId}/houses`, { key }))
        .body.data;
      assert.equal(houseViews.length, 2);
      for (const h of houseViews) {
        assert.ok(h.recent_commands.length > 0, 'a house shows recent (simulated) commands');
        for (const metric of ['feed.bin_pct', 'water.tank_pct', 'climate.temp_c', 'power.battery_pct']) {
          assert.ok(h.latest_readings[metric], `${h.name} reports ${metric}`);
        }
      }

      const tasks = await list(t(), key, `/v1/farms/${farmId}/tasks`);
      assert.ok(tasks.length >= 5);
      const events = await list(t(), key, `/v1/farms/${farmId}/events`);
      const recent = events.filter((e) => Date.now() - Date.parse(e.at) < 2 * DAY_MS);
      assert.ok(recent.length >= 5, 'recent farm events');
      const types2 = new Set(events.map((e) => e.type));
      for (const type of ['move', 'weight', 'treatment', 'door.jammed'])
        assert.ok(types2.has(type), `a ${type} event`);

      const brief = (await t().request<BriefReply>('GET', `/v1/farms/${farmId}/brief`, { key })).body;
      assert.ok(brief.counts.tasks_overdue >= 1, 'overdue tasks');
      assert.ok(brief.counts.tasks_due_today >= 1, 'tasks due today');
      assert.ok(brief.counts.alerts_urgent >= 1 && brief.counts.alerts_watch >= 1, 'open alerts');
      // The weather station has gone quiet: its device.quiet alert tells of it (not the quiet list).
      assert.equal(brief.counts.devices_quiet, 0);
      const active = await list(t(), key, `/v1/farms/${farmId}/alerts?status=active`);
      const station = (await list(t(), key, `/v1/farms/${farmId}/devices`)).find((d) => d.type === 'weather');
      assert.deepEqual(
        active.filter((a) => a.rule === 'device.quiet').map((a) => a.subject_id),
        [station.id],
        'the weather station has a device.quiet alert',
      );
      const leak = active.find((a) => a.rule === 'water.leak');
      assert.equal(
        leak?.title,
        'Water dropping fast at Trough sensor, Creek Bottom',
        'a rate rule: the burst trough line',
      );
      const layers = (await list(t(), key, `/v1/farms/${farmId}/groups`)).find(
        (g) => g.name === 'Laying flock',
      );
      const intake = active.find((a) => a.rule === 'group.intake_drop');
      assert.equal(intake?.subject_id, layers?.id, 'the layers drank a third less yesterday');
      assert.match(intake?.title ?? '', /^Water per head dropped for /);
      assert.equal(brief.counts.paddocks_past_rest, 1, 'North Flats is ready to graze');
    });

    test('every device has a day of readings: day/night temperatures, feed bins, tanks, batteries', async () => {
      const acct = await t().sharedAccount();
      const key = acct.test_key;
      const devices = await list(t(), key, `/v1/farms/${acct.sample_farm_id}/devices`);
      for (const d of devices) {
        const res = await t().request<List<Reading>>('GET', `/v1/devices/${d.id}/readings?limit=1`, { key });
        assert.equal(res.body.data.length, 1, `${d.name} has readings`);
        assert.ok(d.last_seen_at, `${d.name} has reported`);
        const metric = encodeURIComponent(res.body.data[0]!.metric);
        const series = await t().request<List<Reading>>(
          'GET',
          `/v1/devices/${d.id}/readings?metric=${metric}&limit=500`,
          {
            key,
          },
        );
        const oldest = Date.parse(series.body.data.at(-1)!.at);
        assert.ok(Date.now() - oldest > 17 * HOUR_MS, `${d.name} readings span the day`);
      }
      const house = devices.find((d) => d.name === 'House 1');
      const temps = (
        await t().request<List<Reading>>(
          'GET',
          `/v1/devices/${house.id}/readings?metric=climate.temp_c&limit=500`,
          { key },
        )
      ).body.data;
      assert.ok(temps.length >= 90, 'a house reports every 15 minutes');
      const values = temps.map((r: Json) => r.value);
      assert.ok(Math.max(...values) - Math.min(...values) > 2, 'temperature follows the day');
      const feed = (
        await t().request<List<Reading>>(
          'GET',
          `/v1/devices/${house.id}/readings?metric=feed.bin_pct&limit=500`,
          { key },
        )
      ).body.data.map((r: Json) => r.value);
      assert.ok(feed[0] < feed.at(-1), 'the feed bin empties through the day');
      const solar = (
        await t().request<List<Reading>>(
          'GET',
          `/v1/devices/${house.id}/readings?metric=power.solar_w&limit=500`,
          { key },
        )
      ).body.data.map((r: Json) => r.value);
      assert.ok(
        solar.some((v: number) => v === 0) && solar.some((v: number) => v > 100),
        'solar by day only',
      );
    });

    test('the open alerts are exactly those the latest readings call for by the rules', async () => {
      const acct = await t().sharedAccount();
      const key = acct.test_key;
      const farmId = acct.sample_farm_id;
      const devices = await list(t(), key, `/v1/farms/${farmId}/devices`);
      const active = await list(t(), key, `/v1/farms/${farmId}/alerts?status=active`);
      const expected: string[] = [];
      for (const d of devices) {
        const subject = d.animal_id ?? d.id;
        for (const rule of DEFAULT_RULES) {
          const res = await t().request<List<Reading>>(
            'GET',
            `/v1/devices/${d.id}/readings?metric=${encodeURIComponent(rule.metric)}&limit=1`,
            { key },
          );
          const latest = res.body.data[0];
          if (!latest) continue;
          const level = classifyReading(rule, latest.value);
          const alert = active.find((a) => a.rule === rule.name && a.subject_id === subject);
          if (level === 'urgent' || level === 'watch') {
            assert.ok(alert, `${d.name}: ${rule.name} at ${latest.value} should have an alert`);
            if (level === 'urgent') assert.equal(alert.severity, 'urgent');
            expected.push(`${rule.name} ${subject}`);
          } else if (level === 'clear') {
            assert.equal(alert, undefined, `${d.name}: ${rule.name} at ${latest.value} has no alert`);
          }
        }
      }
      const thresholdAlerts = active.filter((a) => DEFAULT_RULES.some((r) => r.name === a.rule));
      assert.deepEqual(thresholdAlerts.map((a) => `${a.rule} ${a.subject_id}`).sort(), expected.sort());
      assert.ok(expected.length >= 3, 'a few open alerts');
      // The device alarm among them came from a device event in the log.
      const alarms = active.filter((a) => a.rule === 'door.jammed');
      assert.equal(alarms.length, 1);
      const jams = await list(t(), key, `/v1/farms/${farmId}/events?type=door.jammed`);
      assert.equal(jams[0].subject_id, alarms[0].subject_id);
      // And one alert has already come and gone: House 2's feed bin was filled.
      const resolved = await list(t(), key, `/v1/farms/${farmId}/alerts?status=resolved`);
      assert.ok(resolved.some((a) => a.rule === 'house.feed' && a.resolved_at));
    });

    test('the sample is the same for every account, and the seed sends no webhooks', async () => {
      // The shared account's sample farm is as seeded: the tests before only read it.
      const a = await t().sharedAccount();
      const b = await t().account();
      const one = await snapshot(t(), a.test_key, a.sample_farm_id);
      const two = await snapshot(t(), b.test_key, b.sample_farm_id);
      assert.deepEqual(one.animals, two.animals);
      assert.deepEqual(one.devices, two.devices);
      assert.deepEqual(one.tasks, two.tasks);
      const pending = await t()
        .database.db.selectFrom('outbox')
        .select('id')
        .where('farm_id', '=', a.sample_farm_id)
        .where('dispatched_at', 'is', null)
        .execute();
      assert.equal(pending.length, 0, 'seed events are not delivered to webhooks');
    });

    test('POST /v1/farms/{farm}/reset restores the sample farm after changes, keeping its id and webhooks', async () => {
      const acct = await t().account();
      const key = acct.test_key;
      const farmId = acct.sample_farm_id;
      const hook = await t().request('POST', `/v1/farms/${farmId}/webhooks`, {
        key,
        body: { url: 'http://127.0.0.1:9/hooks', events: ['*'] },
      });
      assert.equal(hook.status, 201, JSON.stringify(hook.body));
      const before = await snapshot(t(), key, farmId);

      // Change everything a developer might: the farm, its rules, records, devices, alerts.
      await t().request('PATCH', `/v1/farms/${farmId}`, {
        key,
        body: {
          name: 'Renamed',
          timezone: 'UTC',
          settings: { rules: { 'house.feed': { watch: 40 } }, colour: 'red' },
        },
      });
      const animals = await list(t(), key, `/v1/farms/${farmId}/animals`);
      await t().request('DELETE', `/v1/animals/${animals[0].id}`, { key });
      // The herd book: another holding number, a treatment given from the cabinet.
      await t().request('PATCH', `/v1/farms/${farmId}`, {
        key,
        body: { holding: { number: '12/345/6789', type: 'cph' } },
      });
      const [medicine] = await list(t(), key, `/v1/farms/${farmId}/medicines`);
      const given = await t().request('POST', `/v1/farms/${farmId}/treatments`, {
        key,
        body: {
          medicine_id: medicine.id,
          batch_id: medicine.batches[0].id,
          animal_ids: [animals[1].id],
          dose: 5,
          dose_unit: medicine.unit,
          route: 'oral',
        },
      });
      assert.equal(given.status, 201, JSON.stringify(given.body));
      await t().request('POST', `/v1/farms/${farmId}/paddocks`, { key, body: { name: 'New paddock' } });
      const device = await t().request<NewDevice>('POST', `/v1/farms/${farmId}/devices`, {
        key,
        body: { type: 'water', name: 'Extra sensor' },
      });
      await t().request('POST', '/v1/ingest', {
        key: device.body.device_key,
        body: { readings: [{ metric: 'water.tank_pct', value: 3 }] },
      });
      const alerts = await list(t(), key, `/v1/farms/${farmId}/alerts`);
      for (const a of alerts.slice(0, 2)) await t().request('POST', `/v1/alerts/${a.id}/resolve`, { key });
      const oldDevices = await list(t(), key, `/v1/farms/${farmId}/devices`);
      assert.notDeepEqual(await snapshot(t(), key, farmId), before);

      const reset = await t().request<Farm>('POST', `/v1/farms/${farmId}/reset`, { key });
      assert.equal(reset.status, 200, JSON.stringify(reset.body));
      assert.equal(reset.body.id, farmId);
      assert.equal(reset.body.name, 'Willow Creek Farm (sample)');
      assert.deepEqual(reset.body.settings, {}, 'alert rules back to the defaults');
      const after = await snapshot(t(), key, farmId);
      assert.deepEqual(after, before);
      // The old devices (and their keys) are gone; the farm's id still works for everything.
      expectError(await t().request('GET', `/v1/devices/${oldDevices[0].id}`, { key }), 404, 'not_found');
      expectError(
        await t().request('POST', '/v1/ingest', { key: device.body.device_key, body: {} }),
        401,
        'unauthorized',
      );
      const brief = await t().request<BriefReply>('GET', `/v1/farms/${farmId}/brief`, { key });
      assert.equal(brief.status, 200);
      assert.equal(brief.body.counts.alerts_urgent, 1);
    });

    test('webhooks on the sample farm deliver like live ones; a reset sends none', async () => {
      const acct = await t().account();
      const key = acct.test_key;
      const farmId = acct.sample_farm_id;
      const receiver = await startReceiver();
      const worker = startWebhookWorker(t());
      try {
        const hook = await t().request('POST', `/v1/farms/${farmId}/webhooks`, {
          key,
          body: { url: receiver.url, events: ['*'] },
        });
        assert.equal(hook.status, 201, JSON.stringify(hook.body));
        const animal = await t().request<Animal>('POST', `/v1/farms/${farmId}/animals`, {
          key,
          body: { species: 'goat', name: 'Nibbles' },
        });
        await waitFor('the animal.created delivery', () =>
          receiver.requests.find((r) => JSON.parse(r.body).data.id === animal.body.id),
        );
        const house = (await list(t(), key, `/v1/farms/${farmId}/houses`))[0];
        const command = await t().request<Command>('POST', `/v1/devices/${house.id}/commands`, {
          key,
          body: { command: 'lights.set', params: { mode: 'on' } },
        });
        assert.equal(command.body.status, 'done', 'sample commands are simulated');
        await waitFor('the command.done delivery', () =>
          receiver.requests.find((r) => JSON.parse(r.body).type === 'command.done'),
        );
        const seen = receiver.requests.length;
        assert.equal((await t().request('POST', `/v1/farms/${farmId}/reset`, { key })).status, 200);
        // A later change is delivered, so the worker has looked at the outbox since the reset.
        const after = await t().request<FarmEvent>('POST', `/v1/farms/${farmId}/events`, {
          key,
          body: { type: 'note' },
        });
        await waitFor('the event.created delivery', () =>
          receiver.requests.find((r) => JSON.parse(r.body).data.id === after.body.id),
        );
        assert.equal(receiver.requests.length, seen + 1, 'nothing from the re-seeded farm');
      } finally {
        await worker.stop();
        await receiver.close();
      }
    });

    test('reset is 404 for any farm that is not this key’s sample farm', async () => {
      const acct = await t().sharedAccount();
      const other = await t().account();
      const live = await t().request<Farm>('POST', '/v1/farms', {
        key: acct.live_key,
        body: { name: 'Live' },
      });
      const trial = await t().request<Farm>('POST', '/v1/farms', {
        key: acct.test_key,
        body: { name: 'Trial' },
      });
      assert.equal(trial.body.mode, 'test', 'a test key may create more test farms');
      const cases: Array<[string, string]> = [
        [acct.live_key, live.body.id],
        [acct.test_key, trial.body.id],
        [acct.live_key, acct.sample_farm_id],
        [other.test_key, acct.sample_farm_id],
        [acct.test_key, 'farm_doesnotexist'],
      ];
      for (const [key, farm] of cases) {
        expectError(await t().request('POST', `/v1/farms/${farm}/reset`, { key }), 404, 'not_found');
      }
      const untouched = await t().request<Farm>('GET', `/v1/farms/${trial.body.id}`, { key: acct.test_key });
      assert.equal(untouched.body.name, 'Trial');
    });

    test('test keys reach only test farms and live keys only live farms, on every farm endpoint', async () => {
      const acct = await t().account();
      const live = (
        await t().request<Farm>('POST', '/v1/farms', { key: acct.live_key, body: { name: 'Live' } })
      ).body.id;
      const sample = acct.sample_farm_id;
      const gets = [
        '',
        '/brief',
        '/alerts',
        '/houses',
        '/animals',
        '/groups',
        '/paddocks',
        '/devices',
        '/tasks',
        '/events',
        '/webhooks',
      ];
      const posts: Array<[string, unknown]> = [
        ['/reset', undefined],
        ['/animals', { species: 'cattle' }],
        ['/groups', { name: 'G', species: 'cattle' }],
        ['/paddocks', { name: 'P' }],
        ['/devices', { type: 'tag', name: 'T' }],
        ['/tasks', { title: 'T' }],
        ['/events', { type: 'note' }],
        ['/webhooks', { url: 'http://127.0.0.1:9/h', events: ['*'] }],
      ];
      for (const [key, farm, own] of [
        [acct.live_key, sample, acct.test_key],
        [acct.test_key, live, acct.live_key],
      ] as const) {
        for (const path of gets) {
          expectError(await t().request('GET', `/v1/farms/${farm}${path}`, { key }), 404, 'not_found');
          const mine = await t().request('GET', `/v1/farms/${farm}${path}`, { key: own });
          assert.equal(mine.status, 200, `${path} with the farm's own mode`);
        }
        for (const [path, body] of posts) {
          expectError(await t().request('POST', `/v1/farms/${farm}${path}`, { key, body }), 404, 'not_found');
        }
      }
      // Records inside the sample farm are just as hidden from the live key.
      const animal = (await list(t(), acct.test_key, `/v1/farms/${sample}/animals`))[0];
      const device = (await list(t(), acct.test_key, `/v1/farms/${sample}/devices`))[0];
      const alert = (await list(t(), acct.test_key, `/v1/farms/${sample}/alerts`))[0];
      for (const path of [`/v1/animals/${animal.id}`, `/v1/devices/${device.id}`, `/v1/alerts/${alert.id}`]) {
        expectError(await t().request('GET', path, { key: acct.live_key }), 404, 'not_found');
      }
      const liveList = await t().request<List<Farm>>('GET', '/v1/farms', { key: acct.live_key });
      assert.deepEqual(
        liveList.body.data.map((f: Json) => f.id),
        [live],
      );
    });
  },
  { webhookAllowPrivate: true },
);

forEachEngine('sample farm weights', (t) => {
  test('the beef herd has months of weights with real gains, in weigh sessions; a stalled heifer is in the brief', async () => {
    const acct = await t().sharedAccount();
    const key = acct.test_key;
    const farm = acct.sample_farm_id;
    const sessions = await list(t(), key, `/v1/farms/${farm}/weigh-sessions`);
    assert.equal(sessions.length, 4, 'monthly, for four months');
    assert.deepEqual(
      sessions.map((s) => s.head_count),
      [15, 15, 14, 11],
      'the cows, and the calves once a fortnight old',
    );
    assert.ok(sessions.every((s) => s.histogram.length > 0));
    assert.ok(sessions[0].adg_kg_per_day > 0.2, `the herd gains: ${sessions[0].adg_kg_per_day}`);
    const animals = await list(t(), key, `/v1/farms/${farm}/animals?q=pip`);
    const pip = animals.find((a) => a.name === 'Pip');
    const weights = (await t().request<Json>('GET', `/v1/animals/${pip.id}/weights`, { key })).body;
    assert.ok(weights.data.length >= 3);
    assert.ok(
      weights.adg_kg_per_day > 0.8 && weights.adg_kg_per_day < 1.2,
      `a calf: ${weights.adg_kg_per_day}`,
    );
    const herd = (await list(t(), key, `/v1/farms/${farm}/groups`)).find((g) => g.species === 'cattle');
    const figures = (await t().request<Json>('GET', `/v1/groups/${herd.id}/weights`, { key })).body;
    assert.equal(figures.lowest_gain[0]?.name, 'Poppy');
    const brief = (await t().request<BriefReply>('GET', `/v1/farms/${farm}/brief`, { key })).body;
    assert.ok(brief.items.some((i) => i.title === 'Poppy lost weight'));
  });
});
