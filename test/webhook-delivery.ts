/**
 * Test support for webhook delivery: one whole delivery pass, awaited, where the worker loop would run
 * continuously.
 */
import type { Kysely } from 'kysely';
import type { Engine } from '../src/db/database.ts';
import type { DB } from '../src/db/schema.ts';
import { claimDueDeliveries, LEASE_MARGIN_MS } from '../src/modules/webhooks/claim.ts';
import { attemptDelivery } from '../src/modules/webhooks/delivery.ts';
import { dispatchOutbox } from '../src/modules/webhooks/dispatch.ts';
import type { DeliverySettings } from '../src/modules/webhooks/transport.ts';

/** Dispatches every pending event, then sends every due delivery (concurrently) and records the outcomes. */
export async function deliverDueNow(
  database: { db: Kysely<DB>; engine: Engine },
  settings: DeliverySettings,
): Promise<number> {
  while ((await dispatchOutbox(database.db, database.engine)).events > 0) {
    // Dispatch in batches until the outbox is empty.
  }
  const claimed = await claimDueDeliveries(database.db, database.engine, {
    limit: 10_000,
    leaseMs: settings.webhookTimeoutMs + LEASE_MARGIN_MS,
  });
  await Promise.all(claimed.map((c) => attemptDelivery(database.db, c, settings, 'scheduled')));
  return claimed.length;
}
