import assert from 'node:assert/strict';
import { test } from 'node:test';
import { allAlerts, nextTime, reading, testDevice } from '../../../test/alert-engine.ts';
import * as make from '../../../test/factories.ts';
import { farmEvents, outboxEvents } from '../../../test/factories.ts';
import { forEachEngine } from '../../../test/harness.ts';
import { type AlertRule, DEFAULT_RULES } from '../../domain/rules.ts';
import type { Alert } from '../alerts/schemas.ts';
import type { Farm } from '../farms/schemas.ts';

/** A value just on the safe side of `line` (0.01 inside), for this rule's direction. */
function inside(rule: AlertRule, line: number): number {
  return Number((rule.direction === 'high' ? line - 0.01 : line + 0.01).toFixed(2));
}

/** A value in the hysteresis band: past clears-at but short of watch. */
function between(rule: AlertRule): number {
  return Number(((rule.clear + rule.watch) / 2).toFixed(2));
}

/** A value 0.01 short of clears-at, on the alert side: still in the band. */
function shortOfClear(rule: AlertRule): number {
  return Number((rule.direction === 'high' ? rule.clear + 0.01 : rule.clear - 0.01).toFixed(2));
}

/** A device that naturally reports the rule's metric (names appear in titles and reasons). */
function deviceFor(rule: AlertRule) {
  if (rule.metric === 'body.temp_c') return testDevice({ name: 'Bolus 7', type: 'bolus' });
  if (rule.metric === 'device.battery_pct') return testDevice({ name: 'Tag 114', type: 'tag' });
  if (rule.metric === 'water.tank_pct') return testDevice({ name: 'North trough', type: 'water' });
  return testDevice({ name: 'House 2', type: 'house' });
}

