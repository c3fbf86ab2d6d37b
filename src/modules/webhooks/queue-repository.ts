/**
 * The webhook kind's queries (see delivery.ts for the steps):
 *  - the outbox writer (emit.ts): new events, through db/statements/outbox.ts;
 *  - dispatch: undispatched outbox events, the enabled webhooks of their farms, the new delivery rows;
 *  - claim: due deliveries of enabled webhooks, leased through the one delivery queue (db/delivery-queue.ts:
 *    a lease, FOR UPDATE SKIP LOCKED on PostgreSQL, the attempt counted by the claim), then loaded with
 *    what sending them needs. A worker that dies mid-send leaves a lease that simply runs out, and the
 *    delivery is attempted again (its next attempt);
 *  - pruning (retention.ts): old events with their deliveries and attempts.
 */
import { type Insertable, sql } from 'kysely';
import { claimDue, claimOne, type Leased, type QueueTable } from '../../db/delivery-queue.ts';
import { isPostgres } from '../../db/engine.ts';
import type { Db, Trx } from '../../db/schema.ts';
import type { WebhookDeliveriesTable } from '../../db/tables/webhooks.ts';
import { ALERT_FARM_EVENT_TYPES } from '../../domain/webhook-events.ts';
import { parseJson } from '../../lib/json.ts';
import type { OutboxEvent } from './signing.ts';

/** Webhook deliveries as a kind of the delivery queue: grouped by webhook, claimable while it is enabled. */
export const WEBHOOK_QUEUE: QueueTable<'webhook_deliveries'> = {
  name: 'webhooks',
  table: 'webhook_deliveries',
  key: 'id',
  attempts: 'attempt_count',
  group: 'webhook_id',
  statuses: {
    pending: 'pending',
    succeeded: 'succeeded',
    failed: 'failed',
    expired: 'failed',
    skipped: 'failed',
  },
  open: ['pending'],
  claimable: (eb) =>
    eb('webhook_id', 'in', eb.selectFrom('webhooks').select('id').where('status', '=', 'enabled')),
};

/** How long past the receiver's deadline a lease lasts, so recording the attempt never races a new claim. */
const LEASE_MARGIN_MS = 30_000;

/** How long a delivery is leased for one attempt: the receiver's deadline and the margin. */
export function deliveryLeaseMs(settings: { webhookTimeoutMs: number }): number {
  return settings.webhookTimeoutMs + LEASE_MARGIN_MS;
}

/** A delivery with everything needed to send it. */
export interface ClaimedDelivery {
  id: string;
  webhook_id: string;
  url: string;
  secret: string;
  /** Attempts made before this one (the claim counted this one: `attempt`). */
  attempt_count: number;
  event: OutboxEvent;
}

/** A claimed delivery with the lease the queue gave it. */
export type LeasedDelivery = ClaimedDelivery & Leased;

async function loadClaimed(db: Db, leased: readonly Leased[]): Promise<LeasedDelivery[]> {
  if (leased.length === 0) return [];
  const rows = await db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
    .innerJoin('outbox as o', 'o.id', 'd.event_id')
    .select([
      'd.id',
      'd.webhook_id',
      'w.url',
      'w.secret',
      'o.id as event_id',
      'o.type',
      'o.farm_id',
      'o.created_at',
      'o.data',
    ])
    .where(
      'd.id',
      'in',
      leased.map((l) => l.key),
    )
    .execute();
  const byId = new Map(rows.map((r) => [r.id, r]));
  // In the claim's order (oldest due first); a delivery deleted meanwhile is left out.
  return leased.flatMap((l) => {
    const r = byId.get(l.key);
    if (!r) return [];
    return [
      {
        ...l,
        id: r.id,
        webhook_id: r.webhook_id,
        url: r.url,
        secret: r.secret,
        attempt_count: l.attempt - 1,
        event: { id: r.event_id, type: r.type, farm_id: r.farm_id, created_at: r.created_at, data: r.data },
      },
    ];
  });
}

/**
 * Leases up to `limit` due deliveries of enabled webhooks (oldest due first) for `leaseMs`, skipping the
 * webhooks in `excludeWebhookIds` (those this process is already sending its share to).
 */
