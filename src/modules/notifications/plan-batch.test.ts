/**
 * The planner reads what a batch of alert events shares once per batch: the farm, its people, their
 * settings and reach, and who was told of each resolved alert. A burst of alerts on one farm (ingest of
 * many reports crossing a line) costs the same few statements for 6 events as for 24 (before: 17 and 62, each
 * a round trip beside the ingest on PostgreSQL). And an urgent alert opened and resolved within one batch
 * still ends its escalation.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { alertRow, farm } from '../../../test/factories.ts';
import { forEachEngine } from '../../../test/harness.ts';
import { StatementCounter } from '../../../test/statement-counter.ts';
import { planFromOutbox } from './plan.ts';

forEachEngine('notification planning in batches', (t) => {
  test('a burst of alerts on one farm: the statements do not grow with the events; escalations end', async () => {
    const acct = await t().account();
    const f = await farm(t(), acct.live_key, { name: 'Burst' });
    const db = t().database.db;
    const now = Date.now();
    const options = { now, publicUrl: 'http://farm.test', email: false, limit: 1000 };
    // Whatever the account's creation left unread is read first.
    await planFromOutbox(db, options);

    const alert = (id: string, severity: string) => ({
      id,
      severity,
      title: 'Ammonia high',
      reason: 'NH3 30 ppm',
      rule: 'ammonia_high',
      created_at: new Date(now - 1000).toISOString(),
    });
    /** `n` watch alerts opened and resolved, in id (reading) order. */
    async function burst(
      tag: string,
      n: number,
      extra: { id: string; type: string; severity: string }[] = [],
    ) {
      const rows = [];
      for (let i = 0; i < n; i++) {
        const id = `alr_${tag}${String(i).padStart(3, '0')}`;
        for (const [step, type] of [
          ['a', 'alert.created'],
          ['b', 'alert.resolved'],
        ] as const) {
          rows.push({
            id: `evt_${tag}${String(i).padStart(3, '0')}${step}`,
            farm_id: f.id,
            type,
            data: JSON.stringify(alert(id, 'watch')),
            created_at: now - 1000,
            dispatched_at: now,
            seq: null,
            notified_at: null,
          });
        }
      }
      for (const [i, e] of extra.entries()) {
        rows.push({
          id: `evt_${tag}z${i}`,
          farm_id: f.id,
          type: e.type,
          data: JSON.stringify(alert(e.id, e.severity)),
          created_at: now - 1000,
          dispatched_at: now,
          seq: null,
          notified_at: null,
        });
      }
      await db.insertInto('outbox').values(rows).execute();
      const counter = new StatementCounter();
      const planned = await planFromOutbox(db.withPlugin(counter), options);
      assert.equal(planned.events, rows.length);
      return counter.count;
    }

    const few = await burst(`f${f.id.slice(-6)}`, 3);
    const many = await burst(`m${f.id.slice(-6)}`, 12);
    assert.equal(many, few, `${few} statements for 6 events, ${many} for 24`);

    // An urgent alert opened and resolved in one batch: its escalation starts and ends there. One only
    // opened keeps its escalation.
    const closed = await alertRow(t(), f.id, { severity: 'urgent', severity_rank: 0, subject_id: 'dev_u1' });
    const open = await alertRow(t(), f.id, { severity: 'urgent', severity_rank: 0, subject_id: 'dev_u2' });
    await burst(`u${f.id.slice(-6)}`, 0, [
      { id: closed, type: 'alert.created', severity: 'urgent' },
      { id: open, type: 'alert.created', severity: 'urgent' },
      { id: closed, type: 'alert.resolved', severity: 'urgent' },
    ]);
    const escalations = await db
      .selectFrom('alert_escalations')
      .select('alert_id')
      .where('alert_id', 'in', [closed, open])
      .execute();
    assert.deepEqual(
      escalations.map((e) => e.alert_id),
      [open],
    );
  });
});
