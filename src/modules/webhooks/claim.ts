/**
 * Webhook delivery, step 2: claim. Due deliveries are leased (`locked_until`) by one worker; PostgreSQL skips
 * rows another worker holds (FOR UPDATE SKIP LOCKED), SQLite's single-statement UPDATE is atomic by itself.
 * A worker that dies mid-send leaves a lease that simply runs out, and the delivery is attempted again.
 */
import type { Kysely } from 'kysely';
import type { Engine } from '../../db/database.ts';
import type { DB, Db } from '../../db/schema.ts';
import type { OutboxEvent } from './signing.ts';

/** How long past the receiver's deadline a lease lasts, so recording the attempt never races a new claim. */
export const LEASE_MARGIN_MS = 30_000;

/** A leased delivery with everything needed to send it. */
export interface ClaimedDelivery {
  id: string;
  webhook_id: string;
  url: string;
  secret: string;
  /** Attempts made before this one. */
  attempt_count: number;
  event: OutboxEvent;
}

async function loadClaimed(db: Db, ids: string[]): Promise<ClaimedDelivery[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
    .innerJoin('outbox as o', 'o.id', 'd.event_id')
    .select([
      'd.id',
      'd.webhook_id',
      'd.attempt_count',
      'd.next_attempt_at',
      'w.url',
      'w.secret',
      'o.id as event_id',
      'o.type',
      'o.farm_id',
      'o.created_at',
      'o.data',
    ])
    .where('d.id', 'in', ids)
    .execute();
  return rows
    .sort((a, b) => (a.next_attempt_at ?? 0) - (b.next_attempt_at ?? 0) || (a.id < b.id ? -1 : 1))
    .map((r) => ({
      id: r.id,
      webhook_id: r.webhook_id,
      url: r.url,
      secret: r.secret,
      attempt_count: r.attempt_count,
      event: { id: r.event_id, type: r.type, farm_id: r.farm_id, created_at: r.created_at, data: r.data },
    }));
}

/**
 * Leases up to `limit` due deliveries of enabled webhooks (oldest due first) for `leaseMs`, skipping the
 * webhooks in `excludeWebhookIds` (those this process is already sending its share to).
 */
export async function claimDueDeliveries(
  db: Kysely<DB>,
  engine: Engine,
  options: { limit: number; leaseMs: number; now?: number; excludeWebhookIds?: readonly string[] },
): Promise<ClaimedDelivery[]> {
  const now = options.now ?? Date.now();
  if (options.limit < 1) return [];
  let due = db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
    .where('webhook_id', 'in', db.selectFrom('webhooks').select('id').where('status', '=', 'enabled'))
    .orderBy('next_attempt_at')
    .orderBy('id')
    .limit(options.limit);
  if (options.excludeWebhookIds?.length) due = due.where('webhook_id', 'not in', options.excludeWebhookIds);
  if (engine === 'postgres') due = due.forUpdate().skipLocked();
  const claimed = await db
    .updateTable('webhook_deliveries')
    .set({ locked_until: now + options.leaseMs })
    .where('id', 'in', due)
    .returning('id')
    .execute();
  return loadClaimed(
    db,
    claimed.map((c) => c.id),
  );
}

/** Gives leased deliveries back without attempting them (they become claimable at once). */
export async function releaseDeliveries(db: Db, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.updateTable('webhook_deliveries').set({ locked_until: null }).where('id', 'in', ids).execute();
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
): Promise<ClaimedDelivery | null> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ locked_until: now + leaseMs })
    .where('id', '=', deliveryId)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) return null;
  const [claimed] = await loadClaimed(db, [deliveryId]);
  return claimed ?? null;
}
