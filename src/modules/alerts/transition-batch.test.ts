/**
 * Alert transitions made by the reports of one group (alerts/repository.ts, TRANSITION_BATCH): on
 * PostgreSQL one update per kind of transition for the whole group; an alert two reports move is moved by
 * the first and then by the next, which finds it as the first left it. Each transition answers as it does
 * alone, on both engines.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { alertRow, farm, keysOfOneLane } from '../../../test/factories.ts';
import { forEachEngine } from '../../../test/harness.ts';
import { StatementCounter } from '../../../test/statement-counter.ts';
import { inGroupTransaction } from '../../db/group-commit.ts';
import { ACTIVE_STATUSES, type AlertRow, SEVERITY_RANK, transitionAlert } from './repository.ts';

forEachEngine('alert transitions in a group', (t) => {
  test('one update per kind of transition; an alert moved twice is moved in order', async () => {
    const acct = await t().sharedAccount();
    const f = await farm(t(), acct.live_key, { name: 'Transition batch' });
    const subject = (n: number) => ({ subject_id: `dev_tb${n}_${f.id}` });
    const [a1, a2, a3, a4, a5, a6] = await Promise.all([
      alertRow(t(), f.id, subject(1)),
      alertRow(t(), f.id, subject(2)),
      alertRow(t(), f.id, subject(3)),
      alertRow(t(), f.id, { ...subject(4), status: 'acknowledged', acknowledged_at: Date.now() }),
      alertRow(t(), f.id, { ...subject(5), severity: 'urgent', severity_rank: 0 }),
      alertRow(t(), f.id, subject(6)),
    ]);
    const now = Date.now() + 1_000;
    const resolve = { status: 'resolved' as const, resolved_at: now, updated_at: now };
    const escalate = { severity: 'urgent' as const, severity_rank: SEVERITY_RANK.urgent, updated_at: now };
    const moves: Array<[string | undefined, Parameters<typeof transitionAlert>[3], 'watch'?]> = [
      [a1, { reason: 'NH3 24 ppm', updated_at: now }],
      [a2, { reason: 'NH3 26 ppm', updated_at: now }],
      [a3, resolve],
      // A column given as undefined is left as it is (as Kysely's own update does): the same kind as a3's.
      [a4, { ...resolve, reason: undefined }],
      // a3 again: the resolution above comes first, so this finds it no longer active.
      [a3, { reason: 'NH3 30 ppm', updated_at: now }],
      // a5 is urgent already: an escalation expecting watch does nothing.
      [a5, { ...escalate, reason: 'NH3 40 ppm' }, 'watch'],
      [a6, { ...escalate, reason: 'NH3 41 ppm' }, 'watch'],
    ];
    const counter = new StatementCounter();
    const db = t().database.db.withPlugin(counter);
    const keys = keysOfOneLane(`tb_${f.id}_`, moves.length);
    const results = await Promise.all(
      moves.map(([id, set, onlySeverity], i) =>
        inGroupTransaction(db, keys[i] as string, (trx) =>
          transitionAlert(trx, id as string, ACTIVE_STATUSES, set, onlySeverity),
        ),
      ),
    );
    const brief = (row: AlertRow | null) =>
      row && { id: row.id, status: row.status, severity: row.severity, reason: row.reason };
    assert.deepEqual(results.map(brief), [
      { id: a1, status: 'open', severity: 'watch', reason: 'NH3 24 ppm' },
      { id: a2, status: 'open', severity: 'watch', reason: 'NH3 26 ppm' },
      { id: a3, status: 'resolved', severity: 'watch', reason: 'NH3 20 ppm' },
      { id: a4, status: 'resolved', severity: 'watch', reason: 'NH3 20 ppm' },
      null,
      null,
      { id: a6, status: 'open', severity: 'urgent', reason: 'NH3 41 ppm' },
    ]);
    const stored = await t()
      .database.db.selectFrom('alerts')
      .select(['id', 'status', 'severity', 'reason', 'resolved_at', 'updated_at'])
      .where('farm_id', '=', f.id)
      .execute();
    const byId = new Map(stored.map((r) => [r.id, r]));
    assert.equal(byId.get(a3 as string)?.reason, 'NH3 20 ppm', 'the resolved alert kept its reason');
    assert.equal(Number(byId.get(a4 as string)?.resolved_at), now);
    assert.equal(byId.get(a5 as string)?.reason, 'NH3 20 ppm', 'the urgent alert was left as it was');
    assert.equal(byId.get(a6 as string)?.severity, 'urgent');
    // PostgreSQL: one update for the two reasons, one for the two resolutions, one for the two escalations,
    // and a3's second move after them, besides the group transaction's generic plans setting (group-commit.ts).
    // SQLite runs each unit's in turn.
    assert.equal(counter.count, t().engine === 'postgres' ? 4 + 1 : moves.length);
  });
});
