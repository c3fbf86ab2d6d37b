import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as make from '../../../test/factories.ts';
import { forEachEngine, type TestApp } from '../../../test/harness.ts';
import type { Animal, BriefReply, NewDevice, OpenApiDocument, Paddock, Task } from '../../../test/replies.ts';
import { localClock, localDayBounds } from '../../lib/local-time.ts';
import { DAY_MS, HOUR_MS, MINUTE_MS, toIso } from '../../lib/time.ts';
import { createDevice } from '../devices/service.ts';
import { ingestReport } from '../ingest/service.ts';

/** The farm's brief (200 asserted). */
function brief(t: TestApp, key: string, farmId: string): Promise<BriefReply> {
  return make.fetched<BriefReply>(t, key, `/v1/farms/${farmId}/brief`);
}

/** Readings of one metric every `stepMs`, oldest first, ending at `last`. */
function series(metric: string, value: number, count: number, stepMs: number, last: number) {
  return Array.from({ length: count }, (_, i) => ({
    metric,
    value,
    at: toIso(last - (count - 1 - i) * stepMs),
  }));
}

forEachEngine('brief', (t) => {
  test('the brief of an empty farm is calm: a headline, a text and empty lists', async () => {
    const acct = await t().sharedAccount();
    const farmId = (await make.farm(t(), acct.live_key, { name: 'Empty Acres' })).id;
    const body = await brief(t(), acct.live_key, farmId);
    assert.equal(
      body.headline,
      'All quiet on Empty Acres: no alerts, nothing due today and every device reporting.',
    );
    assert.match(body.text, /No open alerts\./);
    assert.deepEqual([body.alerts, body.tasks, body.houses, body.items], [[], [], [], []]);
    assert.ok(Object.values(body.counts).every((n) => n === 0));
    assert.equal(body.farm_id, farmId);
    assert.equal(body.timezone, 'UTC');
    assert.match(body.local_date, /^\d{4}-\d{2}-\d{2}$/);
  });

  test('ranks urgent alerts, watch alerts oldest first, overdue tasks, tasks due today, houses, doors after dusk, quiet devices, low batteries, rested paddocks', async () => {
    const acct = await t().sharedAccount();
    const key = acct.live_key;
    const tz = 'America/Chicago';
    const farmId = (await make.farm(t(), key, { timezone: tz, lat: 38.95, lon: -92.33 })).id;
    const now = Date.now();
    const db = t().database.db;

    // Paddocks: one rested past its target (listed), one past it but grazed now, one still resting.
    const rested = await make.posted<Paddock>(t(), key, `/v1/farms/${farmId}/paddocks`, {
      name: 'Far Field',
      rest_days_target: 30,
      last_grazed_at: toIso(now - 50 * DAY_MS),
    });
    const occupied = await make.posted<Paddock>(t(), key, `/v1/farms/${farmId}/paddocks`, {
      name: 'Home Field',
      rest_days_target: 30,
      last_grazed_at: toIso(now - 60 * DAY_MS),
    });
    await make.posted(t(), key, `/v1/farms/${farmId}/paddocks`, {
      name: 'Young Grass',
      rest_days_target: 30,
      last_grazed_at: toIso(now - 5 * DAY_MS),
    });
    await make.posted(t(), key, `/v1/farms/${farmId}/groups`, {
      name: 'Ewes',
      species: 'sheep',
      paddock_id: occupied.id,
    });
    const cow = await make.posted<Animal>(t(), key, `/v1/farms/${farmId}/animals`, {
      species: 'cattle',
      name: 'Bess',
      tag: '7',
    });

    // A house: ammonia at the urgent line, air 7 °C under its target, two doors open after their close time.
    const house = await make.posted<NewDevice>(t(), key, `/v1/farms/${farmId}/devices`, {
      type: 'house',
      name: 'House A',
    });
    const closeAt = localClock(now - HOUR_MS, tz);
    const openAt = localClock(now + HOUR_MS, tz);
    await make.posted(
      t(),
      house.device_key,
      '/v1/ingest',
      {
        readings: [
          { metric: 'climate.nh3_ppm', value: 27 },
          { metric: 'climate.temp_c', value: 14 },
          { metric: 'feed.bin_pct', value: 60 },
        ],
        state: { doors: { '1': 'open', '2': 'open' }, door_schedule: { open: openAt, close: closeAt } },
      },
      200,
    );

    // Two watch alerts, the fever two hours ago, the tag battery one hour ago.
    const bolus = await make.posted<NewDevice>(t(), key, `/v1/farms/${farmId}/devices`, {
      type: 'bolus',
      name: 'Bolus 1',
      animal_id: cow.id,
    });
    const tag = await make.posted<NewDevice>(t(), key, `/v1/farms/${farmId}/devices`, {
      type: 'tag',
      name: 'Tag 1',
    });
    await ingestReport(
      db,
      { deviceId: bolus.id },
      { readings: [{ metric: 'body.temp_c', value: 40.2 }] },
      now - 2 * HOUR_MS,
    );
    await ingestReport(
      db,
      { deviceId: tag.id },
      { readings: [{ metric: 'device.battery_pct', value: 12 }] },
      now - HOUR_MS,
    );
    // A low battery without an alert (reported as the battery member), and a sensor gone quiet.
    const lowTag = await make.posted<NewDevice>(t(), key, `/v1/farms/${farmId}/devices`, {
      type: 'tag',
      name: 'Tag 2',
    });
    await make.posted(t(), lowTag.device_key, '/v1/ingest', { battery: 9 }, 200);
    const quiet = await make.posted<NewDevice>(t(), key, `/v1/farms/${farmId}/devices`, {
      type: 'water',
      name: 'Trough',
    });
    await ingestReport(
      db,
      { deviceId: quiet.id },
      { readings: series('water.tank_pct', 80, 12, 15 * MINUTE_MS, now - 2 * HOUR_MS) },
      now - 2 * HOUR_MS,
    );

    // Tasks: overdue, due today, later, done, and one without a due time.
    const today = localDayBounds(now, tz);
    await make.posted(t(), key, `/v1/farms/${farmId}/tasks`, {
      title: 'Later',
      due_at: toIso(today.end + 2 * DAY_MS),
    });
    const dueToday = await make.posted<Task>(t(), key, `/v1/farms/${farmId}/tasks`, {
      title: 'Due today',
      due_at: toIso(today.start + 12 * HOUR_MS),
    });
    const overdue = await make.posted<Task>(t(), key, `/v1/farms/${farmId}/tasks`, {
      title: 'Overdue',
      due_at: toIso(today.start - 2 * DAY_MS),
      assignee: 'Sam',
    });
    await make.posted(t(), key, `/v1/farms/${farmId}/tasks`, {
      title: 'Done already',
      due_at: toIso(today.start - DAY_MS),
      status: 'done',
    });
    await make.posted(t(), key, `/v1/farms/${farmId}/tasks`, { title: 'Someday' });

    const body = await brief(t(), key, farmId);
    assert.deepEqual(
      body.items.map((i) => `${i.kind}/${i.severity}`),
      [
        'alert/urgent',
        'alert/watch',
        'alert/watch',
        'task_overdue/watch',
        'task_due_today/info',
        'house/watch',
        'doors_open/watch',
        'device_quiet/watch',
        'device_battery/watch',
        'paddock_rest/info',
      ],
      JSON.stringify(body.items, null, 1),
    );
    assert.deepEqual(
      body.items.map((i) => i.rank),
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    );
    const [urgent, fever, battery, ...rest] = body.items;
    assert.equal(urgent!.title, 'High ammonia in House A');
    assert.equal(fever!.subject_id, cow.id, 'the older watch alert first');
    assert.equal(battery!.subject_id, tag.id);
    assert.deepEqual(
      body.alerts.map((a) => a.id),
      [urgent!.ref_id, fever!.ref_id, battery!.ref_id],
      'alerts are full records in rank order',
    );
    assert.equal(body.alerts[0]!.reason.length > 0 && body.alerts[0]!.status, 'open');
    assert.deepEqual(
      body.tasks.map((x) => x.id),
      [overdue.id, dueToday.id],
      'tasks are full records: overdue, then due today',
    );
    assert.equal(body.tasks[0]!.assignee, 'Sam');
    const [, , houseItem, doors, quietItem, lowBattery, paddock] = rest;
    assert.match(houseItem!.title, /^House A: 14 °C \(target 21 °C\)$/);
    assert.doesNotMatch(houseItem!.title, /ammonia/, 'a condition with an open alert is not listed twice');
    assert.equal(doors!.title, '2 pop doors open after dusk in House A');
    assert.equal(quietItem!.subject_id, quiet.id);
    assert.match(quietItem!.detail, /usually every 15 min/);
    assert.equal(lowBattery!.subject_id, lowTag.id, 'the tag with a battery alert is not listed again');
    assert.equal(lowBattery!.title, 'Low battery: Tag 2 (9%)');
    assert.equal(paddock!.subject_id, rested.id);

    assert.equal(
      body.headline,
      '1 urgent alert: High ammonia in House A — also 2 watch alerts, 1 overdue task, 1 task due today and 5 more items.',
    );
    assert.match(body.text, /^Urgent: High ammonia in House A\. Watch: /);
    assert.deepEqual(body.counts, {
      alerts_urgent: 1,
      alerts_watch: 2,
      alerts_info: 0,
      tasks_overdue: 1,
      tasks_due_today: 1,
      houses_attention: 1,
      doors_open_after_dusk: 1,
      devices_quiet: 1,
      devices_low_battery: 1,
      paddocks_past_rest: 1,
      milk_withheld: 0,
      milk_clear_today: 0,
      batches_expiring: 0,
      medicines_low_stock: 0,
      animals_gain_low: 0,
      groups_not_weighed: 0,
    });
    const [h] = body.houses;
    assert.equal(body.houses.length, 1);
    assert.equal(h!.name, 'House A');
    assert.equal(h!.climate.nh3_ppm, 27);
    assert.equal(h!.climate.target_temp_c, 21);
    assert.equal(h!.feed.bin_pct, 60);
    assert.equal(h!.water.tank_pct, null);
    assert.deepEqual(h!.doors, {
      open: 2,
      closed: 12,
      schedule: { open: openAt, close: closeAt },
      after_dusk: true,
    });
    assert.equal(h!.move.status, 'stopped');
    assert.equal(h!.floor, 'retracted');
    assert.equal(h!.active_alerts, 1);
    assert.ok(h!.last_reported_at);
    assert.deepEqual(h!.attention, ['ammonia 27 ppm', '14 °C (target 21 °C)', '2 doors open after dusk']);

    // Acknowledging keeps an alert in the brief; resolving removes it.
    await make.posted(t(), key, `/v1/alerts/${urgent!.ref_id}/acknowledge`, undefined, 200);
    const acked = await brief(t(), key, farmId);
    assert.match(acked.items[0]!.detail, /^Acknowledged\. /);
    await make.posted(t(), key, `/v1/alerts/${urgent!.ref_id}/resolve`, undefined, 200);
    const resolved = await brief(t(), key, farmId);
    assert.equal(resolved.counts.alerts_urgent, 0);
    assert.match(resolved.headline, /^2 watch alerts: /);
    assert.equal(resolved.counts.houses_attention, 1);
    assert.match(
      resolved.items.find((i) => i.kind === 'house')!.title,
      /ammonia 27 ppm/,
      'without its alert the house lists the ammonia itself',
    );
  });

  test('"due today" is the farm’s local day, in its own time zone', async () => {
    const acct = await t().sharedAccount();
    const key = acct.live_key;
    const farmId = (await make.farm(t(), key, { timezone: 'Pacific/Kiritimati' })).id;
    const now = Date.now();
    // Fixed-offset zones (no DST): UTC+14 and UTC−11, so the days are easy to work out by hand.
    const dayStart = (offsetHours: number) =>
      Math.floor((now + offsetHours * HOUR_MS) / DAY_MS) * DAY_MS - offsetHours * HOUR_MS;
    const start = dayStart(14);
    const times = {
      'before today': start - MINUTE_MS,
      'start of today': start + MINUTE_MS,
      'end of today': start + DAY_MS - MINUTE_MS,
      tomorrow: start + DAY_MS + MINUTE_MS,
    };
    for (const [title, at] of Object.entries(times)) {
      await make.posted(t(), key, `/v1/farms/${farmId}/tasks`, { title, due_at: toIso(at) });
    }
    const classify = (offsetHours: number) => {
      const s = dayStart(offsetHours);
      const out: Record<string, string[]> = { task_overdue: [], task_due_today: [] };
      for (const [title, at] of Object.entries(times).sort((a, b) => a[1] - b[1])) {
        if (at < s) out.task_overdue?.push(title);
        else if (at < s + DAY_MS) out.task_due_today?.push(title);
      }
      return out;
    };
    const listed = (b: BriefReply) => ({
      task_overdue: b.items.filter((i) => i.kind === 'task_overdue').map((i) => i.title),
      task_due_today: b.items.filter((i) => i.kind === 'task_due_today').map((i) => i.title),
    });

    const kiritimati = await brief(t(), key, farmId);
    assert.deepEqual(listed(kiritimati), classify(14));
    assert.deepEqual(classify(14), {
      task_overdue: ['before today'],
      task_due_today: ['start of today', 'end of today'],
    });
    assert.equal(kiritimati.local_date, toIso(start + 14 * HOUR_MS).slice(0, 10));

    await t().request('PATCH', `/v1/farms/${farmId}`, { key, body: { timezone: 'Pacific/Pago_Pago' } });
    const pagoPago = await brief(t(), key, farmId);
    assert.deepEqual(listed(pagoPago), classify(-11));
    assert.notDeepEqual(classify(-11), classify(14), 'the same tasks fall on other days 25 hours west');
    assert.equal(pagoPago.timezone, 'Pacific/Pago_Pago');
  });

  test('quiet devices: silent longer than 3× their usual interval, or 6 h when it is unknown', async () => {
    const acct = await t().account();
    const key = acct.live_key;
    const farmId = (await make.farm(t(), key)).id;
    const db = t().database.db;
    const scope = { accountId: acct.account_id, mode: 'live' as const };
    const now = Date.now();
    const quarter = 15 * MINUTE_MS;
    const cases: Array<{
      name: string;
      quiet: boolean;
      readings: number;
      step: number;
      silent: number | null;
    }> = [
      { name: '15 min, silent 1 h', quiet: true, readings: 12, step: quarter, silent: HOUR_MS },
      { name: '15 min, silent 40 min', quiet: false, readings: 12, step: quarter, silent: 40 * MINUTE_MS },
      { name: '4 h, silent 9 h', quiet: false, readings: 6, step: 4 * HOUR_MS, silent: 9 * HOUR_MS },
      { name: '4 h, silent 13 h', quiet: true, readings: 6, step: 4 * HOUR_MS, silent: 13 * HOUR_MS },
      { name: 'heartbeats, silent 7 h', quiet: true, readings: 0, step: 0, silent: 7 * HOUR_MS },
      { name: 'heartbeats, silent 5 h', quiet: false, readings: 0, step: 0, silent: 5 * HOUR_MS },
      { name: 'two readings, silent 5 h', quiet: false, readings: 2, step: quarter, silent: 5 * HOUR_MS },
      {
        name: 'one minute, silent 20 min',
        quiet: false,
        readings: 12,
        step: MINUTE_MS,
        silent: 20 * MINUTE_MS,
      },
      {
        name: 'one minute, silent 35 min',
        quiet: true,
        readings: 12,
        step: MINUTE_MS,
        silent: 35 * MINUTE_MS,
      },
    ];
    const ids = new Map<string, string>();
    for (const c of cases) {
      const device = await make.posted<NewDevice>(t(), key, `/v1/farms/${farmId}/devices`, {
        type: 'other',
        name: c.name,
      });
      ids.set(device.id, c.name);
      const last = now - (c.silent ?? 0);
      const readings = c.readings > 0 ? series('probe.value', 1, c.readings, c.step, last) : [];
      await ingestReport(db, { deviceId: device.id }, { readings }, last);
    }
    // A report with an hourly metric beside a 15-minute one: the faster one sets the pace.
    const mixed = await make.posted<NewDevice>(t(), key, `/v1/farms/${farmId}/devices`, {
      type: 'other',
      name: 'mixed, silent 1 h',
    });
    ids.set(mixed.id, mixed.name);
    const mixedLast = now - HOUR_MS;
    await ingestReport(
      db,
      { deviceId: mixed.id },
      {
        readings: [
          ...series('a.hourly', 1, 4, HOUR_MS, mixedLast),
          ...series('b.quarterly', 1, 12, quarter, mixedLast),
        ],
      },
      mixedLast,
    );
    const never = await createDevice(
      db,
      scope,
      farmId,
      { type: 'other', name: 'never, added 7 h ago' },
      { now: now - 7 * HOUR_MS },
    );
    ids.set(never.id, never.name);
    const fresh = await make.posted<NewDevice>(t(), key, `/v1/farms/${farmId}/devices`, {
      type: 'other',
      name: 'never, added now',
    });
    ids.set(fresh.id, fresh.name);

    const body = await brief(t(), key, farmId);
    const quiet = body.items.filter((i) => i.kind === 'device_quiet');
    assert.deepEqual(
      quiet.map((i) => ids.get(i.subject_id!)).sort(),
      [
        ...cases.filter((c) => c.quiet).map((c) => c.name),
        'mixed, silent 1 h',
        'never, added 7 h ago',
      ].sort(),
    );
    assert.equal(
      quiet[0]!.subject_id,
      [...ids].find(([, n]) => n === '4 h, silent 13 h')?.[0],
      'longest silence first',
    );
    const detail = (name: string) => quiet.find((i) => ids.get(i.subject_id!) === name)?.detail;
    assert.equal(detail('15 min, silent 1 h'), 'No report for 1 h (usually every 15 min).');
    assert.equal(detail('4 h, silent 13 h'), 'No report for 13 h (usually every 4 h).');
    assert.equal(
      detail('heartbeats, silent 7 h'),
      'No report for 7 h (usual interval unknown; quiet after 6 h).',
    );
    assert.equal(detail('never, added 7 h ago'), 'Never reported since it was added 7 h ago.');
    assert.equal(body.counts.devices_quiet, quiet.length);
    assert.match(body.text, /Not reporting: /);
  });

  test('long lists stop at their limits; the counts do not', async () => {
    const acct = await t().sharedAccount();
    const key = acct.live_key;
    const farmId = (await make.farm(t(), key)).id;
    const now = Date.now();
    for (let i = 0; i < 55; i++) {
      await make.posted(t(), key, `/v1/farms/${farmId}/tasks`, {
        title: `Old job ${i}`,
        due_at: toIso(now - (60 - i) * DAY_MS),
      });
    }
    const body = await brief(t(), key, farmId);
    assert.equal(body.tasks.length, 50);
    assert.equal(body.tasks[0]!.title, 'Old job 0', 'earliest due first');
    assert.equal(body.counts.tasks_overdue, 55);
    assert.match(body.headline, /^55 overdue tasks: Old job 0\.$/);
    assert.match(body.text, /Overdue: Old job 0, Old job 1, Old job 2 and 52 more overdue tasks\./);
  });

  test('the Brief is a named schema in the OpenAPI document', async () => {
    const doc = (await t().request<OpenApiDocument>('GET', '/openapi.json')).body;
    const brief = doc.components.schemas.Brief;
    for (const field of ['headline', 'text', 'alerts', 'tasks', 'houses', 'items', 'counts']) {
      assert.ok(brief!.properties![field], field);
    }
    assert.ok(brief!.properties!.houses!.items!.properties!.doors!.properties!.after_dusk);
  });
});