forEachEngine('alert rules', (t) => {
  // Every test reads only its own farm, so one account serves them all (creating accounts was most of
  // this file's time: each seeds a sample farm).
  async function setup() {
    const acct = await t().sharedAccount();
    const farm = await make.farm(t(), acct.live_key, { name: 'Hillside' });
    return { key: acct.live_key, farmId: farm.id };
  }

  for (const rule of DEFAULT_RULES) {
    const { name, metric } = rule;

    test(`${name}: a reading exactly at the watch line opens a watch alert`, async () => {
      const { key, farmId } = await setup();
      const device = deviceFor(rule);
      await reading(t(), farmId, device, metric, rule.watch);
      const alerts = await allAlerts(t(), key, farmId);
      assert.equal(alerts.length, 1);
      const [alert] = alerts;
      assert.ok(alert);
      assert.equal(alert.severity, 'watch');
      assert.equal(alert.status, 'open');
      assert.equal(alert.rule, name);
      assert.equal(alert.subject_type, 'device');
      assert.equal(alert.subject_id, device.id);
      assert.equal(alert.farm_id, farmId);
      assert.equal(alert.resolved_at, null);
      assert.match(alert.id, /^alt_/);
      assert.ok(alert.title.includes(device.name), alert.title);
      assert.ok(alert.reason.includes(device.name), alert.reason);
      assert.ok(alert.reason.includes(`watch line of ${rule.watch}`), alert.reason);
      const created = await outboxEvents(t(), farmId, 'alert.created');
      assert.deepEqual(
        created.map((e) => e.data),
        [alert],
        'alert.created carries the full alert',
      );
    });

    test(`${name}: a reading just inside the watch line does nothing`, async () => {
      const { key, farmId } = await setup();
      const device = deviceFor(rule);
      await reading(t(), farmId, device, metric, inside(rule, rule.watch));
      await reading(t(), farmId, device, metric, between(rule));
      await reading(t(), farmId, device, metric, rule.clear);
      assert.deepEqual(await allAlerts(t(), key, farmId), []);
      assert.deepEqual(await outboxEvents(t(), farmId), []);
    });

    if (rule.urgent === null) {
      test(`${name}: has no urgent line, so a reading far past watch opens a watch alert`, async () => {
        const { key, farmId } = await setup();
        await reading(t(), farmId, deviceFor(rule), metric, rule.direction === 'high' ? 1e6 : -1e6);
        const alerts = await allAlerts(t(), key, farmId);
        assert.deepEqual(
          alerts.map((a) => a.severity),
          ['watch'],
        );
      });
    } else {
      const urgent = rule.urgent;

      test(`${name}: a reading exactly at the urgent line opens an urgent alert`, async () => {
        const { key, farmId } = await setup();
        const device = deviceFor(rule);
        await reading(t(), farmId, device, metric, urgent);
        const alerts = await allAlerts(t(), key, farmId);
        assert.equal(alerts.length, 1);
        assert.equal(alerts[0]?.severity, 'urgent');
        assert.ok(alerts[0]?.reason.includes(`urgent line of ${urgent}`), alerts[0]?.reason);
      });

      test(`${name}: a reading just inside the urgent line opens a watch alert`, async () => {
        const { key, farmId } = await setup();
        await reading(t(), farmId, deviceFor(rule), metric, inside(rule, urgent));
        const alerts = await allAlerts(t(), key, farmId);
        assert.deepEqual(
          alerts.map((a) => a.severity),
          ['watch'],
        );
      });

      test(`${name}: a watch alert that reaches the urgent line is escalated, not duplicated`, async () => {
        const { key, farmId } = await setup();
        const device = deviceFor(rule);
        await reading(t(), farmId, device, metric, rule.watch);
        const [before] = await allAlerts(t(), key, farmId);
        assert.ok(before);
        const at = nextTime();
        await reading(t(), farmId, device, metric, urgent, at);
        const alerts = await allAlerts(t(), key, farmId);
        assert.equal(alerts.length, 1, 'one alert per rule and subject');
        const [after] = alerts;
        assert.ok(after);
        assert.equal(after.id, before.id);
        assert.equal(after.severity, 'urgent');
        assert.equal(after.status, 'open');
        assert.notEqual(after.reason, before.reason);
        assert.ok(after.reason.includes(`urgent line of ${urgent}`), after.reason);
        const escalations = await farmEvents(t(), farmId, 'alert.escalated');
        assert.equal(escalations.length, 1);
        assert.equal(escalations[0]?.subject_id, device.id);
        assert.equal(escalations[0]?.at, at);
        assert.equal(escalations[0]?.data.alert_id, after.id);
        assert.equal(escalations[0]?.data.from, 'watch');
        assert.equal(escalations[0]?.data.to, 'urgent');
        assert.equal((await outboxEvents(t(), farmId, 'alert.created')).length, 1);
        // Further urgent and watch readings keep the one urgent alert.
        await reading(t(), farmId, device, metric, urgent);
        await reading(t(), farmId, device, metric, rule.watch);
        const later = await allAlerts(t(), key, farmId);
        assert.deepEqual(
          later.map((a) => [a.id, a.severity, a.status]),
          [[after.id, 'urgent', 'open']],
        );
        assert.equal((await farmEvents(t(), farmId, 'alert.escalated')).length, 1, 'escalated once');
      });
    }

    test(`${name}: a reading exactly at clears-at resolves the alert`, async () => {
      const { key, farmId } = await setup();
      const device = deviceFor(rule);
      await reading(t(), farmId, device, metric, rule.urgent ?? rule.watch);
      await reading(t(), farmId, device, metric, rule.clear);
      const alerts = await allAlerts(t(), key, farmId);
      assert.equal(alerts.length, 1);
      const [alert] = alerts;
      assert.equal(alert?.status, 'resolved');
      assert.equal(typeof alert?.resolved_at, 'string');
      const resolved = await outboxEvents(t(), farmId, 'alert.resolved');
      assert.deepEqual(
        resolved.map((e) => e.data),
        [alert],
      );
      // A new crossing after resolution opens a new alert.
      await reading(t(), farmId, device, metric, rule.watch);
      const again = await allAlerts(t(), key, farmId);
      assert.equal(again.length, 2);
      assert.equal(again.filter((a) => a.status === 'open').length, 1);
    });

    test(`${name}: readings between clears-at and watch change nothing (hysteresis)`, async () => {
      const { key, farmId } = await setup();
      const device = deviceFor(rule);
      await reading(t(), farmId, device, metric, rule.watch);
      const [opened] = await allAlerts(t(), key, farmId);
      await reading(t(), farmId, device, metric, between(rule));
      await reading(t(), farmId, device, metric, shortOfClear(rule));
      const [still] = await allAlerts(t(), key, farmId);
      assert.deepEqual(still, opened, 'unchanged by readings in the band');
      await reading(t(), farmId, device, metric, rule.watch);
      const alerts = await allAlerts(t(), key, farmId);
      assert.equal(alerts.length, 1, 'back at watch: still the one alert');
      assert.equal(alerts[0]?.status, 'open');
    });

    test(`${name}: an acknowledged alert resolves automatically at clears-at`, async () => {
      const { key, farmId } = await setup();
      const device = deviceFor(rule);
      await reading(t(), farmId, device, metric, rule.watch);
      const [alert] = await allAlerts(t(), key, farmId);
      assert.ok(alert);
      const ack = await t().request<Alert>('POST', `/v1/alerts/${alert.id}/acknowledge`, { key });
      assert.equal(ack.body.status, 'acknowledged');
      await reading(t(), farmId, device, metric, rule.watch);
      assert.equal(
        (await allAlerts(t(), key, farmId))[0]?.status,
        'acknowledged',
        'a crossing keeps it acknowledged',
      );
      await reading(t(), farmId, device, metric, rule.clear);
      const got = await t().request<Alert>('GET', `/v1/alerts/${alert.id}`, { key });
      assert.equal(got.body.status, 'resolved');
      assert.equal(typeof got.body.resolved_at, 'string');
      assert.equal(got.body.acknowledged_at, ack.body.acknowledged_at);
      assert.equal((await outboxEvents(t(), farmId, 'alert.resolved')).length, 1);
    });

    test(`${name}: a per-farm override in settings.rules moves the lines for the next reading`, async () => {
      const { key, farmId } = await setup();
      const device = deviceFor(rule);
      // Shift every line 5 units further out (worse) for this farm.
      const shift = rule.direction === 'high' ? 5 : -5;
      const override = {
        watch: rule.watch + shift,
        urgent: rule.urgent === null ? null : rule.urgent + shift,
        clear: rule.clear + shift,
      };
      const patched = await t().request<Farm>('PATCH', `/v1/farms/${farmId}`, {
        key,
        body: { settings: { rules: { [name]: override } } },
      });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      await reading(t(), farmId, device, metric, rule.watch);
      assert.deepEqual(await allAlerts(t(), key, farmId), [], 'the default watch line no longer fires');
      await reading(t(), farmId, device, metric, override.watch);
      let alerts = await allAlerts(t(), key, farmId);
      assert.deepEqual(
        alerts.map((a) => [a.severity, a.status]),
        [['watch', 'open']],
      );
      assert.ok(alerts[0]?.reason.includes(`watch line of ${override.watch}`), alerts[0]?.reason);
      if (override.urgent !== null) {
        await reading(t(), farmId, device, metric, inside(rule, override.urgent));
        assert.equal((await allAlerts(t(), key, farmId))[0]?.severity, 'watch');
        await reading(t(), farmId, device, metric, override.urgent);
        assert.equal((await allAlerts(t(), key, farmId))[0]?.severity, 'urgent');
      }
      // The override's clears-at is short of the default one: only the override resolves here.
      await reading(t(), farmId, device, metric, override.clear);
      alerts = await allAlerts(t(), key, farmId);
      assert.equal(alerts[0]?.status, 'resolved');
    });

    test(`${name}: readings older than the latest evaluated one neither reopen nor resolve`, async () => {
      const { key, farmId } = await setup();
      const device = deviceFor(rule);
      const t1 = nextTime();
      const t2 = nextTime();
      const t3 = nextTime();
      await reading(t(), farmId, device, metric, rule.watch, t2);
      await reading(t(), farmId, device, metric, rule.clear, t1);
      const [alert] = await allAlerts(t(), key, farmId);
      assert.equal(alert?.status, 'open', 'a late clear does not resolve');
      await reading(t(), farmId, device, metric, rule.clear, t3);
      assert.equal((await allAlerts(t(), key, farmId))[0]?.status, 'resolved');
      await reading(t(), farmId, device, metric, rule.urgent ?? rule.watch, t2);
      const alerts = await allAlerts(t(), key, farmId);
      assert.equal(alerts.length, 1, 'a late crossing does not reopen');
      assert.equal(alerts[0]?.status, 'resolved');
    });
  }
});
