import assert from 'node:assert/strict';
import { test } from 'node:test';
import { allAlerts, reading, runReport, testDevice } from '../../../test/alert-engine.ts';
import * as make from '../../../test/factories.ts';
import { animalRow, farmEvents, outboxEvents } from '../../../test/factories.ts';
import { expectError, forEachEngine } from '../../../test/harness.ts';
import type { ErrorReply } from '../../../test/replies.ts';
import type { Page } from '../../db/pagination.ts';
import type { Alert } from './schemas.ts';

type AlertList = Page<Alert>;

forEachEngine('alerts', (t) => {
  // Each test reads only its own farm, so they share one account (each new account seeds a sample farm).
  async function setup() {
    const acct = await t().sharedAccount();
    const farm = await make.farm(t(), acct.live_key, { name: 'Hillside' });
    return { acct, key: acct.live_key, farmId: farm.id };
  }

  /** One open, one acknowledged and one resolved alert on the farm, each on its own house. */
  async function threeStates(key: string, farmId: string) {
    const open = testDevice({ name: 'House 1' });
    const acked = testDevice({ name: 'House 2' });
    const resolved = testDevice({ name: 'House 3' });
    await reading(t(), farmId, open, 'climate.nh3_ppm', 21);
    await reading(t(), farmId, acked, 'climate.nh3_ppm', 26);
    await reading(t(), farmId, resolved, 'climate.nh3_ppm', 22);
    const alerts = await allAlerts(t(), key, farmId);
    const idOf = (deviceId: string) => alerts.find((a) => a.subject_id === deviceId)?.id ?? '';
    const ids = { open: idOf(open.id), acknowledged: idOf(acked.id), resolved: idOf(resolved.id) };
    await t().request('POST', `/v1/alerts/${ids.acknowledged}/acknowledge`, { key });
    await t().request('POST', `/v1/alerts/${ids.resolved}/resolve`, { key });
    return ids;
  }

  test('GET /v1/farms/{farm}/alerts defaults to active (open and acknowledged); each status filter selects its alerts', async () => {
    const { key, farmId } = await setup();
    const ids = await threeStates(key, farmId);
    const list = async (query: string) => {
      const res = await t().request<AlertList>('GET', `/v1/farms/${farmId}/alerts${query}`, { key });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return (res.body.data as { id: string }[]).map((a) => a.id).sort();
    };
    const sorted = (...xs: string[]) => [...xs].sort();
    assert.deepEqual(await list(''), sorted(ids.open, ids.acknowledged), 'default is active');
    assert.deepEqual(await list('?status=active'), sorted(ids.open, ids.acknowledged));
    assert.deepEqual(await list('?status=open'), [ids.open]);
    assert.deepEqual(await list('?status=acknowledged'), [ids.acknowledged]);
    assert.deepEqual(await list('?status=resolved'), [ids.resolved]);
    assert.deepEqual(await list('?status=all'), sorted(ids.open, ids.acknowledged, ids.resolved));
    const err = expectError(
      await t().request('GET', `/v1/farms/${farmId}/alerts?status=closed`, { key }),
      400,
      'invalid_request',
    );
    assert.equal(err.param, 'status');
    assert.match(err.message, /active/);
  });

  test('alert lists put the most urgent first, then the newest, and page through that order without repeats', async () => {
    const { key, farmId } = await setup();
    const db = t().database.db;
    // Alerts at known times and severities (some in the same millisecond) to pin the order.
    const base = Date.UTC(2026, 0, 1);
    const specs: ['urgent' | 'watch' | 'info', number][] = [
      ['watch', base + 5],
      ['urgent', base + 1],
      ['info', base + 9],
      ['watch', base + 5],
      ['urgent', base + 7],
      ['watch', base + 2],
      ['urgent', base + 7],
      ['info', base + 3],
      ['watch', base + 8],
    ];
    const { newId } = await import('../../domain/ids.ts');
    const rank = { urgent: 0, watch: 1, info: 2 };
    const rows = specs.map(([severity, at], i) => ({
      id: newId('alert', at),
      farm_id: farmId,
      severity,
      severity_rank: rank[severity],
      title: `Alert ${i}`,
      reason: 'test',
      rule: `test.rule${i}`,
      subject_type: 'device',
      subject_id: `dev_${i}`,
      status: 'open' as const,
      created_at: at,
      updated_at: at,
      acknowledged_at: null,
      resolved_at: null,
    }));
    await db.insertInto('alerts').values(rows).execute();
    const expected = [...rows]
      .sort(
        (a, b) => a.severity_rank - b.severity_rank || b.created_at - a.created_at || (a.id < b.id ? 1 : -1),
      )
      .map((r) => r.id);
    const full = await t().request<AlertList>('GET', `/v1/farms/${farmId}/alerts`, { key });
    assert.deepEqual(
      full.body.data.map((a) => a.id),
      expected,
    );
    const seen: string[] = [];
    let url = `/v1/farms/${farmId}/alerts?limit=2`;
    for (let page = 0; page < 10; page++) {
      const res = await t().request<AlertList>('GET', url, { key });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      seen.push(...res.body.data.map((a) => a.id));
      if (!res.body.has_more) {
        assert.equal(res.body.next_before, null);
        break;
      }
      const next = res.body.next_before ?? '';
      assert.match(next, /^(urgent|watch|info)~\d{4}-/);
      url = `/v1/farms/${farmId}/alerts?limit=2&before=${encodeURIComponent(next)}`;
    }
    assert.deepEqual(seen, expected, 'pages follow the list order with no repeats or gaps');

    // A plain ISO time keeps alerts created strictly before it, across pages.
    const cutoff = new Date(base + 7).toISOString();
    const olderIds = expected.filter((id) => (rows.find((r) => r.id === id)?.created_at ?? 0) < base + 7);
    const older: string[] = [];
    url = `/v1/farms/${farmId}/alerts?limit=2&before=${encodeURIComponent(cutoff)}`;
    for (let page = 0; page < 10; page++) {
      const res = await t().request<AlertList>('GET', url, { key });
      older.push(...res.body.data.map((a) => a.id));
      if (!res.body.has_more) break;
      assert.ok(res.body.next_before, 'a page with more has a cursor');
      url = `/v1/farms/${farmId}/alerts?limit=2&before=${encodeURIComponent(res.body.next_before!)}`;
    }
    assert.deepEqual(older, olderIds);

    for (const before of ['yesterday', 'urgent~nope~alt_1', 'loud~2026-01-01T00:00:00.000Z~alt_1', 'a~b']) {
      const err = expectError(
        await t().request('GET', `/v1/farms/${farmId}/alerts?before=${encodeURIComponent(before)}`, { key }),
        400,
        'invalid_request',
      );
      assert.equal(err.param, 'before');
    }
    const limitErr = expectError(
      await t().request('GET', `/v1/farms/${farmId}/alerts?limit=0`, { key }),
      400,
      'invalid_request',
    );
    assert.equal(limitErr.param, 'limit');
  });

  test('GET /v1/alerts/{id} returns the alert with every field', async () => {
    const { key, farmId } = await setup();
    const device = testDevice({ name: 'House 2' });
    await reading(t(), farmId, device, 'climate.nh3_ppm', 26);
    const [listed] = await allAlerts(t(), key, farmId);
    assert.ok(listed);
    const res = await t().request<Alert>('GET', `/v1/alerts/${listed.id}`, { key });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, listed);
    assert.deepEqual(Object.keys(res.body).sort(), [
      'acknowledged_at',
      'acknowledged_by',
      'created_at',
      'farm_id',
      'id',
      'reason',
      'resolved_at',
      'rule',
      'severity',
      'status',
      'subject_id',
      'subject_type',
      'title',
      'updated_at',
      'words',
    ]);
    assert.equal(res.body.title, 'High ammonia in House 2');
    assert.equal(res.body.reason, 'Ammonia 26 ppm in House 2 — at or above the urgent line of 25 ppm');
    assert.match(res.body.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  test('acknowledged_at (tapped offline, sent later) is kept between the alert’s creation and now', async () => {
    const { key, farmId } = await setup();
    const created = Date.now() - 3 * 3_600_000;
    let n = 0;
    const old = () =>
      make.alertRow(t(), farmId, { created_at: created, updated_at: created, subject_id: `dev_${++n}` });
    const seen = new Date(created + 3_600_000).toISOString();
    const kept = await t().request<Alert>('POST', `/v1/alerts/${await old()}/acknowledge`, {
      key,
      body: { acknowledged_at: seen },
    });
    assert.equal(kept.status, 200);
    assert.equal(kept.body.status, 'acknowledged');
    assert.equal(kept.body.acknowledged_at, seen, 'the time it was tapped');

    const early = await t().request<Alert>('POST', `/v1/alerts/${await old()}/acknowledge`, {
      key,
      body: { acknowledged_at: new Date(created - 60_000).toISOString() },
    });
    assert.equal(early.body.acknowledged_at, new Date(created).toISOString(), 'never before the alert was');

    const before = Date.now();
    const ahead = await t().request<Alert>('POST', `/v1/alerts/${await old()}/acknowledge`, {
      key,
      body: { acknowledged_at: new Date(before + 86_400_000).toISOString() },
    });
    const at = Date.parse(ahead.body.acknowledged_at ?? '');
    assert.ok(at >= before - 1000 && at <= Date.now(), 'a time ahead counts as now');

    const id = await old();
    const bad = expectError(
      await t().request('POST', `/v1/alerts/${id}/acknowledge`, { key, body: { acknowledged_at: 'soon' } }),
      400,
      'invalid_request',
    );
    assert.equal(bad.param, 'acknowledged_at');
    const still = await t().request<Alert>('GET', `/v1/alerts/${id}`, { key });
    assert.equal(still.body.status, 'open', 'a refused call changes nothing');
  });

  test('acknowledge: open → acknowledged; again returns it unchanged; a resolved alert is 409', async () => {
    const { key, farmId } = await setup();
    const ids = await threeStates(key, farmId);
    const first = await t().request<Alert>('POST', `/v1/alerts/${ids.open}/acknowledge`, { key });
    assert.equal(first.status, 200);
    assert.equal(first.body.status, 'acknowledged');
    assert.equal(typeof first.body.acknowledged_at, 'string');
    assert.equal(first.body.resolved_at, null);
    const again = await t().request<Alert>('POST', `/v1/alerts/${ids.open}/acknowledge`, { key });
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, first.body, 'unchanged');
    const acked = await t().request<Alert>('GET', `/v1/alerts/${ids.acknowledged}`, { key });
    const ackedAgain = await t().request<Alert>('POST', `/v1/alerts/${ids.acknowledged}/acknowledge`, {
      key,
    });
    assert.deepEqual(ackedAgain.body, acked.body);
    const resolved = await t().request<Alert>('GET', `/v1/alerts/${ids.resolved}`, { key });
    const err = expectError(
      await t().request('POST', `/v1/alerts/${ids.resolved}/acknowledge`, { key }),
      409,
      'conflict',
    );
    assert.match(err.message, /resolved/);
    const after = await t().request<Alert>('GET', `/v1/alerts/${ids.resolved}`, { key });
    assert.deepEqual(after.body, resolved.body, 'the resolved alert is unchanged');
  });

  test('resolve: open → resolved and acknowledged → resolved, each emitting alert.resolved once; again returns it unchanged', async () => {
    const { key, farmId } = await setup();
    const ids = await threeStates(key, farmId);
    const before = (await outboxEvents(t(), farmId, 'alert.resolved')).length;
    assert.equal(before, 1, 'the alert resolved in setup');
    for (const id of [ids.open, ids.acknowledged]) {
      const res = await t().request<Alert>('POST', `/v1/alerts/${id}/resolve`, { key });
      assert.equal(res.status, 200);
      assert.equal(res.body.status, 'resolved');
      assert.equal(typeof res.body.resolved_at, 'string');
      const again = await t().request<Alert>('POST', `/v1/alerts/${id}/resolve`, { key });
      assert.equal(again.status, 200);
      assert.deepEqual(again.body, res.body, 'unchanged');
    }
    const resolved = await outboxEvents(t(), farmId, 'alert.resolved');
    assert.equal(resolved.length, 3, 'one alert.resolved per resolution, none for repeats');
    const final = await t().request<Alert>('GET', `/v1/alerts/${ids.acknowledged}`, { key });
    assert.ok(resolved.some((e) => JSON.stringify(e.data) === JSON.stringify(final.body)));
    assert.equal(typeof final.body.acknowledged_at, 'string', 'acknowledged_at is kept');
    // A resolved alert frees the slot: the next crossing opens a new alert.
    const again = await t().request<AlertList>('GET', `/v1/farms/${farmId}/alerts`, { key });
    assert.deepEqual(again.body.data, []);
  });

  test('a resolved alert no longer blocks a new one for the same rule and subject', async () => {
    const { key, farmId } = await setup();
    const device = testDevice();
    await reading(t(), farmId, device, 'feed.bin_pct', 10);
    const [first] = await allAlerts(t(), key, farmId);
    assert.ok(first);
    await t().request('POST', `/v1/alerts/${first.id}/resolve`, { key });
    await reading(t(), farmId, device, 'feed.bin_pct', 9);
    const alerts = await allAlerts(t(), key, farmId);
    assert.equal(alerts.length, 2);
    assert.deepEqual(alerts.map((a) => a.status).sort(), ['open', 'resolved']);
  });

  test("another account's alert, a missing alert and another mode's alert are all 404 not_found", async () => {
    const owner = await setup();
    const other = await t().account();
    await reading(t(), owner.farmId, testDevice(), 'climate.temp_c', 36);
    const [alert] = await allAlerts(t(), owner.key, owner.farmId);
    assert.ok(alert);
    const calls: [string, string][] = [
      ['GET', `/v1/alerts/${alert.id}`],
      ['POST', `/v1/alerts/${alert.id}/acknowledge`],
      ['POST', `/v1/alerts/${alert.id}/resolve`],
      ['GET', `/v1/farms/${owner.farmId}/alerts`],
    ];
    for (const key of [other.live_key, owner.acct.test_key]) {
      for (const [method, url] of calls) {
        expectError(await t().request(method, url, { key }), 404, 'not_found');
      }
    }
    const missing = await t().request<ErrorReply>('GET', '/v1/alerts/alt_doesnotexist', { key: owner.key });
    const foreign = await t().request<ErrorReply>('GET', `/v1/alerts/${alert.id}`, { key: other.live_key });
    assert.equal(
      foreign.body.error.message.replace(alert.id, 'ID'),
      missing.body.error.message.replace('alt_doesnotexist', 'ID'),
    );
    const still = await t().request<Alert>('GET', `/v1/alerts/${alert.id}`, { key: owner.key });
    assert.equal(still.body.status, 'open', 'nothing changed');
    expectError(await t().request('GET', `/v1/alerts/${alert.id}`), 401, 'unauthorized');
  });

  test('deleting a farm deletes its alerts', async () => {
    const { key, farmId } = await setup();
    await reading(t(), farmId, testDevice(), 'climate.temp_c', 36);
    const [alert] = await allAlerts(t(), key, farmId);
    assert.ok(alert);
    await t().request('DELETE', `/v1/farms/${farmId}`, { key });
    expectError(await t().request('GET', `/v1/alerts/${alert.id}`, { key }), 404, 'not_found');
    const rows = await t()
      .database.db.selectFrom('alerts')
      .select('id')
      .where('farm_id', '=', farmId)
      .execute();
    assert.deepEqual(rows, []);
  });

  for (const [type, severity] of [
    ['predator.detected', 'urgent'],
    ['safety_edge.stop', 'urgent'],
    ['door.jammed', 'watch'],
  ] as const) {
    test(`a ${type} device event opens a ${severity} alert at once, once while it is active, resolved by hand`, async () => {
      const { key, farmId } = await setup();
      const device = testDevice({ name: 'House 4' });
      await runReport(t(), farmId, device, {
        events: [{ type, data: { door: 3, note: 'seen at the north end' } }],
      });
      const alerts = await allAlerts(t(), key, farmId);
      assert.equal(alerts.length, 1);
      const [alert] = alerts;
      assert.ok(alert);
      assert.equal(alert.severity, severity);
      assert.equal(alert.status, 'open');
      assert.equal(alert.rule, type);
      assert.equal(alert.subject_type, 'device');
      assert.equal(alert.subject_id, device.id);
      assert.ok(alert.title.includes('House 4'), alert.title);
      assert.ok(alert.reason.includes('door 3'), alert.reason);
      assert.ok(alert.reason.includes('seen at the north end'), alert.reason);
      assert.equal((await outboxEvents(t(), farmId, 'alert.created')).length, 1);

      // A repeat while active (acknowledged too) opens nothing new.
      await runReport(t(), farmId, device, { events: [{ type }, { type }] });
      await t().request('POST', `/v1/alerts/${alert.id}/acknowledge`, { key });
      await runReport(t(), farmId, device, { events: [{ type }] });
      assert.equal((await allAlerts(t(), key, farmId)).length, 1);
      assert.equal((await outboxEvents(t(), farmId, 'alert.created')).length, 1);

      // Readings never resolve it; a person does.
      await runReport(t(), farmId, device, { readings: [{ metric: 'climate.nh3_ppm', value: 1 }] });
      assert.equal((await allAlerts(t(), key, farmId))[0]?.status, 'acknowledged');
      const resolved = await t().request<Alert>('POST', `/v1/alerts/${alert.id}/resolve`, { key });
      assert.equal(resolved.body.status, 'resolved');

      // Once resolved, the next event opens a new alert.
      await runReport(t(), farmId, device, { events: [{ type }] });
      const after = await allAlerts(t(), key, farmId);
      assert.equal(after.length, 2);
      assert.equal(after.filter((a) => a.status === 'open').length, 1);
    });
  }

  test('other device event types open no alert', async () => {
    const { key, farmId } = await setup();
    await runReport(t(), farmId, testDevice(), {
      events: [{ type: 'door.opened' }, { type: 'predator' }, { type: 'note', data: { text: 'hi' } }],
    });
    assert.deepEqual(await allAlerts(t(), key, farmId), []);
  });

  test('a reading from a device attached to an animal alerts on the animal, named as the farmer knows it', async () => {
    const { acct, key, farmId } = await setup();
    const now = Date.now();
    const { newId } = await import('../../domain/ids.ts');
    const animalId = newId('animal', now);
    await t()
      .database.db.insertInto('animals')
      .values(
        animalRow({
          id: animalId,
          farm_id: farmId,
          account_id: acct.account_id,
          name: 'Daisy',
          tag: '114',
          search_text: 'daisy\n114',
          created_at: now,
        }),
      )
      .execute();
    const bolus = testDevice({ name: 'Bolus 7', type: 'bolus', animal_id: animalId });
    await reading(t(), farmId, bolus, 'body.temp_c', 40.7);
    await reading(t(), farmId, bolus, 'device.battery_pct', 12);
    const alerts = await allAlerts(t(), key, farmId);
    assert.equal(alerts.length, 2);
    for (const alert of alerts) {
      assert.equal(alert.subject_type, 'animal');
      assert.equal(alert.subject_id, animalId);
      assert.ok(alert.title.includes('Daisy (tag 114)'), alert.title);
    }
    const fever = alerts.find((a) => a.rule === 'animal.fever');
    assert.equal(fever?.severity, 'urgent');
    assert.equal(
      fever?.reason,
      'Body temperature 40.7°C for Daisy (tag 114) (Bolus 7) — at or above the urgent line of 40.6°C',
    );
    assert.equal(fever?.title, 'Raised temperature for Daisy (tag 114)');
    // Another tracker on the same animal shares its alert rather than opening a second.
    const tag = testDevice({ name: 'Tag 9', type: 'tag', animal_id: animalId });
    await reading(t(), farmId, tag, 'body.temp_c', 40.8);
    assert.equal((await allAlerts(t(), key, farmId)).length, 2);
    // An unattached bolus alerts on itself.
    const loose = testDevice({ name: 'Bolus 8', type: 'bolus' });
    await reading(t(), farmId, loose, 'body.temp_c', 40.2);
    const looseAlert = (await allAlerts(t(), key, farmId)).find((a) => a.subject_id === loose.id);
    assert.equal(looseAlert?.subject_type, 'device');
    assert.equal(looseAlert?.severity, 'watch');
    assert.equal(looseAlert?.title, 'Raised temperature at Bolus 8');
  });

  test('readings in one report are evaluated in time order, whatever order they arrive in', async () => {
    const { key, farmId } = await setup();
    const device = testDevice();
    const base = Date.UTC(2026, 6, 1);
    // Sent newest first: opened at 12:00, resolved at 12:10, reopened (urgent) at 12:20.
    await runReport(t(), farmId, device, {
      readings: [
        { metric: 'climate.temp_c', value: 36, at: base + 20 * 60_000 },
        { metric: 'climate.temp_c', value: 29, at: base + 10 * 60_000 },
        { metric: 'climate.temp_c', value: 33, at: base },
      ],
    });
    const alerts = await allAlerts(t(), key, farmId);
    assert.deepEqual(
      alerts.map((a) => [a.severity, a.status]),
      [
        ['urgent', 'open'],
        ['watch', 'resolved'],
      ],
    );
    // A later report with an older reading changes nothing.
    await runReport(t(), farmId, device, {
      readings: [{ metric: 'climate.temp_c', value: 20, at: base + 15 * 60_000 }],
    });
    assert.equal((await allAlerts(t(), key, farmId))[0]?.status, 'open');
    // Watermarks are per device and metric: another metric's reading is not late.
    await runReport(t(), farmId, device, {
      readings: [{ metric: 'climate.nh3_ppm', value: 30, at: base + 60_000 }],
    });
    assert.equal((await allAlerts(t(), key, farmId)).length, 3);
  });

  test('a report of many readings opens, escalates, resolves and reopens exactly as the readings one by one would', async () => {
    const { key, farmId } = await setup();
    const device = testDevice({ name: 'House 6' });
    const base = Date.UTC(2026, 7, 1);
    const values = [21, 17, 22, 23, 26, 24, 27, 18, 15, 14, 21, 22];
    await runReport(t(), farmId, device, {
      readings: values.map((value, i) => ({
        metric: 'climate.nh3_ppm',
        value,
        unit: 'ppm',
        at: base + i * 60_000,
      })),
    });
    const alerts = await allAlerts(t(), key, farmId);
    assert.deepEqual(
      alerts.map((a) => [a.severity, a.status, a.reason]),
      [
        ['urgent', 'resolved', 'Ammonia 27 ppm in House 6 — at or above the urgent line of 25 ppm'],
        ['watch', 'open', 'Ammonia 22 ppm in House 6 — at or above the watch line of 20 ppm'],
      ],
    );
    const escalations = await farmEvents(t(), farmId, 'alert.escalated');
    assert.equal(escalations.length, 1);
    assert.equal(escalations[0]?.at, base + 4 * 60_000, 'escalated at the first urgent reading');
    assert.equal(escalations[0]?.data.value, 26);
    assert.equal((await outboxEvents(t(), farmId, 'alert.created')).length, 2);
    assert.equal((await outboxEvents(t(), farmId, 'alert.resolved')).length, 1);
  });

  test('a reading at watch refreshes the reason of an active alert with the latest value', async () => {
    const { key, farmId } = await setup();
    const device = testDevice({ name: 'House 5' });
    await reading(t(), farmId, device, 'water.tank_pct', 18);
    await reading(t(), farmId, device, 'water.tank_pct', 12);
    const [alert] = await allAlerts(t(), key, farmId);
    assert.equal(alert?.reason, 'Water level 12% in House 5 — at or below the watch line of 20%');
    assert.equal(alert?.title, 'Water running low in House 5');
    assert.equal((await farmEvents(t(), farmId, 'alert.escalated')).length, 0);
  });
});
