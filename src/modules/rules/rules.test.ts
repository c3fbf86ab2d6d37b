/** Custom alert rules: CRUD and validation, and the engine running them like the defaults. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { allAlerts } from '../../../test/alert-engine.ts';
import { farm, outboxEvents } from '../../../test/factories.ts';
import { expectError, forEachEngine, openTestAppOn, type TestApp } from '../../../test/harness.ts';
import { connect, ERAS, ok } from '../../../test/mcp.ts';
import { startServer } from '../../../test/processes.ts';
import type { Animal, Group, Items, Rule } from '../../../test/replies.ts';
import { alertWordsOf, renderAlertReason } from '../../domain/alert-words.ts';

async function addDevice(t: TestApp, key: string, farmId: string, body: Record<string, unknown>) {
  const res = await t.request('POST', `/v1/farms/${farmId}/devices`, { key, body });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body as { id: string; device_key: string; name: string };
}

async function ingest(t: TestApp, deviceKey: string, body: unknown) {
  const res = await t.request('POST', '/v1/ingest', { key: deviceKey, body });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

const SILAGE = {
  name: 'silage.heat',
  metric: 'silage.temp_c',
  direction: 'above',
  watch: 50,
  urgent: 60,
  clear: 45,
};
const T0 = Date.UTC(2026, 4, 1, 6, 0, 0);
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();

forEachEngine('custom rules', (t) => {
  // Every test makes a farm of its own on the shared account: a fresh account would seed a sample farm
  // per test, most of what these tests cost (on PostgreSQL about half).
  async function setup() {
    const acct = await t().sharedAccount();
    const farmId = (await farm(t(), acct.live_key)).id;
    const sensor = await addDevice(t(), acct.live_key, farmId, { type: 'other', name: 'Clamp probe' });
    return { key: acct.live_key, farmId, sensor };
  }
  async function addRule(key: string, farmId: string, body: Record<string, unknown>) {
    const res = await t().request('POST', `/v1/farms/${farmId}/rules`, { key, body });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body as { id: string; name: string };
  }

  test('CRUD: create, get, list after the defaults, patch, delete', async () => {
    const { key, farmId } = await setup();
    const created = await addRule(key, farmId, SILAGE);
    assert.match(created.id, /^rule_/);
    assert.equal((created as Record<string, unknown>).enabled, true);
    assert.equal((created as Record<string, unknown>).source, 'custom');
    const got = await t().request('GET', `/v1/rules/${created.id}`, { key });
    assert.deepEqual(got.body, created);
    const list = await t().request<Items<Rule>>('GET', `/v1/farms/${farmId}/rules`, { key });
    const names = list.body.data.map((r: { name: string }) => r.name);
    assert.equal(names.at(-1), 'silage.heat');
    assert.ok(names.indexOf('house.ammonia') < names.indexOf('silage.heat'), 'defaults first');
    assert.equal(list.body.data[0]!.source, 'default');
    const patched = await t().request<Rule>('PATCH', `/v1/rules/${created.id}`, {
      key,
      body: { watch: 55, for_s: 600 },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(patched.body.watch, 55);
    assert.equal(patched.body.for_s, 600);
    const deleted = await t().request('DELETE', `/v1/rules/${created.id}`, { key });
    assert.deepEqual(deleted.body, { id: created.id, deleted: true });
    expectError(await t().request('GET', `/v1/rules/${created.id}`, { key }), 404, 'not_found');
  });

  test('the list shows the farm overrides of the default rules', async () => {
    const { key, farmId } = await setup();
    const res = await t().request('PATCH', `/v1/farms/${farmId}`, {
      key,
      body: { settings: { rules: { 'house.heat': { watch: 33 } } } },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const list = await t().request<Items<Rule>>('GET', `/v1/farms/${farmId}/rules`, { key });
    const heat = list.body.data.find((r: { name: string }) => r.name === 'house.heat')!;
    assert.equal(heat.watch, 33);
    assert.equal(heat.direction, 'above');
    assert.equal(heat.id, null);
  });

  test('MCP list_rules gives agents the effective set', async () => {
    const { key, farmId } = await setup();
    await addRule(key, farmId, { ...SILAGE, for_s: 900 });
    const era = ERAS[0];
    assert.ok(era);
    const mcp = await connect(t(), key, era);
    try {
      const result = await ok(mcp.client, 'list_rules', { farm_id: farmId });
      const custom = result.data.find((r: { name: string }) => r.name === 'silage.heat');
      assert.equal(custom.for_s, 900);
      assert.ok(
        result.data.some(
          (r: { name: string; source: string }) => r.name === 'house.heat' && r.source === 'default',
        ),
      );
    } finally {
      await mcp.close();
    }
  });

  test('validation names the member', async () => {
    const { key, farmId } = await setup();
    const post = (body: Record<string, unknown>) =>
      t().request('POST', `/v1/farms/${farmId}/rules`, { key, body });
    assert.equal(expectError(await post({ ...SILAGE, clear: 55 }), 400, 'invalid_request').param, 'clear');
    assert.equal(expectError(await post({ ...SILAGE, urgent: 49 }), 400, 'invalid_request').param, 'urgent');
    assert.equal(
      expectError(
        await post({ ...SILAGE, direction: 'below', watch: 10, urgent: 5, clear: 8 }),
        400,
        'invalid_request',
      ).param,
      'clear',
    );
    assert.equal(
      expectError(await post({ ...SILAGE, name: 'house.heat' }), 400, 'invalid_request').param,
      'name',
    );
    assert.equal(
      expectError(await post({ ...SILAGE, direction: 'up' }), 400, 'invalid_request').param,
      'direction',
    );
    assert.equal(expectError(await post({ ...SILAGE, watch: 'hot' }), 400, 'invalid_request').param, 'watch');
    assert.equal(expectError(await post({ ...SILAGE, for_s: 0 }), 400, 'invalid_request').param, 'for_s');
    assert.equal(
      expectError(await post({ ...SILAGE, device_id: 'dev_nope' }), 400, 'invalid_request').param,
      'device_id',
    );
    assert.equal(
      expectError(await post({ ...SILAGE, group_id: 'grp_nope' }), 400, 'invalid_request').param,
      'group_id',
    );
    await addRule(key, farmId, SILAGE);
    assert.equal(expectError(await post(SILAGE), 409, 'conflict').param, 'name');
    const list = await t().request<Items<Rule>>('GET', `/v1/farms/${farmId}/rules`, { key });
    assert.equal(
      list.body.data.filter((r: { source: string }) => r.source === 'custom').length,
      1,
      'no partial writes',
    );
  });

  test('a PATCH that inverts the lines is refused and changes nothing', async () => {
    const { key, farmId } = await setup();
    const rule = await addRule(key, farmId, SILAGE);
    const res = await t().request<Rule>('PATCH', `/v1/rules/${rule.id}`, { key, body: { watch: 40 } });
    assert.equal(expectError(res, 400, 'invalid_request').param, 'watch');
    assert.equal((await t().request<Rule>('GET', `/v1/rules/${rule.id}`, { key })).body.watch, 50);
  });

  test('another account cannot see or change a rule', async () => {
    const { key, farmId } = await setup();
    const rule = await addRule(key, farmId, SILAGE);
    const other = await t().account();
    expectError(await t().request('GET', `/v1/rules/${rule.id}`, { key: other.live_key }), 404, 'not_found');
    expectError(
      await t().request('DELETE', `/v1/rules/${rule.id}`, { key: other.live_key }),
      404,
      'not_found',
    );
    expectError(
      await t().request('GET', `/v1/farms/${farmId}/rules`, { key: other.live_key }),
      404,
      'not_found',
    );
  });

  test('a custom rule on an unknown metric opens, escalates and resolves with webhooks events', async () => {
    const { key, farmId, sensor } = await setup();
    await addRule(key, farmId, SILAGE);
    await ingest(t(), sensor.device_key, { readings: [{ metric: 'silage.temp_c', value: 52, unit: '°C' }] });
    let [alert] = await allAlerts(t(), key, farmId);
    assert.equal(alert?.rule, 'silage.heat');
    assert.equal(alert?.severity, 'watch');
    assert.equal(alert?.subject_id, sensor.id);
    assert.match(alert?.reason ?? '', /52°C at Clamp probe — at or above the watch line of 50°C/);
    await ingest(t(), sensor.device_key, { readings: [{ metric: 'silage.temp_c', value: 61, unit: '°C' }] });
    [alert] = await allAlerts(t(), key, farmId);
    assert.equal(alert?.severity, 'urgent');
    await ingest(t(), sensor.device_key, { readings: [{ metric: 'silage.temp_c', value: 47, unit: '°C' }] });
    assert.equal((await allAlerts(t(), key, farmId))[0]?.status, 'open', 'hysteresis band');
    await ingest(t(), sensor.device_key, { readings: [{ metric: 'silage.temp_c', value: 45, unit: '°C' }] });
    const alerts = await allAlerts(t(), key, farmId);
    assert.equal(alerts.length, 1, 'one alert per rule and subject');
    assert.equal(alerts[0]?.status, 'resolved');
    assert.equal((await outboxEvents(t(), farmId, 'alert.created')).length, 1);
    assert.equal((await outboxEvents(t(), farmId, 'alert.resolved')).length, 1);
  });

  test('a disabled rule opens nothing; disabling and deleting resolve active alerts with a reason', async () => {
    const { key, farmId, sensor } = await setup();
    const rule = await addRule(key, farmId, SILAGE);
    await ingest(t(), sensor.device_key, { readings: [{ metric: 'silage.temp_c', value: 55 }] });
    await t().request('PATCH', `/v1/rules/${rule.id}`, { key, body: { enabled: false } });
    let [alert] = await allAlerts(t(), key, farmId);
    assert.equal(alert?.status, 'resolved');
    assert.match(alert?.reason ?? '', /resolved: rule silage\.heat was disabled/);
    const words = alertWordsOf(alert?.words);
    assert.ok(words?.note, 'the note is among the words');
    assert.equal(renderAlertReason('en', words), alert?.reason);
    assert.match(String(renderAlertReason('es', words)), / — resuelta: se desactivó la regla silage\.heat$/);
    await ingest(t(), sensor.device_key, { readings: [{ metric: 'silage.temp_c', value: 58 }] });
    assert.equal((await allAlerts(t(), key, farmId)).length, 1, 'disabled: nothing new');
    await t().request('PATCH', `/v1/rules/${rule.id}`, { key, body: { enabled: true } });
    await ingest(t(), sensor.device_key, { readings: [{ metric: 'silage.temp_c', value: 58 }] });
    assert.equal((await allAlerts(t(), key, farmId)).filter((a) => a.status === 'open').length, 1);
    await t().request('DELETE', `/v1/rules/${rule.id}`, { key });
    [alert] = (await allAlerts(t(), key, farmId)).filter((a) => a.resolved_at && /deleted/.test(a.reason));
    assert.ok(alert, 'the open alert resolved on delete');
    assert.equal((await allAlerts(t(), key, farmId)).filter((a) => a.status !== 'resolved').length, 0);
    assert.equal((await outboxEvents(t(), farmId, 'alert.resolved')).length, 2);
  });

  test("a deleted device's active alerts resolve, with alert.resolved and a reason saying so", async () => {
    const { key, farmId, sensor } = await setup();
    await addRule(key, farmId, SILAGE);
    await ingest(t(), sensor.device_key, {
      readings: [
        { metric: 'silage.temp_c', value: 55 },
        { metric: 'device.battery_pct', value: 10 },
      ],
    });
    assert.equal((await allAlerts(t(), key, farmId)).filter((a) => a.status === 'open').length, 2);
    const res = await t().request('DELETE', `/v1/devices/${sensor.id}`, { key });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const alerts = await allAlerts(t(), key, farmId);
    assert.deepEqual(
      alerts.map((a) => a.status),
      ['resolved', 'resolved'],
    );
    for (const a of alerts) {
      assert.match(a.reason, /resolved: device Clamp probe was deleted/);
      const words = alertWordsOf(a.words);
      assert.ok(words, 'the alert has words');
      assert.equal(renderAlertReason('en', words), a.reason);
      assert.match(
        String(renderAlertReason('es', words)),
        / — resuelta: se eliminó el dispositivo Clamp probe$/,
      );
    }
    assert.equal((await outboxEvents(t(), farmId, 'alert.resolved')).length, 2);
  });

  test('scope by device type, by device and by group', async () => {
    const { key, farmId, sensor } = await setup();
    const other = await addDevice(t(), key, farmId, { type: 'weather', name: 'Mast' });
    const group = await t().request<Group>('POST', `/v1/farms/${farmId}/groups`, {
      key,
      body: { name: 'Layers', species: 'chicken' },
    });
    const cow = await t().request<Animal>('POST', `/v1/farms/${farmId}/animals`, {
      key,
      body: { species: 'cattle', name: 'Daisy', group_id: group.body.id },
    });
    assert.equal(cow.status, 201, JSON.stringify(cow.body));
    const bolus = await addDevice(t(), key, farmId, {
      type: 'bolus',
      name: 'Bolus 7',
      animal_id: cow.body.id,
    });
    const lone = await addDevice(t(), key, farmId, { type: 'bolus', name: 'Bolus 8' });
    await addRule(key, farmId, { ...SILAGE, name: 'by.type', metric: 'x.a', device_type: 'other' });
    await addRule(key, farmId, { ...SILAGE, name: 'by.device', metric: 'x.b', device_id: other.id });
    await addRule(key, farmId, { ...SILAGE, name: 'by.group', metric: 'x.c', group_id: group.body.id });
    for (const d of [sensor, other, bolus, lone]) {
      await ingest(t(), d.device_key, {
        readings: [
          { metric: 'x.a', value: 99 },
          { metric: 'x.b', value: 99 },
          { metric: 'x.c', value: 99 },
        ],
      });
    }
    const got = (await allAlerts(t(), key, farmId)).map((a) => `${a.rule}:${a.subject_id}`).sort();
    assert.deepEqual(
      got,
      [`by.device:${other.id}`, `by.group:${cow.body.id}`, `by.type:${sensor.id}`].sort(),
    );
  });

  test('for_s: opens only once every reading held the line that long, across separate reports', async () => {
    const { key, farmId, sensor } = await setup();
    await addRule(key, farmId, { ...SILAGE, for_s: 1200 });
    const send = (minute: number, value: number) =>
      ingest(t(), sensor.device_key, { readings: [{ metric: 'silage.temp_c', value, at: at(minute) }] });
    await send(0, 52);
    await send(10, 53);
    assert.equal((await allAlerts(t(), key, farmId)).length, 0, '10 minutes is not 20');
    await send(15, 48); // back under the line: the window breaks
    await send(16, 52);
    await send(30, 52);
    assert.equal((await allAlerts(t(), key, farmId)).length, 0, 'the gap restarted the window');
    await send(36, 54);
    const [alert] = await allAlerts(t(), key, farmId);
    assert.equal(alert?.severity, 'watch');
    assert.match(alert?.reason ?? '', new RegExp(`since ${at(16).replace(/[.]/g, '\\.')}`));
  });

  test('for_s on a default rule through settings.rules; a bad for_s is refused naming it', async () => {
    const { key, farmId } = await setup();
    const bad = await t().request('PATCH', `/v1/farms/${farmId}`, {
      key,
      body: { settings: { rules: { 'house.heat': { for_s: 1.5 } } } },
    });
    assert.equal(expectError(bad, 400, 'invalid_request').param, 'settings.rules.house.heat.for_s');
    const res = await t().request('PATCH', `/v1/farms/${farmId}`, {
      key,
      body: { settings: { rules: { 'house.heat': { for_s: 600 } } } },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const house = await addDevice(t(), key, farmId, { type: 'house', name: 'House 2' });
    const send = (minute: number, value: number) =>
      ingest(t(), house.device_key, { readings: [{ metric: 'climate.temp_c', value, at: at(minute) }] });
    await send(0, 33);
    await send(5, 36);
    assert.equal((await allAlerts(t(), key, farmId)).length, 0, 'not yet held for 10 minutes');
    await send(10, 33);
    const [alert] = await allAlerts(t(), key, farmId);
    assert.equal(alert?.rule, 'house.heat');
    assert.equal(alert?.severity, 'watch');
    assert.match(alert?.reason ?? '', /since 2026-05-01T06:00:00\.000Z/);
    const list = await t().request<Items<Rule>>('GET', `/v1/farms/${farmId}/rules`, { key });
    assert.equal(list.body.data.find((r) => r.name === 'house.heat')!.for_s, 600);
    await send(11, 29);
    assert.equal((await allAlerts(t(), key, farmId))[0]?.status, 'resolved', 'resolution is unchanged');
  });

  test('rate: a fast drop opens a watch alert, a slow one does not; back under half the change it clears', async () => {
    const { key, farmId } = await setup();
    // The farm's own leak rule alone: the default water.leak (the same numbers) is turned off.
    const off = await t().request('PATCH', `/v1/farms/${farmId}`, {
      key,
      body: { settings: { rules: { 'water.leak': { enabled: false } } } },
    });
    assert.equal(off.status, 200);
    const tank = await addDevice(t(), key, farmId, { type: 'water', name: 'North trough' });
    const slow = await addDevice(t(), key, farmId, { type: 'water', name: 'South trough' });
    const rule = {
      name: 'trough.leak',
      kind: 'rate',
      metric: 'water.tank_pct',
      change: -30,
      window_s: 3600,
      device_type: 'water',
    };
    const created = await addRule(key, farmId, rule);
    assert.equal((created as Record<string, unknown>).watch, -30);
    assert.equal((created as Record<string, unknown>).clear, -15);
    assert.equal((created as Record<string, unknown>).direction, 'below');
    const send = (d: { device_key: string }, minute: number, value: number) =>
      ingest(t(), d.device_key, {
        readings: [{ metric: 'water.tank_pct', value, unit: '%', at: at(minute) }],
      });
    // Slow: 90 → 60 over three hours (10 per hour).
    for (const [m, v] of [
      [0, 90],
      [60, 80],
      [120, 70],
      [180, 60],
    ] as const)
      await send(slow, m, v);
    // Fast: 90 → 58 within 45 minutes, still above the 20 % low-water line.
    for (const [m, v] of [
      [0, 90],
      [15, 80],
      [30, 70],
      [45, 58],
    ] as const)
      await send(tank, m, v);
    let alerts = await allAlerts(t(), key, farmId);
    assert.deepEqual(
      alerts.map((a) => `${a.rule}:${a.subject_id}:${a.severity}`),
      [`trough.leak:${tank.id}:watch`],
    );
    assert.equal(alerts[0]?.title, 'Header tank or trough level dropping fast at North trough');
    assert.match(alerts[0]?.reason ?? '', /fell 32% within 1 h at North trough/);
    await send(tank, 90, 50); // 20 down from the window's highest (70 at minute 30): between, stays open
    assert.equal((await allAlerts(t(), key, farmId))[0]?.status, 'open');
    await send(tank, 140, 49); // within the last hour it fell 1: back under half the change
    alerts = await allAlerts(t(), key, farmId);
    assert.equal(alerts[0]?.status, 'resolved');
    assert.equal((await outboxEvents(t(), farmId, 'alert.created')).length, 1);
    assert.equal((await outboxEvents(t(), farmId, 'alert.resolved')).length, 1);
    const bad = await t().request('POST', `/v1/farms/${farmId}/rules`, {
      key,
      body: { ...rule, name: 'x', watch: 3 },
    });
    assert.equal(expectError(bad, 400, 'invalid_request').param, 'watch');
    const noWindow = await t().request('POST', `/v1/farms/${farmId}/rules`, {
      key,
      body: { name: 'y', kind: 'rate', metric: 'm', change: 5 },
    });
    assert.equal(expectError(noWindow, 400, 'invalid_request').param, 'window_s');
  });

  test('for_s: a late reading (older than one evaluated) neither completes nor breaks the window', async () => {
    const { key, farmId, sensor } = await setup();
    await addRule(key, farmId, { ...SILAGE, for_s: 600 });
    await ingest(t(), sensor.device_key, {
      readings: [
        { metric: 'silage.temp_c', value: 52, at: at(0) },
        { metric: 'silage.temp_c', value: 52, at: at(5) },
      ],
    });
    await ingest(t(), sensor.device_key, { readings: [{ metric: 'silage.temp_c', value: 40, at: at(3) }] });
    await ingest(t(), sensor.device_key, { readings: [{ metric: 'silage.temp_c', value: 52, at: at(10) }] });
    const [alert] = await allAlerts(t(), key, farmId);
    assert.equal(alert?.status, 'open', 'the late low reading did not break the window');
    assert.match(alert?.reason ?? '', new RegExp(`since ${at(0).replace(/[.]/g, '\\.')}`));
  });

  test('for_s: two processes reporting the window together open one alert', async (c) => {
    if (t().engine === 'sqlite') return c.skip('SQLite is one process’s embedded database');
    const { key, farmId, sensor } = await setup();
    await addRule(key, farmId, { ...SILAGE, for_s: 300 });
    const second = await openTestAppOn(t());
    try {
      const reports = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((m) => ({
        readings: [{ metric: 'silage.temp_c', value: 55, at: at(m) }],
      }));
      await Promise.all(reports.map((body, i) => ingest(i % 2 ? second : t(), sensor.device_key, body)));
      const alerts = await allAlerts(t(), key, farmId);
      // Reports may be evaluated out of order (a later one first makes earlier ones late), but the
      // window (minutes 0..9 all above the line) is long enough either way once minute 9 ≥ start + 5.
      assert.ok(alerts.length <= 1, 'never two alerts');
      await ingest(t(), sensor.device_key, {
        readings: [{ metric: 'silage.temp_c', value: 55, at: at(20) }],
      });
      const after = await allAlerts(t(), key, farmId);
      assert.equal(after.length, 1);
      assert.equal((await outboxEvents(t(), farmId, 'alert.created')).length, 1);
    } finally {
      await second.close();
    }
  });

  test('each process keeps a farm’s rules parsed, and the next report after a change sees it (another process too on PostgreSQL)', async () => {
    const { key, farmId, sensor } = await setup();
    // On PostgreSQL the reports go to a second OS process, which keeps its own copy of the farm's rules
    // while the rules change through this one; on SQLite both run here.
    const other =
      t().engine === 'postgres'
        ? await startServer({
            DATABASE_URL: t().config.databaseUrl ?? '',
            FARMSTEAD_MQTT_PORT: 'off',
            FARMSTEAD_WEBHOOK_WORKER: '0',
            FARMSTEAD_RATE_LIMIT: 'off',
            LOG_LEVEL: 'warn',
          })
        : null;
    try {
      let minute = 0;
      const report = async (value: number) => {
        const body = { readings: [{ metric: 'silage.temp_c', value, at: at(minute++) }] };
        if (!other) return ingest(t(), sensor.device_key, body);
        const res = await fetch(`${other.url}/v1/ingest`, {
          method: 'POST',
          headers: { authorization: `Bearer ${sensor.device_key}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        assert.equal(res.status, 200, await res.text());
      };
      const active = async () =>
        (await allAlerts(t(), key, farmId)).filter((a) => a.status !== 'resolved').map((a) => a.severity);
      await report(55); // the farm's rules are now cached, with none of its own
      assert.deepEqual(await active(), []);
      const rule = await addRule(key, farmId, SILAGE);
      await report(55);
      assert.deepEqual(await active(), ['watch'], 'a new rule runs on the next report');
      const patched = await t().request('PATCH', `/v1/rules/${rule.id}`, { key, body: { urgent: 54 } });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      await report(55);
      assert.deepEqual(await active(), ['urgent'], 'changed lines apply on the next report');
      const off = await t().request('PATCH', `/v1/rules/${rule.id}`, { key, body: { enabled: false } });
      assert.equal(off.status, 200, JSON.stringify(off.body));
      await report(70);
      assert.deepEqual(await active(), [], 'a rule turned off opens nothing');
      const on = await t().request('PATCH', `/v1/rules/${rule.id}`, { key, body: { enabled: true } });
      assert.equal(on.status, 200, JSON.stringify(on.body));
      await report(70);
      assert.deepEqual(await active(), ['urgent']);
      const gone = await t().request('DELETE', `/v1/rules/${rule.id}`, { key });
      assert.equal(gone.status, 200);
      await report(80);
      assert.deepEqual(await active(), [], 'a deleted rule runs no more');
    } finally {
      await other?.stop();
    }
  });

  test('for_s: two OS processes on PostgreSQL, reports alternating between them, open one alert', async (c) => {
    if (t().engine === 'sqlite') return c.skip('SQLite is one process’s embedded database');
    const { key, farmId, sensor } = await setup();
    await addRule(key, farmId, { ...SILAGE, for_s: 300 });
    const env = {
      DATABASE_URL: t().config.databaseUrl ?? '',
      FARMSTEAD_MQTT_PORT: 'off',
      FARMSTEAD_WEBHOOK_WORKER: '0',
      FARMSTEAD_RATE_LIMIT: 'off',
      LOG_LEVEL: 'warn',
    };
    const servers = await Promise.all([startServer(env), startServer(env)]);
    try {
      const send = async (i: number, minute: number) => {
        const server = servers[i % 2];
        assert.ok(server);
        const res = await fetch(`${server.url}/v1/ingest`, {
          method: 'POST',
          headers: { authorization: `Bearer ${sensor.device_key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ readings: [{ metric: 'silage.temp_c', value: 55, at: at(minute) }] }),
        });
        assert.equal(res.status, 200, await res.text());
      };
      // Minutes 0..4 in turn across the two processes: the window is not yet held.
      for (let m = 0; m < 5; m++) await send(m, m);
      assert.equal((await allAlerts(t(), key, farmId)).length, 0, 'held 4 min of 5: nothing yet');
      // Minute 5 and 6 sent at once to both: the window completes once, in one of them.
      await Promise.all([send(0, 5), send(1, 6)]);
      const alerts = await allAlerts(t(), key, farmId);
      assert.equal(alerts.length, 1, JSON.stringify(alerts));
      assert.match(alerts[0]?.reason ?? '', new RegExp(`since ${at(0).replace(/[.]/g, '\\.')}$`));
      assert.equal((await outboxEvents(t(), farmId, 'alert.created')).length, 1);
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
    }
  });
});
