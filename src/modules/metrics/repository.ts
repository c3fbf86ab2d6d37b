import type { Db } from '../../db/schema.ts';

export interface QueueBacklog {
  /** Webhook deliveries waiting to be sent. */
  pendingDeliveries: number;
  /** Outbox events not yet fanned out to deliveries. */
  undispatchedOutbox: number;
  /** Epoch ms of the oldest of either, or null when there are none. */
  oldestAt: number | null;
}

/** The webhook queue's backlog, read at scrape time: two small indexed queries. */
export async function queueBacklog(db: Db): Promise<QueueBacklog> {
  const deliveries = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('created_at').as('oldest')])
    .where('status', '=', 'pending')
    .executeTakeFirstOrThrow();
  const outbox = await db
    .selectFrom('outbox')
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('created_at').as('oldest')])
    .where('dispatched_at', 'is', null)
    .executeTakeFirstOrThrow();
  const oldest = [deliveries.oldest, outbox.oldest].filter((at) => at !== null).map(Number);
  return {
    pendingDeliveries: Number(deliveries.n),
    undispatchedOutbox: Number(outbox.n),
    oldestAt: oldest.length ? Math.min(...oldest) : null,
  };
}
