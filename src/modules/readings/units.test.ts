import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as make from '../../../test/factories.ts';
import { expectError, forEachEngine } from '../../../test/harness.ts';
import type { Alert, List, Reading } from '../../../test/replies.ts';
import { inCatalogUnit } from './units.ts';

const stored = (metric: string, value: number, unit?: string) => {
  const r = inCatalogUnit(metric, value, unit);
  assert.ok(r.ok, `${value} ${unit} for ${metric} is accepted`);
  return [r.value, r.unit, r.raw?.value ?? null, r.raw?.unit ?? null];
};

test('each accepted unit is converted into the catalog unit, what was sent kept', () => {
  assert.deepEqual(stored('climate.temp_c', 75, '°F'), [23.8888888889, '°C', 75, '°F']);
  assert.deepEqual(stored('body.temp_c', 313.15, 'K'), [40, '°C', 313.15, 'K']);
  assert.deepEqual(stored('weight.kg', 1000, 'lb'), [453.59237, 'kg', 1000, 'lb']);
  assert.deepEqual(stored('weight.kg', 1500, 'g'), [1.5, 'kg', 1500, 'g']);
  assert.deepEqual(stored('water.used_l', 10, 'US gal'), [37.854118, 'L', 10, 'US gal']);
  assert.deepEqual(stored('water.used_l', 250, 'mL'), [0.25, 'L', 250, 'mL']);
  assert.deepEqual(stored('rain.mm', 0.5, 'in'), [12.7, 'mm', 0.5, 'in']);
  assert.deepEqual(stored('wind.kph', 10, 'mph'), [16.09344, 'km/h', 10, 'mph']);
  assert.deepEqual(stored('wind.kph', 5, 'm/s'), [18, 'km/h', 5, 'm/s']);
  assert.deepEqual(stored('power.solar_w', 1.2, 'kW'), [1200, 'W', 1.2, 'kW']);
  assert.deepEqual(stored('feed.bin_pct', 0.42, 'fraction'), [42, '%', 0.42, 'fraction']);
  assert.deepEqual(stored('water.tank_pct', 0.5, 'ratio'), [50, '%', 0.5, 'ratio']);
  assert.deepEqual(stored('water.flow_lpm', 60, 'L/h'), [1, 'L/min', 60, 'L/h']);
});

test('other spellings of the catalog unit are that unit; no unit is the catalog unit; a fraction sent as % stays a percentage', () => {
  for (const spelling of ['°C', 'C', 'degC', 'celsius', 'Celsius', 'deg C', '℃', 'ºC']) {
    assert.deepEqual(stored('climate.temp_c', 21, spelling), [21, '°C', null, null], spelling);
  }
  assert.deepEqual(stored('feed.bin_pct', 40, 'pct'), [40, '%', null, null]);
  assert.deepEqual(stored('feed.bin_pct', 0.42, '%'), [0.42, '%', null, null]);
  assert.deepEqual(stored('water.used_l', 3, 'litres'), [3, 'L', null, null]);
  assert.deepEqual(stored('climate.temp_c', 21), [21, '°C', null, null]);
  assert.deepEqual(
    stored('silage.temp', 70, '°F'),
    [70, '°F', null, null],
    'metrics outside the catalog keep theirs',
  );
});

test('a unit the catalog does not accept for the metric is refused with the accepted ones', () => {
  assert.deepEqual(inCatalogUnit('climate.temp_c', 20, 'kg'), {
    ok: false,
    unit: '°C',
    accepted: ['°C', '°F', 'K'],
  });
  assert.equal(inCatalogUnit('climate.nh3_ppm', 20, '%').ok, false);
});

