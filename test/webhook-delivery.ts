/**
 * Test support for webhook delivery: one whole delivery pass, awaited, where the worker loop would run
 * continuously.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../src/db/schema.ts';
import { attemptDelivery } from '../src/modules/webhooks/delivery.ts';
import { dispatchOutbox } from '../src/modules/webhooks/dispatch.ts';
import { claimDueDeliveries, deliveryLeaseMs } from '../src/modules/webhooks/queue-repository.ts';
import type { DeliverySettings } from '../src/modules/webhooks/transport.ts';

/** Dispatches every pending event, then sends every due delivery (concurrently) and records the outcomes. */
export async function deliverDueNow(
  database: { db: Kysely<DB> },
  settings: DeliverySettings,
): Promise<number> {
  while ((await dispatchOutbox(database.db)).events > 0) {
    // Dispatch in batches until the outbox is empty.
  }
  const claimed = await claimDueDeliveries(database.db, {
    limit: 10_000,
    leaseMs: deliveryLeaseMs(settings),
  });
  await Promise.all(claimed.map((c) => attemptDelivery(database.db, c, settings, 'scheduled')));
  return claimed.length;
}
