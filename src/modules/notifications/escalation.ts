/**
 * Escalation: an urgent alert nobody acknowledged within the farm's `after_minutes` notifies the next step
 * of its chain (`settings.escalation`, src/domain/escalation.ts), and again after as long, until the chain
 * ends, someone acknowledges it or it resolves. A step notifies its people on its channels whatever their own
 * settings and quiet hours say: waking someone is the point. Each step's notifications have their own unique
 * keys (step 1, 2, …), so a pass run twice, or by two workers, adds nothing.
 */
import type { Db, Trx } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import { parseAlertWords } from '../../domain/alert-words.ts';
import { type EscalationStep, escalationOf } from '../../domain/escalation.ts';
import { parseJson } from '../../lib/json.ts';
import { MINUTE_MS } from '../../lib/time.ts';
import { alertById, farmById, type PersonRow, peopleOfAccount } from './audience.ts';
import { alertNotice, alertUrl } from './content.ts';
import { advanceEscalation, dueEscalations, endEscalation } from './escalation-repository.ts';
import { notificationRow, reachOf } from './plan.ts';
import { insertNotifications } from './repository.ts';

function peopleOfStep(step: EscalationStep, people: readonly PersonRow[]): PersonRow[] {
  if (step.notify === 'everyone') return [...people];
  if (step.notify === 'owners') return people.filter((p) => p.role === 'owner');
  if (step.notify === 'crew') return people.filter((p) => p.role === 'crew');
  return people.filter((p) => p.id === step.notify);
}

/** Runs the escalations due at `now`. Returns how many alerts moved a step and how many notices were planned. */
export async function escalateDue(
  db: Db,
  options: { now: number; publicUrl: string; email: boolean; limit?: number },
): Promise<{ escalated: number; planned: number }> {
  return inTransaction(db, async (trx: Trx) => {
    const due = await dueEscalations(trx, options.now, options.limit ?? 100);
    let escalated = 0;
    let planned = 0;
    for (const row of due) {
      const alert = await alertById(trx, row.alert_id);
      // Acknowledged, resolved or gone: the chain stops.
      if (alert?.status !== 'open') {
        await endEscalation(trx, row.alert_id);
        continue;
      }
      const farm = await farmById(trx, row.farm_id);
      const chain = farm ? escalationOf(parseJson<Record<string, unknown>>(farm.settings, {})) : null;
      const step = chain?.steps[row.step];
      if (!farm || !chain || !step) {
        await endEscalation(trx, row.alert_id);
        continue;
      }
      const number = row.step + 1;
      const people = peopleOfStep(step, await peopleOfAccount(trx, farm.account_id));
      const reach = await reachOf(
        trx,
        people.map((p) => p.id),
        options,
      );
      const rows = [];
      for (const person of people) {
        const notice = alertNotice(
          { ...alert, created_at: alert.created_at, words: parseAlertWords(alert.words) },
          farm,
          number,
          person,
        );
        for (const channel of step.channels) {
          if (!reach.get(channel)?.has(person.id)) continue;
          rows.push(
            notificationRow({
              person: person.id,
              farm: farm.id,
              alert: alert.id,
              kind: 'alert',
              channel,
              step: number,
              dedupe: `alert:${alert.id}:${person.id}:${channel}:${number}`,
              severity: alert.severity,
              ...notice,
              url: alertUrl(options.publicUrl, alert.id),
              due: options.now,
              now: options.now,
            }),
          );
        }
      }
      await insertNotifications(trx, rows);
      planned += rows.length;
      escalated++;
      await advanceEscalation(trx, alert.id, number, options.now + chain.after_minutes * MINUTE_MS);
    }
    return { escalated, planned };
  });
}
