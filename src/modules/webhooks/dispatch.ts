/**
 * Webhook delivery, step 1: dispatch. Each undispatched outbox row becomes one delivery row per subscribed,
 * enabled webhook of its farm, and the outbox row is marked dispatched, in one transaction (a unique index
 * on (webhook, event) keeps it to one delivery per webhook whatever happens). PostgreSQL workers skip the
 * outbox rows another worker is dispatching (FOR UPDATE SKIP LOCKED). Queries: queue-repository.ts.
 */
import type { Db } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import { newId } from '../../domain/ids.ts';
import { carriesAlertFarmEvent, webhookReadsAlerts } from '../../domain/webhook-events.ts';
import {
  enabledWebhooksOf,
  insertDeliveries,
  markDispatched,
  undispatchedEvents,
} from './queue-repository.ts';
import { pendingDelivery, subscribesTo } from './repository.ts';

/**
 * Turns up to `limit` undispatched outbox events into deliveries. A webhook receives the events that happen
 * while it exists and is enabled (created no later than the event). Returns how many events were dispatched.
 */
export async function dispatchOutbox(
  db: Db,
  options: { now?: number; limit?: number } = {},
): Promise<{ events: number; deliveries: number }> {
  const now = options.now ?? Date.now();
  const limit = options.limit ?? 500;
  return inTransaction(db, async (trx) => {
    const events = await undispatchedEvents(trx, limit);
    if (events.length === 0) return { events: 0, deliveries: 0 };
    const hooks = await enabledWebhooksOf(trx, [...new Set(events.map((e) => e.farm_id))]);
    const rows = [];
    for (const event of events) {
      for (const hook of hooks) {
        if (hook.farm_id !== event.farm_id || hook.created_at > event.created_at) continue;
        if (!subscribesTo(hook.events, event.type)) continue;
        // The alert engine's farm events are alert data: only for webhooks whose creator could read alerts.
        if (carriesAlertFarmEvent(event.type, event.data) && !webhookReadsAlerts(hook.events)) continue;
        rows.push(
          pendingDelivery({
            id: newId('delivery', now),
            webhook_id: hook.id,
            farm_id: event.farm_id,
            event_id: event.id,
            event_type: event.type,
            created_at: now,
            next_attempt_at: now,
          }),
        );
      }
    }
    await insertDeliveries(trx, rows);
    await markDispatched(
      trx,
      events.map((e) => e.id),
      now,
    );
    return { events: events.length, deliveries: rows.length };
  });
}
