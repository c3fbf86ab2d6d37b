import assert from 'node:assert/strict';
import { test } from 'node:test';
import { allAlerts, runReport, testDevice } from '../../../test/alert-engine.ts';
import * as make from '../../../test/factories.ts';
import { outboxEvents } from '../../../test/factories.ts';
import { forEachEngine } from '../../../test/harness.ts';
import { newId } from '../../domain/ids.ts';

forEachEngine('alert concurrency', (t) => {
  test('the database refuses a second active alert for one farm, rule and subject', async () => {
    const acct = await t().sharedAccount();
    const farmId = (await make.farm(t(), acct.live_key, { name: 'Hillside' })).id;
    const now = Date.now();
    const row = (status: 'open' | 'acknowledged' | 'resolved') => ({
      id: newId('alert', now),
      farm_id: farmId,
      severity: 'watch' as const,
      severity_rank: 1,
      title: 't',
      reason: 'r',
      rule: 'house.heat',
      subject_type: 'device',
      subject_id: 'dev_x',
      status,
      created_at: now,
      updated_at: now,
      acknowledged_at: null,
      resolved_at: null,
    });
    const db = t().database.db;
    await db
      .insertInto('alerts')
      .values([row('resolved'), row('resolved'), row('open')])
      .execute();
    await assert.rejects(db.insertInto('alerts').values(row('acknowledged')).execute());
    await assert.rejects(db.insertInto('alerts').values(row('open')).execute());
  });

  test('parallel reports for one device leave exactly one active alert', async () => {
    const acct = await t().sharedAccount();
    const farmId = (await make.farm(t(), acct.live_key, { name: 'Hillside' })).id;
    const device = testDevice();
    const base = Date.now();
    // Twelve reports at once, each crossing the ammonia lines (some watch, some urgent).
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        runReport(t(), farmId, device, {
          readings: [{ metric: 'climate.nh3_ppm', value: i % 3 === 0 ? 27 : 22, at: base + i }],
          events: [{ type: 'predator.detected', data: { n: i } }],
        }),
      ),
    );
    const alerts = await allAlerts(t(), acct.live_key, farmId);
    assert.deepEqual(alerts.map((a) => [a.rule, a.status]).sort(), [
      ['house.ammonia', 'open'],
      ['predator.detected', 'open'],
    ]);
    assert.equal((await outboxEvents(t(), farmId, 'alert.created')).length, 2);
  });

  test('parallel reports from two trackers on one animal share one active alert', async () => {
    const acct = await t().sharedAccount();
    const farmId = (await make.farm(t(), acct.live_key, { name: 'Hillside' })).id;
    const animalId = newId('animal');
    const bolus = testDevice({ name: 'Bolus 1', type: 'bolus', animal_id: animalId });
    const tag = testDevice({ name: 'Tag 1', type: 'tag', animal_id: animalId });
    const base = Date.now();
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        runReport(t(), farmId, i % 2 === 0 ? bolus : tag, {
          readings: [{ metric: 'body.temp_c', value: 40.2 + (i % 4) * 0.2, at: base + i }],
        }),
      ),
    );
    const alerts = await allAlerts(t(), acct.live_key, farmId);
    assert.equal(alerts.length, 1);
    assert.equal(alerts[0]?.subject_id, animalId);
    assert.equal(alerts[0]?.status, 'open');
  });
});
