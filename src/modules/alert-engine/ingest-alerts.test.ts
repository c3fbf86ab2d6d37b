/** The alert engine end to end: devices report through POST /v1/ingest with their own keys. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { allAlerts } from '../../../test/alert-engine.ts';
import * as make from '../../../test/factories.ts';
import { farmEvents, outboxEvents } from '../../../test/factories.ts';
import { forEachEngine, openTestAppOn, type TestApp } from '../../../test/harness.ts';
import { StatementCounter } from '../../../test/statement-counter.ts';
import { alertWordsOf, renderAlertWord } from '../../domain/alert-words.ts';
import { RULE_NAMES } from '../../domain/rules.ts';
import type { Animal } from '../animals/schemas.ts';
import type { FarmEvent } from '../events/schemas.ts';
import { ingestReport } from '../ingest/service.ts';

/** A house's metrics and a normal value of each (the bench's reports, bench/lib/reports.ts). */
const HOUSE_METRICS: ReadonlyArray<readonly [string, number]> = [
  ['climate.temp_c', 21],
  ['climate.nh3_ppm', 6],
  ['climate.humidity_pct', 60],
  ['climate.co2_ppm', 900],
  ['feed.bin_pct', 70],
  ['water.tank_pct', 70],
  ['power.battery_pct', 80],
  ['power.solar_w', 300],
  ['power.load_w', 90],
  ['birds.inside', 420],
];