forEachEngine('units at ingest', (t) => {
  test('climate.temp_c at 75 °F is stored as 23.9 °C and opens no heat alert; 104 °F opens an urgent one worded in °C', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const house = await make.device(t(), acct.live_key, farm, { name: 'House 2' });
    const mild = await make.report(t(), house.device_key, {
      readings: [{ metric: 'climate.temp_c', value: 75, unit: '°F' }],
    });
    assert.equal(mild.status, 200, JSON.stringify(mild.body));
    const readings = await t().request<List<Reading>>('GET', `/v1/devices/${house.id}/readings`, {
      key: acct.live_key,
    });
    const reading = readings.body.data[0];
    assert.equal(reading?.unit, '°C');
    assert.equal(Number(reading?.value.toFixed(1)), 23.9);
    assert.equal(reading?.raw_value, 75);
    assert.equal(reading?.raw_unit, '°F');
    let alerts = await t().request<List<Alert>>('GET', `/v1/farms/${farm}/alerts`, { key: acct.live_key });
    assert.equal(
      alerts.body.data.filter((a) => a.rule === 'house.heat').length,
      0,
      '75 °F is not a heat wave',
    );

    await make.report(t(), house.device_key, {
      readings: [{ metric: 'climate.temp_c', value: 104, unit: 'F' }],
    });
    alerts = await t().request<List<Alert>>('GET', `/v1/farms/${farm}/alerts`, { key: acct.live_key });
    const heat = alerts.body.data.find((a) => a.rule === 'house.heat');
    assert.equal(heat?.severity, 'urgent');
    assert.equal(heat?.reason, 'Temperature 40°C in House 2 — at or above the urgent line of 35°C');
  });

  test('a unit the catalog does not accept refuses the whole report, naming the metric and the accepted units', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const house = await make.device(t(), acct.live_key, farm);
    const res = await make.report(t(), house.device_key, {
      readings: [
        { metric: 'feed.bin_pct', value: 50 },
        { metric: 'climate.temp_c', value: 20, unit: 'bananas' },
      ],
    });
    const error = expectError(res, 400, 'invalid_request');
    assert.equal(error.param, 'readings[1].unit');
    assert.match(error.message, /climate\.temp_c is measured in °C; "bananas" .*accepted: °C, °F, K/);
    const readings = await t().request<List<Reading>>('GET', `/v1/devices/${house.id}/readings`, {
      key: acct.live_key,
    });
    assert.equal(readings.body.data.length, 0, 'no partial write');
  });

  test('a value that cannot be a measurement refuses the whole report, naming it: below absolute zero, a negative weight, beyond ±1e15', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const house = await make.device(t(), acct.live_key, farm);
    for (const [reading, said] of [
      [{ metric: 'climate.temp_c', value: -1, unit: 'K' }, /out of range in °C \(sent as -1 K\)/],
      [{ metric: 'climate.temp_c', value: -500, unit: 'degF' }, /out of range in °C \(sent as -500 degF\)/],
      [{ metric: 'body.temp_c', value: -300 }, /-300 °C is below -273\.15 °C/],
      [{ metric: 'weight.kg', value: -5 }, /-5 kg is below 0 kg, the lowest a weight\.kg can be/],
      [{ metric: 'water.tank_pct', value: 1.7e308 }, /beyond ±1e\+15/],
      [{ metric: 'my.counter', value: -1e16 }, /beyond ±1e\+15/],
    ] as const) {
      const res = await make.report(t(), house.device_key, {
        readings: [{ metric: 'feed.bin_pct', value: 50 }, reading],
      });
      const error = expectError(res, 400, 'invalid_request');
      assert.equal(error.param, 'readings[1].value', JSON.stringify(reading));
      assert.match(error.message, said);
    }
    // At the edges: absolute zero itself, a weight of 0, ±1e15 and a small negative tank level are stored.
    const edges = await make.report(t(), house.device_key, {
      readings: [
        { metric: 'climate.temp_c', value: 0, unit: 'K' },
        { metric: 'weight.kg', value: 0 },
        { metric: 'my.counter', value: 1e15 },
        { metric: 'water.tank_pct', value: -0.5 },
      ],
    });
    assert.equal(edges.status, 200, JSON.stringify(edges.body));
    const readings = await t().request<List<Reading>>('GET', `/v1/devices/${house.id}/readings`, {
      key: acct.live_key,
    });
    assert.equal(readings.body.data.length, 4, 'nothing of the refused reports');
  });

  test('the catalog lists the units each metric accepts', async () => {
    const res = await t().request<{
      metrics: Array<{ name: string; unit: string; accepted_units: string[] }>;
    }>('GET', '/v1/catalog');
    const byName = new Map(res.body.metrics.map((m) => [m.name, m]));
    assert.deepEqual(byName.get('climate.temp_c')?.accepted_units, ['°C', '°F', 'K']);
    assert.deepEqual(byName.get('wind.kph')?.accepted_units, ['km/h', 'mph', 'm/s']);
    assert.deepEqual(byName.get('feed.bin_pct')?.accepted_units, ['%', 'fraction']);
    assert.deepEqual(byName.get('birds.inside')?.accepted_units, ['birds']);
  });
});
