/**
 * The escalations' queries (alert_escalations, owned by this module): an urgent alert's chain is started when
 * it is planned and ended when it is resolved (plan.ts), moved a step when due and ended when the alert is no
 * longer open or the chain has no step left (escalation.ts).
 */
import { isPostgres } from '../../db/engine.ts';
import type { Db, Trx } from '../../db/schema.ts';

export async function startEscalation(db: Db, row: { alert_id: string; farm_id: string; next_at: number }) {
  await db
    .insertInto('alert_escalations')
    .values({ ...row, step: 0 })
    .onConflict((oc) => oc.column('alert_id').doNothing())
    .execute();
}

export async function endEscalation(db: Db, alertId: string): Promise<void> {
  await endEscalations(db, [alertId]);
}

export async function endEscalations(db: Db, alertIds: readonly string[]): Promise<void> {
  if (alertIds.length === 0) return;
  await db.deleteFrom('alert_escalations').where('alert_id', 'in', alertIds).execute();
}

/** Escalations due at `now`, soonest first; on PostgreSQL those no other worker holds. */
export function dueEscalations(trx: Trx, now: number, limit: number) {
  let q = trx
    .selectFrom('alert_escalations')
    .select(['alert_id', 'farm_id', 'step', 'next_at'])
    .where('next_at', '<=', now)
    .orderBy('next_at')
    .limit(limit);
  if (isPostgres(trx)) q = q.forUpdate().skipLocked();
  return q.execute();
}

export async function advanceEscalation(
  db: Db,
  alertId: string,
  step: number,
  nextAt: number,
): Promise<void> {
  await db
    .updateTable('alert_escalations')
    .set({ step, next_at: nextAt })
    .where('alert_id', '=', alertId)
    .execute();
}