async function ingest(t: TestApp, deviceKey: string, body: unknown) {
  const res = await make.report(t, deviceKey, body);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

forEachEngine('alerts through ingest', (t) => {
  // Each test reads only its own farm, so they share one account (each new account seeds a sample farm).
  async function setup() {
    const acct = await t().sharedAccount();
    const farmId = (await make.farm(t(), acct.live_key, { name: 'Hillside' })).id;
    const house = await make.device(t(), acct.live_key, farmId, { type: 'house', name: 'House 2' });
    return { key: acct.live_key, farmId, house };
  }

  test('a house reporting ammonia at the urgent line opens an urgent alert; a report at clears-at resolves it', async () => {
    const { key, farmId, house } = await setup();
    await ingest(t(), house.device_key, { readings: [{ metric: 'climate.nh3_ppm', value: 26 }] });
    const [alert] = await allAlerts(t(), key, farmId);
    assert.ok(alert);
    assert.equal(alert.severity, 'urgent');
    assert.equal(alert.status, 'open');
    assert.equal(alert.subject_type, 'device');
    assert.equal(alert.subject_id, house.id);
    assert.equal(alert.title, 'High ammonia in House 2');
    assert.equal(alert.reason, 'Ammonia 26 ppm in House 2 — at or above the urgent line of 25 ppm');
    const created = await outboxEvents(t(), farmId, 'alert.created');
    assert.deepEqual(
      created.map((e) => e.data),
      [alert],
    );
    await ingest(t(), house.device_key, { readings: [{ metric: 'climate.nh3_ppm', value: 17 }] });
    assert.equal(
      (await allAlerts(t(), key, farmId))[0]?.status,
      'open',
      'between clear and watch: still open',
    );
    await ingest(t(), house.device_key, { readings: [{ metric: 'climate.nh3_ppm', value: 15 }] });
    const [resolved] = await allAlerts(t(), key, farmId);
    assert.equal(resolved?.status, 'resolved');
    const events = await outboxEvents(t(), farmId, 'alert.resolved');
    assert.deepEqual(
      events.map((e) => e.data),
      [resolved],
    );
  });

  test('a watch alert escalated by a report is logged in the farm event log', async () => {
    const { key, farmId, house } = await setup();
    await ingest(t(), house.device_key, { readings: [{ metric: 'feed.bin_pct', value: 14 }] });
    await ingest(t(), house.device_key, { readings: [{ metric: 'feed.bin_pct', value: 4.5 }] });
    const alerts = await allAlerts(t(), key, farmId);
    assert.equal(alerts.length, 1);
    assert.equal(alerts[0]?.severity, 'urgent');
    assert.equal(alerts[0]?.reason, 'Feed bin 4.5% in House 2 — at or below the urgent line of 5%');
    const log = await t().request<{ data: FarmEvent[] }>(
      'GET',
      `/v1/farms/${farmId}/events?type=alert.escalated`,
      { key },
    );
    assert.equal(log.status, 200);
    assert.equal(log.body.data.length, 1);
    assert.equal(log.body.data[0]?.subject_id, house.id);
    assert.equal(log.body.data[0]?.data.alert_id, alerts[0]?.id);
  });

  test('a predator.detected event in a report opens an urgent alert and is logged like every device event', async () => {
    const { key, farmId } = await setup();
    const guardian = await make.device(t(), key, farmId, { type: 'guardian', name: 'Guardian 1' });
    await ingest(t(), guardian.device_key, {
      events: [
        { type: 'predator.detected', data: { species: 'fox', confidence: 0.92 } },
        { type: 'door.closed', data: {} },
      ],
    });
    const alerts = await allAlerts(t(), key, farmId);
    assert.equal(alerts.length, 1);
    assert.equal(alerts[0]?.severity, 'urgent');
    assert.equal(alerts[0]?.rule, 'predator.detected');
    assert.equal(alerts[0]?.title, 'Predator detected: Guardian 1');
    assert.equal(alerts[0]?.reason, 'Guardian 1 reported predator.detected: species fox, confidence 0.92.');
    const logged = await farmEvents(t(), farmId, 'predator.detected');
    assert.equal(logged.length, 1);
    assert.equal(logged[0]?.subject_id, guardian.id);
    await ingest(t(), guardian.device_key, {
      events: [{ type: 'predator.detected', data: { species: 'fox' } }],
    });
    assert.equal(
      (await allAlerts(t(), key, farmId)).length,
      1,
      'a repeat while active opens no second alert',
    );
    assert.equal((await farmEvents(t(), farmId, 'predator.detected')).length, 2, 'but is logged');
  });

  test('a bolus on an animal alerts on the animal by name and tag', async () => {
    const { key, farmId } = await setup();
    const animal = await t().request<Animal>('POST', `/v1/farms/${farmId}/animals`, {
      key,
      body: { species: 'cattle', name: 'Daisy', tag: '114' },
    });
    assert.equal(animal.status, 201, JSON.stringify(animal.body));
    const bolus = await make.device(t(), key, farmId, {
      type: 'bolus',
      name: 'Bolus 7',
      animal_id: animal.body.id,
    });
    await ingest(t(), bolus.device_key, { readings: [{ metric: 'body.temp_c', value: 40.1 }] });
    const [alert] = await allAlerts(t(), key, farmId);
    assert.equal(alert?.subject_type, 'animal');
    assert.equal(alert?.subject_id, animal.body.id);
    assert.equal(alert?.severity, 'watch');
    assert.equal(alert?.title, 'Raised temperature for Daisy (tag 114)');
    assert.equal(
      alert?.reason,
      'Body temperature 40.1°C for Daisy (tag 114) (Bolus 7) — at or above the watch line of 40°C',
    );
    // Its words name the animal by its name and tag, so a Spanish reader reads "crotal" for "tag".
    const words = alertWordsOf(alert?.words);
    assert.ok(words);
    assert.equal(renderAlertWord('en', words.title), alert?.title);
    assert.equal(renderAlertWord('en', words.reason), alert?.reason);
    assert.equal(renderAlertWord('es', words.title), 'Temperatura elevada: Daisy (crotal 114)');
    assert.equal(
      renderAlertWord('es', words.reason),
      'Temperatura corporal 40.1°C de Daisy (crotal 114) (Bolus 7): igual o por encima del umbral de atención de 40°C',
    );

    // An animal known by its tag alone.
    const tagged = await t().request<Animal>('POST', `/v1/farms/${farmId}/animals`, {
      key,
      body: { species: 'cattle', tag: '126' },
    });
    assert.equal(tagged.status, 201, JSON.stringify(tagged.body));
    const second = await make.device(t(), key, farmId, {
      type: 'bolus',
      name: 'Bolus 8',
      animal_id: tagged.body.id,
    });
    await ingest(t(), second.device_key, { readings: [{ metric: 'body.temp_c', value: 40.1 }] });
    const byTag = (await allAlerts(t(), key, farmId)).find((a) => a.subject_id === tagged.body.id);
    assert.equal(byTag?.title, 'Raised temperature for tag 126');
    const tagWords = alertWordsOf(byTag?.words);
    assert.ok(tagWords);
    assert.equal(renderAlertWord('es', tagWords.title), 'Temperatura elevada: crotal 126');
  });

  test('a bolus on an animal with neither name nor tag alerts on it by its EID, else its group, never its id', async () => {
    const { key, farmId } = await setup();
    const herd = await make.group(t(), key, farmId, { name: 'Cow-calf herd' });
    /** An animal of `body` with a bolus that reports a raised temperature; its alert. */
    async function alertOn(body: Record<string, unknown>, bolusName: string) {
      const animal = await t().request<Animal>('POST', `/v1/farms/${farmId}/animals`, {
        key,
        body: { species: 'cattle', ...body },
      });
      assert.equal(animal.status, 201, JSON.stringify(animal.body));
      const bolus = await make.device(t(), key, farmId, {
        type: 'bolus',
        name: bolusName,
        animal_id: animal.body.id,
      });
      await ingest(t(), bolus.device_key, { readings: [{ metric: 'body.temp_c', value: 40.1 }] });
      const alert = (await allAlerts(t(), key, farmId)).find((a) => a.subject_id === animal.body.id);
      assert.ok(alert);
      const words = alertWordsOf(alert.words);
      assert.ok(words);
      const es = { title: renderAlertWord('es', words.title), reason: renderAlertWord('es', words.reason) };
      for (const text of [alert.title, alert.reason, es.title, es.reason]) {
        assert.doesNotMatch(text ?? '', /ani_/, 'the id is no name a farmer can find');
      }
      assert.equal(renderAlertWord('en', words.title), alert.title);
      assert.equal(renderAlertWord('en', words.reason), alert.reason);
      return { alert, es };
    }

    // By its EID as its label prints it, even in a group.
    const byEid = await alertOn({ eid: '982000123456789', group_id: herd.id }, 'Bolus 9');
    assert.equal(byEid.alert.title, 'Raised temperature for EID 982 000123456789');
    assert.equal(byEid.es.title, 'Temperatura elevada: EID 982 000123456789');

    // By what it is and where.
    const inHerd = await alertOn({ group_id: herd.id }, 'Bolus 10');
    assert.equal(inHerd.alert.title, 'Raised temperature for an untagged animal in Cow-calf herd');
    assert.equal(
      inHerd.alert.reason,
      'Body temperature 40.1°C for an untagged animal in Cow-calf herd (Bolus 10) — at or above the watch line of 40°C',
    );
    assert.equal(inHerd.es.title, 'Temperatura elevada: un animal sin crotal en Cow-calf herd');
    assert.equal(
      inHerd.es.reason,
      'Temperatura corporal 40.1°C de un animal sin crotal en Cow-calf herd (Bolus 10): igual o por encima del umbral de atención de 40°C',
    );

    // By what it is alone.
    const alone = await alertOn({}, 'Bolus 11');
    assert.equal(alone.alert.title, 'Raised temperature for an untagged animal');
    assert.equal(alone.es.title, 'Temperatura elevada: un animal sin crotal');
  });

  test('a late reading in a later report neither reopens nor resolves', async () => {
    const { key, farmId, house } = await setup();
    const at = (min: number) => new Date(Date.UTC(2026, 5, 1, 3, min)).toISOString();
    await ingest(t(), house.device_key, { readings: [{ metric: 'climate.temp_c', value: 33, at: at(10) }] });
    await ingest(t(), house.device_key, { readings: [{ metric: 'climate.temp_c', value: 25, at: at(5) }] });
    assert.equal((await allAlerts(t(), key, farmId))[0]?.status, 'open');
    await ingest(t(), house.device_key, { readings: [{ metric: 'climate.temp_c', value: 25, at: at(15) }] });
    assert.equal((await allAlerts(t(), key, farmId))[0]?.status, 'resolved');
    await ingest(t(), house.device_key, { readings: [{ metric: 'climate.temp_c', value: 36, at: at(12) }] });
    const alerts = await allAlerts(t(), key, farmId);
    assert.equal(alerts.length, 1);
    assert.equal(alerts[0]?.status, 'resolved');
  });

  test('parallel reports for one device leave exactly one active alert', async () => {
    const { key, farmId, house } = await setup();
    const replies = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        t().request('POST', '/v1/ingest', {
          key: house.device_key,
          body: {
            readings: [{ metric: 'climate.nh3_ppm', value: i % 2 === 0 ? 21 : 26 }],
            events: [{ type: 'door.jammed', data: { door: 3 } }],
          },
        }),
      ),
    );
    assert.deepEqual(
      replies.map((r) => r.status),
      replies.map(() => 200),
      'no report failed',
    );
    const alerts = await allAlerts(t(), key, farmId);
    assert.deepEqual(alerts.map((a) => [a.rule, a.status]).sort(), [
      ['door.jammed', 'open'],
      ['house.ammonia', 'open'],
    ]);
    assert.equal((await outboxEvents(t(), farmId, 'alert.created')).length, 2);
  });

  test('two API processes on one database, reporting for one device at once, open one alert', async (ctx) => {
    if (t().engine !== 'postgres') {
      ctx.skip('two processes share a database server only on PostgreSQL');
      return;
    }
    const { key, farmId, house } = await setup();
    // A second, independent app (its own connection pool) on the same PostgreSQL database.
    const second = await openTestAppOn(t());
    try {
      const post = (app: FastifyInstance, value: number) =>
        app.inject({
          method: 'POST',
          url: '/v1/ingest',
          headers: { authorization: `Bearer ${house.device_key}`, 'content-type': 'application/json' },
          payload: JSON.stringify({
            readings: [{ metric: 'climate.temp_c', value }],
            events: [{ type: 'safety_edge.stop' }],
          }),
        });
      const replies = await Promise.all(
        Array.from({ length: 12 }, (_, i) => post(i % 2 === 0 ? t().app : second.app, i % 3 === 0 ? 36 : 33)),
      );
      assert.deepEqual(
        replies.map((r) => r.statusCode),
        replies.map(() => 200),
      );
    } finally {
      await second.close();
    }
    const alerts = await allAlerts(t(), key, farmId);
    assert.deepEqual(alerts.map((a) => [a.rule, a.status]).sort(), [
      ['house.heat', 'open'],
      ['safety_edge.stop', 'open'],
    ]);
  });
  test('a report costs the alert engine the same statements with 20 rules of the farm as with the defaults', async () => {
    const { key, farmId, house } = await setup();
    const counter = new StatementCounter();
    const db = t().database.db.withPlugin(counter);
    const origin = Date.UTC(2026, 4, 1);
    // Ten minutes of a house's ten metrics, every value in its normal band: nothing opens or closes.
    const report = (seq: number) => ({
      readings: Array.from({ length: 100 }, (_, i) => ({
        metric: HOUSE_METRICS[i % 10]?.[0] ?? '',
        value: (HOUSE_METRICS[i % 10]?.[1] ?? 0) + (i % 7),
        at: new Date(origin + seq * 600_000 + Math.floor(i / 10) * 60_000).toISOString(),
      })),
    });
    const statements = async (seq: number) => {
      counter.count = 0;
      await ingestReport(db, { deviceId: house.id }, report(seq), origin + seq * 600_000 + 600_000);
      return counter.count;
    };
    // Each phase's first reports read the rate windows' readings and build statements of new shapes; the
    // reports after them are the steady state.
    await statements(0);
    await statements(1);
    const defaultsOnly = await statements(2);
    for (let i = 0; i < 20; i++) {
      const [metric, line] = HOUSE_METRICS[2 + (i % 8)] ?? ['', 0];
      const rule =
        i % 4 === 3
          ? { kind: 'rate', change: line, window_s: 3600 }
          : {
              direction: 'above',
              watch: line * 2,
              clear: line * 1.5,
              ...(i % 3 === 0 ? { for_s: 600 } : {}),
            };
      await make.posted(t(), key, `/v1/farms/${farmId}/rules`, { name: `own.${i}`, metric, ...rule });
    }
    const sustained = Object.fromEntries(RULE_NAMES.map((n) => [n, { for_s: 300 }]));
    const patched = await t().request('PATCH', `/v1/farms/${farmId}`, {
      key,
      body: { settings: { rules: sustained } },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    await statements(3);
    await statements(4);
    const withRules = await statements(5);
    assert.ok(defaultsOnly > 0);
    assert.equal(withRules, defaultsOnly, 'the number of rules does not change the statements per report');
    assert.equal((await allAlerts(t(), key, farmId)).length, 0, 'every value stayed in its band');
  });
});