export async function claimDueDeliveries(
  db: Db,
  options: { limit: number; leaseMs: number; now?: number; excludeWebhookIds?: readonly string[] },
): Promise<LeasedDelivery[]> {
  const leased = await claimDue(db, WEBHOOK_QUEUE, {
    now: options.now ?? Date.now(),
    limit: options.limit,
    leaseMs: options.leaseMs,
    ...(options.excludeWebhookIds ? { skipGroups: options.excludeWebhookIds } : {}),
  });
  return loadClaimed(db, leased);
}

/**
 * Leases one delivery for a manual retry, whatever its status, unless an attempt holds it right now.
 * Returns null when it is held.
 */
export async function claimDeliveryForRetry(
  db: Db,
  deliveryId: string,
  leaseMs: number,
  now: number = Date.now(),
): Promise<LeasedDelivery | null> {
  const leased = await claimOne(db, WEBHOOK_QUEUE, deliveryId, { now, leaseMs });
  if (!leased) return null;
  const [claimed] = await loadClaimed(db, [leased]);
  return claimed ?? null;
}

/** Rows per INSERT of new deliveries. */
const INSERT_CHUNK = 200;

/** Up to `limit` undispatched outbox events, oldest first; on PostgreSQL, those no other worker holds. */
export function undispatchedEvents(trx: Trx, limit: number) {
  let pending = trx
    .selectFrom('outbox')
    .select(['id', 'farm_id', 'type', 'created_at'])
    // The data only of an event.created that may carry one of the alert engine's farm events (dispatch
    // checks it: src/domain/webhook-events.ts); the others' data is never read here.
    .select(
      sql<string>`case when type = 'event.created' and (${sql.join(
        ALERT_FARM_EVENT_TYPES.map((t) => sql`data like ${`%${t}%`}`),
        sql` or `,
      )}) then data else '' end`.as('data'),
    )
    .where('dispatched_at', 'is', null)
    .orderBy('id')
    .limit(limit);
  if (isPostgres(trx)) pending = pending.forUpdate().skipLocked();
  return pending.execute();
}

/** The enabled webhooks of these farms, each with its `events` parsed. */
export async function enabledWebhooksOf(trx: Trx, farmIds: readonly string[]) {
  const rows = await trx
    .selectFrom('webhooks')
    .select(['id', 'farm_id', 'events', 'created_at'])
    .where('farm_id', 'in', farmIds)
    .where('status', '=', 'enabled')
    .execute();
  return rows.map((h) => ({ ...h, events: parseJson<string[]>(h.events, []) }));
}

/** Inserts deliveries, at most one per (webhook, event) whatever ran before (the unique index). */
export async function insertDeliveries(
  trx: Trx,
  rows: readonly Insertable<WebhookDeliveriesTable>[],
): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    await trx
      .insertInto('webhook_deliveries')
      .values(rows.slice(i, i + INSERT_CHUNK))
      .onConflict((oc) => oc.columns(['webhook_id', 'event_id']).doNothing())
      .execute();
  }
}

export async function markDispatched(trx: Trx, eventIds: readonly string[], now: number): Promise<void> {
  await trx.updateTable('outbox').set({ dispatched_at: now }).where('id', 'in', eventIds).execute();
}

/**
 * Deletes up to `batch` events older than `cutoff` (dispatched, none of their deliveries pending) with their
 * deliveries and attempts (which cascade); returns how many events.
 */
export async function deletePrunableEvents(db: Db, cutoff: number, batch: number): Promise<number> {
  const prunable = db
    .selectFrom('outbox')
    .select('outbox.id')
    .where('outbox.dispatched_at', '<', cutoff)
    .where('outbox.created_at', '<', cutoff)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('webhook_deliveries as d')
            .select('d.id')
            .whereRef('d.event_id', '=', 'outbox.id')
            .where('d.status', '=', 'pending'),
        ),
      ),
    )
    .orderBy('outbox.dispatched_at')
    .limit(batch);
  const result = await db.deleteFrom('outbox').where('id', 'in', prunable).executeTakeFirst();
  return Number(result.numDeletedRows);
}
