/**
 * Webhook delivery, in steps that any number of workers can run at once:
 *  1. dispatch (dispatch.ts): outbox events become one delivery per subscribed webhook;
 *  2. claim (claim.ts): due deliveries are leased by one worker;
 *  3. transport (transport.ts): the signed payload is POSTed to the receiver;
 *  4. record (here): the attempt and the delivery's next step (retry on the schedule, succeeded, failed; a
 *     410 disables the webhook) are written in one transaction.
 * Delivery is at least once: a receiver may see an event again after a crash, and de-duplicates by event id.
 */
import type { Db, Trx } from '../../db/schema.ts';
import type { AttemptTrigger, DeliveryStatus } from '../../db/tables/webhooks.ts';
import { inTransaction, lockRows } from '../../db/transaction.ts';
import { toIso } from '../../lib/time.ts';
import { metrics } from '../metrics/metrics.ts';
import type { ClaimedDelivery } from './claim.ts';
import { type AttemptResult, type DeliverySettings, sendDelivery } from './transport.ts';

/**
 * Records an attempt and decides what comes next, releasing the lease:
 *  - 2xx: succeeded;
 *  - 410 Gone: failed, and the webhook is disabled (its other pending deliveries fail with it);
 *  - otherwise, for a scheduled attempt: the next retry per the schedule, or failed after the last;
 *    a manual attempt leaves the delivery's status and schedule as they were.
 * Returns the delivery's new status, or null when the delivery was deleted meanwhile.
 */
export async function recordAttempt(
  db: Db,
  claimed: ClaimedDelivery,
  result: AttemptResult,
  trigger: AttemptTrigger,
  retryScheduleMs: readonly number[],
): Promise<DeliveryStatus | null> {
  const finishedAt = result.at + result.duration_ms;
  return inTransaction(db, async (trx) => {
    // The lock order: the webhook, then its deliveries. A 410 disables the webhook and fails its other
    // pending deliveries; two such attempts at once would otherwise each hold one delivery and wait for the
    // other's (a deadlock).
    await lockRows(trx, 'webhooks', claimed.webhook_id);
    // Incrementing takes the delivery's row lock, so attempt numbers never collide.
    const current = await trx
      .updateTable('webhook_deliveries')
      .set((eb) => ({ attempt_count: eb('attempt_count', '+', 1) }))
      .where('id', '=', claimed.id)
      .returning(['attempt_count', 'status', 'next_attempt_at', 'completed_at', 'farm_id', 'webhook_id'])
      .executeTakeFirst();
    if (!current) return null;
    await trx
      .insertInto('webhook_attempts')
      .values({
        delivery_id: claimed.id,
        number: current.attempt_count,
        farm_id: current.farm_id,
        trigger,
        at: result.at,
        duration_ms: result.duration_ms,
        status_code: result.status_code,
        error: result.error,
      })
      .execute();
    const webhook = await trx
      .selectFrom('webhooks')
      .select(['status'])
      .where('id', '=', current.webhook_id)
      .executeTakeFirst();

    let status: DeliveryStatus = current.status;
    let next: number | null = current.next_attempt_at;
    let completed: number | null = current.completed_at;
    let lastError = result.error;
    if (result.succeeded) {
      status = 'succeeded';
      next = null;
      completed = finishedAt;
    } else if (result.status_code === 410) {
      status = 'failed';
      next = null;
      completed = finishedAt;
      await disableWebhook(
        trx,
        current.webhook_id,
        `The receiver answered 410 Gone at ${toIso(finishedAt)}.`,
        finishedAt,
        claimed.id,
      );
    } else if (trigger === 'scheduled') {
      const scheduled = await trx
        .selectFrom('webhook_attempts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('delivery_id', '=', claimed.id)
        .where('trigger', '=', 'scheduled')
        .executeTakeFirstOrThrow();
      const delay = retryScheduleMs[Number(scheduled.n) - 1];
      if (delay !== undefined && webhook?.status === 'enabled') {
        status = 'pending';
        next = finishedAt + delay;
      } else {
        status = 'failed';
        next = null;
        completed = finishedAt;
        if (webhook?.status !== 'enabled')
          lastError = `${result.error}; not retried: the webhook is disabled`;
      }
    }
    await trx
      .updateTable('webhook_deliveries')
      .set({
        status,
        next_attempt_at: next,
        completed_at: completed,
        locked_until: null,
        last_attempt_at: result.at,
        last_status_code: result.status_code,
        last_error: lastError,
      })
      .where('id', '=', claimed.id)
      .execute();
    metrics.webhookDeliveries.inc({ outcome: status === 'pending' ? 'retrying' : status });
    return status;
  });
}

/**
 * Disables a webhook; its pending deliveries (except `keepDeliveryId`, which the caller settles) fail,
 * since nothing is sent to a disabled webhook.
 */
export async function disableWebhook(
  trx: Trx,
  webhookId: string,
  reason: string,
  now: number,
  keepDeliveryId: string | null = null,
): Promise<void> {
  await trx
    .updateTable('webhooks')
    .set({ status: 'disabled', disabled_reason: reason })
    .where('id', '=', webhookId)
    .execute();
  let pending = trx
    .updateTable('webhook_deliveries')
    .set({
      status: 'failed',
      next_attempt_at: null,
      completed_at: now,
      last_error: `Not sent: the webhook was disabled. ${reason}`,
    })
    .where('webhook_id', '=', webhookId)
    .where('status', '=', 'pending');
  if (keepDeliveryId) pending = pending.where('id', '!=', keepDeliveryId);
  await pending.execute();
}

/** One attempt of a claimed delivery, sent and recorded. */
export async function attemptDelivery(
  db: Db,
  claimed: ClaimedDelivery,
  settings: DeliverySettings,
  trigger: AttemptTrigger,
): Promise<{ result: AttemptResult; status: DeliveryStatus | null }> {
  const result = await sendDelivery(claimed, settings);
  const status = await recordAttempt(db, claimed, result, trigger, settings.webhookRetryScheduleMs);
  return { result, status };
}
