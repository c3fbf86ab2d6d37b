/**
 * The built-in rules through a farm's settings.rules: the effective set lists all ten with their kinds
 * and settings, and turning one off resolves what it opened, as for a farm's own rules.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { sql } from 'kysely';
import { allAlerts } from '../../../test/alert-engine.ts';
import * as make from '../../../test/factories.ts';
import { outboxEvents } from '../../../test/factories.ts';
import { forEachEngine } from '../../../test/harness.ts';
import { connect, ERAS, ok } from '../../../test/mcp.ts';
import type { ErrorReply, Farm } from '../../../test/replies.ts';
import { HOUR_MS, MINUTE_MS } from '../../lib/time.ts';
import { checkIntake } from '../alert-passes/intake.ts';
import { checkQuietDevices, QUIET_PASS_LOCK, waitForQuietPass } from '../alert-passes/quiet.ts';
import { ingestReport } from '../ingest/service.ts';
import type { Rule } from './schemas.ts';

const DAY_MS = 24 * HOUR_MS;

forEachEngine('built-in rules in settings.rules', (t) => {
  // Each test has its own farm and its own stretch of time, so a pass at its `now` finds only its devices.
  let epoch = Date.UTC(2034, 0, 1);
  const clockStart = () => {
    epoch += 40 * DAY_MS;
    return epoch;
  };

  async function setup() {
    const acct = await t().sharedAccount();
    const key = acct.live_key;
    const farm = await make.farm(t(), key, { name: 'Rule farm' });
    const layers = await make.group(t(), key, farm.id, {
      name: 'Layers',
      species: 'chicken',
      head_count: 100,
    });
    const house = await make.device(t(), key, farm.id, {
      type: 'house',
      name: 'House 1',
      group_id: layers.id,
    });
    const trough = await make.device(t(), key, farm.id, { type: 'water', name: 'North trough' });
    const tag = await make.device(t(), key, farm.id, { type: 'tag', name: 'Tag 7' });
    return { key, farmId: farm.id, house, trough, tag };
  }

  const report = (deviceId: string, readings: Array<{ metric: string; value: number }>, at: number) =>
    ingestReport(t().database.db, { deviceId }, { readings }, at);

  /** A week of water at 50 L a day, then a day of `lastDay` L, one report a day; the pass judges it at `day0`. */
  async function intakeWeek(farmId: string, houseId: string, day0: number, lastDay: number) {
    for (let i = 8; i >= 1; i--) {
      const value = i === 1 ? lastDay : 50;
      await report(houseId, [{ metric: 'water.used_l', value }], day0 - i * DAY_MS + HOUR_MS);
    }
    await checkIntake(t().database.db, day0 + HOUR_MS, { farmId });
  }

  const patchRules = <T = Farm>(key: string, farmId: string, rules: unknown) =>
    t().request<T>('PATCH', `/v1/farms/${farmId}`, { key, body: { settings: { rules } } });

  test('GET rules lists the eleven built-in rules with their kinds and the farm settings applied, then its own; MCP list_rules the same', async () => {
    const { key, farmId } = await setup();
    const saved = await patchRules(key, farmId, {
      'house.heat': { watch: 33 },
      'water.leak': { change: -20, window_s: 1800 },
      'device.quiet': { quiet_after_s: { water: 7200 } },
      'group.intake_drop': { drop_pct: { 'water.used_l': 40 }, enabled: false },
    });
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
    await make.created(t(), key, `/v1/farms/${farmId}/rules`, {
      name: 'silage.hot',
      metric: 'silage.temp_c',
      direction: 'above',
      watch: 50,
      clear: 40,
    });
    const list = await t().request<{ data: Rule[] }>('GET', `/v1/farms/${farmId}/rules`, { key });
    assert.equal(list.status, 200, JSON.stringify(list.body));
    const rules = list.body.data;
    assert.deepEqual(
      rules.map((r) => [r.name, r.kind, r.source]),
      [
        ['house.ammonia', 'threshold', 'default'],
        ['house.heat', 'threshold', 'default'],
        ['house.feed', 'threshold', 'default'],
        ['water.level', 'threshold', 'default'],
        ['house.battery', 'threshold', 'default'],
        ['animal.fever', 'threshold', 'default'],
        ['device.battery', 'threshold', 'default'],
        ['water.leak', 'rate', 'default'],
        ['device.quiet', 'silence', 'default'],
        ['group.intake_drop', 'rollup', 'default'],
        ['device.clock', 'clock', 'default'],
        ['silage.hot', 'threshold', 'custom'],
      ],
    );
    const byName = new Map(rules.map((r) => [r.name, r]));
    assert.equal(byName.get('house.heat')?.watch, 33);
    assert.equal(byName.get('water.leak')?.change, -20);
    assert.equal(byName.get('water.leak')?.window_s, 1800);
    const quiet = byName.get('device.quiet');
    assert.equal(quiet?.enabled, true);
    assert.equal(quiet?.quiet_after_s?.water, 7200, 'the farm setting for water devices');
    assert.equal(quiet?.quiet_after_s?.house, 900, 'the default for every other type');
    assert.equal(quiet?.metric, null);
    assert.equal(quiet?.watch, null);
    const intake = byName.get('group.intake_drop');
    assert.equal(intake?.enabled, false);
    assert.deepEqual(intake?.drop_pct, { 'water.used_l': 40, 'feed.dispensed_kg': 20 });
    assert.equal(byName.get('silage.hot')?.quiet_after_s, null);

    const era = ERAS[0];
    assert.ok(era);
    const mcp = await connect(t(), key, era);
    try {
      const result = await ok(mcp.client, 'list_rules', { farm_id: farmId });
      assert.deepEqual(result.data, rules, 'MCP list_rules is the same effective set');
    } finally {
      await mcp.close();
    }
  });

  test('drop_pct and quiet_after_s: bad values are 400 naming the member', async () => {
    const { key, farmId } = await setup();
    const cases: Array<[unknown, string]> = [
      [
        { 'group.intake_drop': { drop_pct: { 'water.used_l': 5 } } },
        'group.intake_drop.drop_pct.water.used_l',
      ],
      [{ 'group.intake_drop': { drop_pct: { milk: 30 } } }, 'group.intake_drop.drop_pct.milk'],
      [{ 'group.intake_drop': { drop_pct: 'half' } }, 'group.intake_drop.drop_pct'],
      [{ 'group.intake_drop': { recover_pct: 5 } }, 'group.intake_drop.recover_pct'],
      [{ 'device.quiet': { quiet_after_s: { tractor: 900 } } }, 'device.quiet.quiet_after_s.tractor'],
    ];
    for (const [rules, param] of cases) {
      const res = await patchRules<ErrorReply>(key, farmId, rules);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.error.param, `settings.rules.${param}`, JSON.stringify(res.body));
    }
    assert.equal((await patchRules(key, farmId, { 'group.intake_drop': { drop_pct: 30 } })).status, 200);
  });

  test("group.intake_drop: the farm's drop_pct decides whether a day's drop opens an alert", async () => {
    const { key, farmId, house } = await setup();
    assert.equal(
      (await patchRules(key, farmId, { 'group.intake_drop': { drop_pct: { 'water.used_l': 50 } } })).status,
      200,
    );
    const day0 = clockStart();
    await intakeWeek(farmId, house.id, day0, 30); // 40 % below the median: under the farm's 50
    const intakeAlerts = async () =>
      (await allAlerts(t(), key, farmId)).filter((a) => a.rule === 'group.intake_drop');
    assert.deepEqual(await intakeAlerts(), []);
    assert.equal((await patchRules(key, farmId, { 'group.intake_drop': { drop_pct: 35 } })).status, 200);
    await checkIntake(t().database.db, day0 + 2 * HOUR_MS, { farmId });
    const [alert] = await intakeAlerts();
    assert.match(
      alert?.reason ?? '',
      /40% below its 7-day median .*\(the rule opens at more than 35% below\)$/,
    );
  });

  test('turning off water.leak, device.quiet and group.intake_drop resolves their alerts with alert.resolved; other changes keep them', async () => {
    const { key, farmId, house, trough, tag } = await setup();
    const day0 = clockStart();
    await intakeWeek(farmId, house.id, day0, 30);
    await report(trough.id, [{ metric: 'water.tank_pct', value: 90 }], day0 + 10 * MINUTE_MS);
    await report(trough.id, [{ metric: 'water.tank_pct', value: 58 }], day0 + 30 * MINUTE_MS);
    await report(tag.id, [{ metric: 'device.battery_pct', value: 80 }], day0);
    await report(tag.id, [{ metric: 'device.battery_pct', value: 80 }], day0 + 10 * MINUTE_MS);
    await checkQuietDevices(t().database.db, day0 + 3 * HOUR_MS, { farmId });

    const active = async () =>
      (await allAlerts(t(), key, farmId))
        .filter((a) => a.status !== 'resolved')
        .map((a) => `${a.rule} ${a.subject_id}`);
    const opened = [
      `group.intake_drop ${(await t().database.db.selectFrom('devices').select('group_id').where('id', '=', house.id).executeTakeFirstOrThrow()).group_id}`,
      `water.leak ${trough.id}`,
      `device.quiet ${trough.id}`,
      `device.quiet ${tag.id}`,
    ].sort();
    assert.deepEqual((await active()).sort(), opened);

    // Moving lines and settings keeps every rule on: nothing resolves.
    const kept = await patchRules(key, farmId, {
      'house.heat': { watch: 33 },
      'device.quiet': { quiet_after_s: 1800 },
      'group.intake_drop': { drop_pct: 30 },
      'water.leak': { change: -25 },
    });
    assert.equal(kept.status, 200, JSON.stringify(kept.body));
    assert.deepEqual((await active()).sort(), opened);
    assert.deepEqual(await outboxEvents(t(), farmId, 'alert.resolved'), []);

    const off = await patchRules(key, farmId, {
      'house.heat': { watch: 33 },
      'device.quiet': { enabled: false },
      'group.intake_drop': { enabled: false },
      'water.leak': { enabled: false },
    });
    assert.equal(off.status, 200, JSON.stringify(off.body));
    assert.deepEqual(await active(), []);
    const resolved = (await allAlerts(t(), key, farmId)).filter((a) => a.status === 'resolved');
    assert.equal(resolved.length, 4);
    for (const alert of resolved) {
      assert.ok(
        alert.reason.endsWith(`— resolved: rule ${alert.rule} was disabled`),
        `${alert.rule}: ${alert.reason}`,
      );
    }
    assert.deepEqual(
      (await outboxEvents(t(), farmId, 'alert.resolved')).map((e) => e.data.id).sort(),
      resolved.map((a) => a.id).sort(),
      'one alert.resolved webhook event each',
    );

    // On again: devices still silent are alerted afresh by the next pass (their quiet marks were cleared).
    assert.equal((await patchRules(key, farmId, { 'house.heat': { watch: 33 } })).status, 200);
    await checkQuietDevices(t().database.db, day0 + 4 * HOUR_MS, { farmId });
    assert.deepEqual((await active()).sort(), [`device.quiet ${trough.id}`, `device.quiet ${tag.id}`].sort());
  });

  test('PostgreSQL: turning device.quiet off waits for a quiet pass in flight and resolves the alert it opened', async (ctx) => {
    if (t().engine !== 'postgres') {
      ctx.skip('the passes run under an advisory lock only on PostgreSQL');
      return;
    }
    const { key, farmId, tag } = await setup();
    const day0 = clockStart();
    await report(tag.id, [{ metric: 'device.battery_pct', value: 80 }], day0);
    await report(tag.id, [{ metric: 'device.battery_pct', value: 80 }], day0 + 10 * MINUTE_MS);
    const db = t().database.db;
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let opened = () => {};
    const passOpened = new Promise<void>((resolve) => {
      opened = resolve;
    });
    // A pass in flight: it holds the pass lock and has opened the tag's alert, not yet committed.
    const pass = db.transaction().execute(async (trx) => {
      await waitForQuietPass(trx);
      assert.equal((await checkQuietDevices(trx, day0 + 3 * HOUR_MS, { farmId })).opened, 1);
      opened();
      await released;
    });
    await passOpened;
    const patched = patchRules(key, farmId, { 'device.quiet': { enabled: false } });
    // The PATCH queues on the pass's lock (seen in pg_locks), then the pass commits.
    let waiting = 0;
    try {
      for (let i = 0; i < 5_000 && waiting === 0; i++) {
        const row = await sql<{ n: string | number }>`select count(*) as n from pg_locks
          where locktype = 'advisory' and objid = ${QUIET_PASS_LOCK} and not granted
            and database = (select oid from pg_database where datname = current_database())`.execute(db);
        waiting = Number(row.rows[0]?.n ?? 0);
        if (waiting === 0) await nextTurn();
      }
    } finally {
      release();
      await pass;
    }
    assert.equal(waiting, 1, 'the settings change waited for the pass');
    assert.equal((await patched).status, 200);
    const quiet = (await allAlerts(t(), key, farmId)).filter((a) => a.rule === 'device.quiet');
    assert.equal(quiet.length, 1);
    assert.equal(quiet[0]?.status, 'resolved', 'the alert the pass opened is resolved by the change');
    assert.match(quiet[0]?.reason ?? '', /— resolved: rule device\.quiet was disabled$/);
  });
});
