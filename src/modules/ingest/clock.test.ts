import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as make from '../../../test/factories.ts';
import { forEachEngine, openTestAppOn, type TestApp } from '../../../test/harness.ts';
import { connectDevice, forEachMqttEngine } from '../../../test/mqtt.ts';
import type { Alert, HouseReply, List, Reading } from '../../../test/replies.ts';
import { alertWordsOf, renderAlertReason } from '../../domain/alert-words.ts';
import { repairFutureTimes } from './clock-repair.ts';

const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();

async function clockAlerts(t: TestApp, key: string, farmId: string): Promise<Alert[]> {
  const res = await t.request<List<Alert>>('GET', `/v1/farms/${farmId}/alerts?status=all`, { key });
  return res.body.data.filter((a) => a.rule === 'device.clock');
}

async function readingsOf(t: TestApp, key: string, deviceId: string): Promise<Reading[]> {
  const res = await t.request<List<Reading>>('GET', `/v1/devices/${deviceId}/readings?limit=500`, { key });
  return res.body.data;
}

forEachEngine('device clocks', (t) => {
  test('a reading or event dated beyond the tolerance is refused and reported; the rest of the report is stored', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const house = await make.device(t(), acct.live_key, farm);
    const now = Date.now();
    const res = await make.report(t(), house.device_key, {
      readings: [
        { metric: 'climate.temp_c', value: 21, at: iso(now - 60_000) },
        { metric: 'climate.temp_c', value: 22, at: '2030-01-01T00:00:00Z' },
        { metric: 'feed.bin_pct', value: 50, at: iso(now + 200_000) }, // within 300 s: stored
        { metric: 'climate.nh3_ppm', value: 9 },
      ],
      events: [
        { type: 'door.opened', data: {}, at: iso(now + 2 * HOUR) },
        { type: 'door.closed', data: {} },
      ],
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.accepted, 3, 'accepted counts what was stored');
    assert.equal(res.body.refused?.length, 1);
    assert.deepEqual(
      { ...res.body.refused?.[0], message: undefined },
      {
        index: 1,
        metric: 'climate.temp_c',
        at: '2030-01-01T00:00:00.000Z',
        reason: 'clock_ahead',
        message: undefined,
      },
    );
    assert.match(res.body.refused?.[0]?.message ?? '', /ahead of the server's clock .*tolerance 300 s/);
    assert.equal(res.body.refused_events?.length, 1);
    assert.equal(res.body.refused_events?.[0]?.index, 0);
    assert.equal(res.body.refused_events?.[0]?.type, 'door.opened');

    const stored = await readingsOf(t(), acct.live_key, house.id);
    assert.deepEqual(stored.map((r) => r.value).sort(), [21, 50, 9].sort());
    assert.equal(
      (await make.farmEvents(t(), farm, 'door.opened')).length,
      0,
      'the future event is not logged',
    );
    assert.equal((await make.farmEvents(t(), farm, 'door.closed')).length, 1);
    const view = await t().request<HouseReply>('GET', `/v1/houses/${house.id}`, { key: acct.live_key });
    assert.equal(view.body.latest_readings['climate.temp_c']?.value, 21, 'the latest value is a real one');
  });

  test('a report with refused times opens one device.clock alert, however many; a later sane report resolves it', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const house = await make.device(t(), acct.live_key, farm, { name: 'House 7' });
    const ahead = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        metric: 'climate.temp_c',
        value: 20 + i,
        at: iso(Date.now() + 24 * HOUR + i * 60_000),
      }));
    await make.report(t(), house.device_key, { readings: ahead(5) });
    let alerts = await clockAlerts(t(), acct.live_key, farm);
    assert.equal(alerts.length, 1, 'one alert for five refused readings');
    assert.equal(alerts[0]?.severity, 'watch');
    assert.equal(alerts[0]?.subject_id, house.id);
    assert.equal(alerts[0]?.title, 'Clock ahead: House 7');
    assert.match(alerts[0]?.reason ?? '', /House 7 dated 5 readings or events up to .* not stored/);

    await make.report(t(), house.device_key, { readings: ahead(2) });
    await make.report(t(), house.device_key, { battery: 80 }); // a heartbeat says nothing about the clock
    alerts = await clockAlerts(t(), acct.live_key, farm);
    assert.equal(alerts.length, 1, 'still one alert');
    assert.equal(alerts[0]?.status, 'open');

    const sane = await make.report(t(), house.device_key, {
      readings: [{ metric: 'climate.temp_c', value: 24 }],
    });
    assert.equal(sane.body.refused, undefined, 'nothing refused: no refused member');
    alerts = await clockAlerts(t(), acct.live_key, farm);
    assert.equal(alerts.length, 1);
    assert.equal(alerts[0]?.status, 'resolved');
    assert.match(alerts[0]?.reason ?? '', /resolved: House 7 reported with times within the tolerance/);
    const words = alertWordsOf(alerts[0]?.words);
    assert.ok(words?.note, 'the note is among the words');
    assert.equal(renderAlertReason('en', words), alerts[0]?.reason);
    assert.match(
      String(renderAlertReason('es', words)),
      / — resuelta: House 7 reportó con horas dentro de la tolerancia el \d{4}-/,
    );

    await make.report(t(), house.device_key, { events: [{ type: 'x', at: iso(Date.now() + HOUR) }] });
    alerts = await clockAlerts(t(), acct.live_key, farm);
    assert.equal(alerts.filter((a) => a.status === 'open').length, 1, 'a refused event opens it again');
  });

  test('the tolerance is FARMSTEAD_MAX_CLOCK_SKEW_S', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const house = await make.device(t(), acct.live_key, farm);
    const strict = await openTestAppOn(t(), { maxClockSkewS: 60 });
    try {
      const res = await make.report(strict, house.device_key, {
        readings: [
          { metric: 'climate.temp_c', value: 20, at: iso(Date.now() + 30_000) },
          { metric: 'climate.temp_c', value: 21, at: iso(Date.now() + 180_000) },
        ],
      });
      assert.equal(res.body.accepted, 1);
      assert.deepEqual(
        res.body.refused?.map((r) => r.index),
        [1],
      );
      assert.match(res.body.refused?.[0]?.message ?? '', /tolerance 60 s/);
    } finally {
      await strict.close();
    }
  });

  test('device.clock is listed with the farm rules and may be turned off', async () => {
    const acct = await t().sharedAccount();
    const farm = (
      await make.farm(t(), acct.live_key, { settings: { rules: { 'device.clock': { enabled: false } } } })
    ).id;
    const rules = await make.fetched<List<{ name: string; kind: string; enabled: boolean }>>(
      t(),
      acct.live_key,
      `/v1/farms/${farm}/rules`,
    );
    const clock = rules.data.find((r) => r.name === 'device.clock');
    assert.deepEqual({ kind: clock?.kind, enabled: clock?.enabled }, { kind: 'clock', enabled: false });
    const house = await make.device(t(), acct.live_key, farm);
    const res = await make.report(t(), house.device_key, {
      readings: [{ metric: 'climate.temp_c', value: 20, at: '2031-01-01T00:00:00Z' }],
    });
    assert.equal(res.body.refused?.length, 1, 'still refused');
    assert.equal((await clockAlerts(t(), acct.live_key, farm)).length, 0, 'but no alert');
  });

  test('a watermark stored in the future does not stop evaluation; the start-up repair resets watermarks and latest values', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const db = t().database.db;
    const now = Date.now();
    const future = Date.UTC(2030, 0, 1);
    const seed = async (name: string) => {
      const house = await make.device(t(), acct.live_key, farm, { name });
      await make.report(t(), house.device_key, {
        readings: [{ metric: 'climate.temp_c', value: 21, at: iso(now - HOUR) }],
      });
      // As an older server stored a reading from a device whose clock said 2030.
      await db
        .insertInto('readings')
        .values({
          device_id: house.id,
          farm_id: farm,
          metric: 'climate.temp_c',
          value: 5,
          unit: '°C',
          at: future,
        })
        .execute();
      await db
        .updateTable('alert_watermarks')
        .set({ at: future })
        .where('device_id', '=', house.id)
        .execute();
      await db
        .updateTable('device_latest')
        .set({ value: 5, at: future })
        .where('device_id', '=', house.id)
        .execute();
      await db
        .insertInto('device_latest')
        .values({ device_id: house.id, metric: 'ghost.metric', value: 1, unit: null, at: future })
        .execute();
      return house;
    };
    const heat = async (house: { device_key: string }) =>
      make.report(t(), house.device_key, { readings: [{ metric: 'climate.temp_c', value: 40 }] });

    // The engine alone: the 2030 watermark is no watermark, so 40 °C opens its alert.
    const blinded = await seed('House A');
    await heat(blinded);
    let alerts = await t().request<List<Alert>>('GET', `/v1/farms/${farm}/alerts`, { key: acct.live_key });
    assert.ok(
      alerts.body.data.some((a) => a.rule === 'house.heat' && a.subject_id === blinded.id),
      'a reading after a future watermark is evaluated',
    );

    // The start-up step.
    const repairedHouse = await seed('House B');
    const repaired = await repairFutureTimes(db, Date.now(), 300_000);
    assert.ok(repaired.watermarks >= 1, JSON.stringify(repaired));
    assert.ok(repaired.latest >= 2, JSON.stringify(repaired));
    const marks = await db
      .selectFrom('alert_watermarks')
      .select('at')
      .where('device_id', '=', repairedHouse.id)
      .execute();
    assert.deepEqual(marks, [], 'the future watermark is gone');
    const latest = await db
      .selectFrom('device_latest')
      .selectAll()
      .where('device_id', '=', repairedHouse.id)
      .execute();
    assert.deepEqual(
      latest.map((r) => [r.metric, Number(r.value), Number(r.at)]),
      [['climate.temp_c', 21, now - HOUR]],
      'the latest value is the newest real reading again; one with none is dropped',
    );
    assert.deepEqual(await repairFutureTimes(db, Date.now(), 300_000), {
      watermarks: 0,
      breaches: 0,
      latest: 0,
    });

    await heat(repairedHouse);
    alerts = await t().request<List<Alert>>('GET', `/v1/farms/${farm}/alerts`, { key: acct.live_key });
    assert.ok(alerts.body.data.some((a) => a.rule === 'house.heat' && a.subject_id === repairedHouse.id));
    const view = await t().request<HouseReply>('GET', `/v1/houses/${repairedHouse.id}`, {
      key: acct.live_key,
    });
    assert.equal(view.body.latest_readings['climate.temp_c']?.value, 40);
  });
});

forEachMqttEngine('device clocks over MQTT', (t) => {
  test('the MQTT answer carries the refusals as the HTTP one does', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const house = await make.device(t(), acct.live_key, farm);
    const device = await connectDevice(`mqtt://127.0.0.1:${t().mqttPort}`, house.id, house.device_key);
    try {
      await device.client.subscribeAsync(`farmstead/devices/${house.id}/report/result`, { qos: 1 });
      await device.client.publishAsync(
        `farmstead/devices/${house.id}/report`,
        JSON.stringify({
          readings: [
            { metric: 'climate.temp_c', value: 20 },
            { metric: 'climate.temp_c', value: 21, at: '2030-06-01T00:00:00Z' },
          ],
        }),
        { qos: 1 },
      );
      const answer = await device.next(`farmstead/devices/${house.id}/report/result`);
      assert.equal(answer.json.accepted, 1);
      assert.equal(answer.json.refused.length, 1);
      assert.equal(answer.json.refused[0].index, 1);
      assert.equal(answer.json.refused[0].reason, 'clock_ahead');
      assert.equal((await clockAlerts(t(), acct.live_key, farm)).length, 1);
    } finally {
      await device.end();
    }
  });
});
