/**
 * Webhook delivery, step 1: dispatch. Each undispatched outbox row becomes one delivery row per subscribed,
 * enabled webhook of its farm, and the outbox row is marked dispatched, in one transaction (a unique index
 * on (webhook, event) keeps it to one delivery per webhook whatever happens). PostgreSQL workers skip the
 * outbox rows another worker is dispatching (FOR UPDATE SKIP LOCKED).
 */
import type { Kysely } from 'kysely';
import type { Engine } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import { newId } from '../../lib/ids.ts';
import { subscribesTo } from './repository.ts';

const INSERT_CHUNK = 200;

/**
 * Turns up to `limit` undispatched outbox events into deliveries. A webhook receives the events that happen
 * while it exists and is enabled (created no later than the event). Returns how many events were dispatched.
 */
export async function dispatchOutbox(
  db: Kysely<DB>,
  engine: Engine,
  options: { now?: number; limit?: number } = {},
): Promise<{ events: number; deliveries: number }> {
  const now = options.now ?? Date.now();
  const limit = options.limit ?? 500;
  return inTransaction(db, async (trx) => {
    let pending = trx
      .selectFrom('outbox')
      .select(['id', 'farm_id', 'type', 'created_at'])
      .where('dispatched_at', 'is', null)
      .orderBy('id')
      .limit(limit);
    if (engine === 'postgres') pending = pending.forUpdate().skipLocked();
    const events = await pending.execute();
    if (events.length === 0) return { events: 0, deliveries: 0 };
    const farmIds = [...new Set(events.map((e) => e.farm_id))];
    const hooks = (
      await trx
        .selectFrom('webhooks')
        .select(['id', 'farm_id', 'events', 'created_at'])
        .where('farm_id', 'in', farmIds)
        .where('status', '=', 'enabled')
        .execute()
    ).map((h) => ({ ...h, events: JSON.parse(h.events) as string[] }));
    const rows = [];
    for (const event of events) {
      for (const hook of hooks) {
        if (hook.farm_id !== event.farm_id || hook.created_at > event.created_at) continue;
        if (!subscribesTo(hook.events, event.type)) continue;
        rows.push({
          id: newId('delivery', now),
          webhook_id: hook.id,
          farm_id: event.farm_id,
          event_id: event.id,
          event_type: event.type,
          status: 'pending' as const,
          attempt_count: 0,
          next_attempt_at: now,
          locked_until: null,
          last_attempt_at: null,
          last_status_code: null,
          last_error: null,
          created_at: now,
          completed_at: null,
        });
      }
    }
    for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
      await trx
        .insertInto('webhook_deliveries')
        .values(rows.slice(i, i + INSERT_CHUNK))
        .onConflict((oc) => oc.columns(['webhook_id', 'event_id']).doNothing())
        .execute();
    }
    await trx
      .updateTable('outbox')
      .set({ dispatched_at: now })
      .where(
        'id',
        'in',
        events.map((e) => e.id),
      )
      .execute();
    return { events: events.length, deliveries: rows.length };
  });
}
