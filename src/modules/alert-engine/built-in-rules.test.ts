/** The newer built-in rules end to end (water.leak), and the alert webhooks of each new kind of rule. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { allAlerts } from '../../../test/alert-engine.ts';
import * as make from '../../../test/factories.ts';
import { outboxEvents } from '../../../test/factories.ts';
import { forEachEngine } from '../../../test/harness.ts';
import type { ErrorReply } from '../../../test/replies.ts';
import { MINUTE_MS } from '../../lib/time.ts';
import { ingestReport } from '../ingest/service.ts';
import type { Rule } from '../rules/schemas.ts';

forEachEngine('built-in rules', (t) => {
  let epoch = Date.UTC(2032, 0, 1);
  const clockStart = () => {
    epoch += 10 * 86_400_000;
    return epoch;
  };

  async function setup(devices: Array<{ type: string; name: string }>) {
    const acct = await t().sharedAccount();
    const farm = await make.farm(t(), acct.live_key, { name: 'Leaky farm' });
    const made = [];
    for (const d of devices) made.push(await make.device(t(), acct.live_key, farm.id, d));
    return { key: acct.live_key, farmId: farm.id, devices: made };
  }

  async function levels(deviceId: string, metric: string, points: Array<[number, number]>) {
    for (const [at, value] of points) {
      await ingestReport(t().database.db, { deviceId }, { readings: [{ metric, value }] }, at);
    }
  }

  test('water.leak: a tank falling 30 points within an hour opens a watch alert above the low line; the webhook carries it', async () => {
    const { key, farmId, devices } = await setup([
      { type: 'water', name: 'North trough' },
      { type: 'house', name: 'House 4' },
      { type: 'weather', name: 'Station' },
    ]);
    const [trough, house, station] = devices;
    assert.ok(trough && house && station);
    const t0 = clockStart();
    await levels(trough.id, 'water.tank_pct', [
      [t0, 90],
      [t0 + 20 * MINUTE_MS, 75],
      [t0 + 40 * MINUTE_MS, 58],
    ]);
    const [leak, ...others] = await allAlerts(t(), key, farmId);
    assert.ok(leak, 'an alert opened');
    assert.equal(others.length, 0, 'only the leak: 58% is above water.level');
    assert.equal(leak.rule, 'water.leak');
    assert.equal(leak.severity, 'watch');
    assert.equal(leak.subject_id, trough.id);
    assert.equal(leak.title, 'Water dropping fast at North trough');
    assert.equal(
      leak.reason,
      'Water level fell 32% within 1 h at North trough — the rule watches for a change of -30% or more in 1 h',
    );
    assert.deepEqual(
      (await outboxEvents(t(), farmId, 'alert.created')).map((e) => e.data),
      [leak],
    );
    // Refilling: an hour later the fall over the window is under half of 30, so it clears.
    await levels(trough.id, 'water.tank_pct', [[t0 + 100 * MINUTE_MS, 57]]);
    const [cleared] = await allAlerts(t(), key, farmId);
    assert.equal(cleared?.status, 'resolved');
    assert.deepEqual(
      (await outboxEvents(t(), farmId, 'alert.resolved')).map((e) => e.data),
      [cleared],
    );

    // A slow fall (10 points an hour) opens nothing; a house falls fast, a weather station never counts.
    await levels(house.id, 'water.tank_pct', [
      [t0, 90],
      [t0 + 60 * MINUTE_MS, 80],
      [t0 + 120 * MINUTE_MS, 70],
      [t0 + 180 * MINUTE_MS, 60],
    ]);
    assert.equal((await allAlerts(t(), key, farmId)).filter((a) => a.subject_id === house.id).length, 0);
    await levels(house.id, 'water.tank_pct', [[t0 + 200 * MINUTE_MS, 25]]);
    assert.equal(
      (await allAlerts(t(), key, farmId)).find((a) => a.subject_id === house.id)?.title,
      'Water dropping fast in House 4',
    );
    await levels(station.id, 'water.tank_pct', [
      [t0, 90],
      [t0 + MINUTE_MS, 10],
    ]);
    assert.deepEqual(
      (await allAlerts(t(), key, farmId)).filter((a) => a.subject_id === station.id).map((a) => a.rule),
      ['water.level'],
      'a weather station has no water.leak',
    );
  });

  test('water.leak: a farm changes the fall and window, or turns it off', async () => {
    const { key, farmId, devices } = await setup([{ type: 'water', name: 'Header tank' }]);
    const [tank] = devices;
    assert.ok(tank);
    const patch = (rule: unknown) =>
      t().request<ErrorReply>('PATCH', `/v1/farms/${farmId}`, {
        key,
        body: { settings: { rules: { 'water.leak': rule } } },
      });
    const bad = await patch({ change: 20 });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.param, 'settings.rules.water.leak.change');
    assert.equal((await patch({ watch: 3 })).body.error.param, 'settings.rules.water.leak.watch');
    assert.equal((await patch({ change: -10, window_s: 600 })).status, 200);
    const rules = await t().request<{ data: Rule[] }>('GET', `/v1/farms/${farmId}/rules`, { key });
    const leakRule = rules.body.data.find((r) => r.name === 'water.leak');
    assert.equal(leakRule?.kind, 'rate');
    assert.equal(leakRule?.change, -10);
    assert.equal(leakRule?.window_s, 600);
    const t0 = clockStart();
    await levels(tank.id, 'water.tank_pct', [
      [t0, 90],
      [t0 + 5 * MINUTE_MS, 79],
    ]);
    assert.equal((await allAlerts(t(), key, farmId))[0]?.rule, 'water.leak');
    await levels(tank.id, 'water.tank_pct', [[t0 + 20 * MINUTE_MS, 79]]);
    assert.equal((await allAlerts(t(), key, farmId))[0]?.status, 'resolved', 'steady over the window: clear');
    assert.equal((await patch({ enabled: false })).status, 200);
    await levels(tank.id, 'water.tank_pct', [
      [t0 + 60 * MINUTE_MS, 90],
      [t0 + 65 * MINUTE_MS, 40],
    ]);
    assert.deepEqual(
      (await allAlerts(t(), key, farmId)).filter((a) => a.status !== 'resolved').map((a) => a.rule),
      [],
      'water.leak off: a fall of 50 opens nothing (40% is above water.level too)',
    );
  });

  test('a custom rule: alert.created and alert.resolved carry its alert', async () => {
    const { key, farmId, devices } = await setup([{ type: 'other', name: 'Clamp probe' }]);
    const [probe] = devices;
    assert.ok(probe);
    await make.created(t(), key, `/v1/farms/${farmId}/rules`, {
      name: 'silage.hot',
      metric: 'silage.temp_c',
      direction: 'above',
      watch: 50,
      clear: 40,
    });
    const t0 = clockStart();
    await levels(probe.id, 'silage.temp_c', [[t0, 55]]);
    const [alert] = await allAlerts(t(), key, farmId);
    assert.equal(alert?.rule, 'silage.hot');
    assert.deepEqual(
      (await outboxEvents(t(), farmId, 'alert.created')).map((e) => e.data),
      [alert],
    );
    await levels(probe.id, 'silage.temp_c', [[t0 + MINUTE_MS, 35]]);
    const [resolved] = await allAlerts(t(), key, farmId);
    assert.equal(resolved?.status, 'resolved');
    assert.deepEqual(
      (await outboxEvents(t(), farmId, 'alert.resolved')).map((e) => e.data),
      [resolved],
    );
  });
});
