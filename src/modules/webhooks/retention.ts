/**
 * Webhook history pruning, run by the background job `webhooks.retention`. An outbox event, its deliveries
 * and their attempts go together (deliveries and attempts cascade from the event) once the event is older
 * than the retention and none of its deliveries is still pending. Events not yet dispatched, and events with
 * a pending delivery, are kept whatever their age: pruning never loses something still to be sent.
 * Each batch is one short DELETE, with a yield to the event loop between batches, so requests and ingest
 * never wait long behind it; on PostgreSQL one process at a time runs it (an advisory lock, like
 * readings.retention), the others skip the run.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { DB, Db } from '../../db/schema.ts';
import { runAlone } from '../../db/transaction.ts';
import { DAY_MS } from '../../lib/time.ts';
import { deletePrunableEvents } from './queue-repository.ts';

/** Events one pruning batch deletes at most (with their deliveries and attempts). */
export const WEBHOOK_PRUNE_BATCH = 500;
/** Advisory lock key (PostgreSQL), so one process at a time prunes; see readings/retention.ts for 7_146_00x. */
const WEBHOOK_RETENTION_LOCK = 7_146_101;

export interface WebhookPruneResult {
  /** Outbox events deleted (their deliveries and attempts went with them). */
  deletedEvents: number;
  /** False when another process held the pruning lock, so this run did nothing. */
  ran: boolean;
}

async function pruneInBatches(db: Db, cutoff: number, batch: number, signal?: AbortSignal): Promise<number> {
  let deleted = 0;
  for (;;) {
    if (signal?.aborted) return deleted;
    const n = await deletePrunableEvents(db, cutoff, batch);
    deleted += n;
    if (n < batch) return deleted;
    await yieldToEventLoop();
  }
}

/**
 * Removes webhook history (events, deliveries, attempts) older than `retentionDays` before `now`, in
 * batches of `batch` events, stopping early (at a batch boundary) when `signal` aborts.
 */
export async function pruneWebhookHistory(
  db: Kysely<DB>,
  now: number,
  retentionDays: number,
  options: { batch?: number; signal?: AbortSignal } = {},
): Promise<WebhookPruneResult> {
  const cutoff = now - retentionDays * DAY_MS;
  const batch = options.batch ?? WEBHOOK_PRUNE_BATCH;
  const run = await runAlone(db, WEBHOOK_RETENTION_LOCK, (conn) =>
    pruneInBatches(conn, cutoff, batch, options.signal),
  );
  return run.ran ? { deletedEvents: run.value, ran: true } : { deletedEvents: 0, ran: false };
}
