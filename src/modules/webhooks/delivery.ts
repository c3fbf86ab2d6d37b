/**
 * Webhook delivery, in steps that any number of workers can run at once:
 *  1. dispatch (dispatch.ts): outbox events become one delivery per subscribed webhook;
 *  2. claim (queue-repository.ts): due deliveries are leased by one worker;
 *  3. transport (transport.ts): the signed payload is POSTed to the receiver;
 *  4. record (here): the attempt and the delivery's next step (retry on the schedule, succeeded, failed; a
 *     410 disables the webhook) are written in one transaction.
 * Delivery is at least once: a receiver may see an event again after a crash, and de-duplicates by event id.
 */
import type { Db, Trx } from '../../db/schema.ts';
import type { AttemptTrigger, DeliveryStatus } from '../../db/tables/webhooks.ts';
import { inTransaction, lockRows } from '../../db/transaction.ts';
import { metrics } from '../../lib/metrics.ts';
import { toIso } from '../../lib/time.ts';
import type { ClaimedDelivery } from './queue-repository.ts';
import {
  countAttempt,
  failPendingDeliveries,
  insertAttempt,
  scheduledAttempts,
  settleDelivery,
  setWebhookDisabled,
  webhookStatus,
} from './repository.ts';
import { type AttemptResult, type DeliverySettings, sendDelivery } from './transport.ts';

/** What an attempt leaves a delivery as: its status, next attempt, completion and last error. */
interface NextStep {
  status: DeliveryStatus;
  next_attempt_at: number | null;
  completed_at: number | null;
  last_error: string | null;
}

/**
 * The delivery's next step after an attempt (see recordAttempt); `retryDelayMs` is the schedule's delay
 * after this many scheduled attempts (undefined after the last), `enabled` whether the webhook still is.
 */
function nextStep(
  current: Pick<NextStep, 'status' | 'next_attempt_at' | 'completed_at'>,
  result: AttemptResult,
  trigger: AttemptTrigger,
  retry: { delayMs: number | undefined; enabled: boolean },
): NextStep {
  const finishedAt = result.at + result.duration_ms;
  const done = (status: DeliveryStatus, lastError = result.error): NextStep => ({
    status,
    next_attempt_at: null,
    completed_at: finishedAt,
    last_error: lastError,
  });
  if (result.succeeded) return done('succeeded');
  if (result.status_code === 410) return done('failed');
  // A manual attempt leaves the delivery's status and schedule as they were.
  if (trigger !== 'scheduled') return { ...current, last_error: result.error };
  if (!retry.enabled) return done('failed', `${result.error}; not retried: the webhook is disabled`);
  if (retry.delayMs === undefined) return done('failed');
  return {
    status: 'pending',
    next_attempt_at: finishedAt + retry.delayMs,
    completed_at: current.completed_at,
    last_error: result.error,
  };
}

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
  return inTransaction(db, async (trx) => {
    // The lock order: the webhook, then its deliveries. A 410 disables the webhook and fails its other
    // pending deliveries; two such attempts at once would otherwise each hold one delivery and wait for the
    // other's (a deadlock).
    await lockRows(trx, 'webhooks', claimed.webhook_id);
    const current = await countAttempt(trx, claimed.id);
    if (!current) return null;
    await insertAttempt(trx, {
      ...result,
      delivery_id: claimed.id,
      number: current.attempt_count,
      farm_id: current.farm_id,
      trigger,
    });
    const enabled = (await webhookStatus(trx, current.webhook_id)) === 'enabled';
    const scheduled = trigger === 'scheduled' ? await scheduledAttempts(trx, claimed.id) : 0;
    const step = nextStep(current, result, trigger, { delayMs: retryScheduleMs[scheduled - 1], enabled });
    if (result.status_code === 410) {
      const finishedAt = result.at + result.duration_ms;
      const reason = `The receiver answered 410 Gone at ${toIso(finishedAt)}.`;
      await disableWebhook(trx, current.webhook_id, reason, finishedAt, claimed.id);
    }
    await settleDelivery(trx, claimed.id, {
      ...step,
      locked_until: null,
      last_attempt_at: result.at,
      last_status_code: result.status_code,
    });
    metrics.webhookDeliveries.inc({ outcome: step.status === 'pending' ? 'retrying' : step.status });
    return step.status;
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
  await setWebhookDisabled(trx, webhookId, reason);
  await failPendingDeliveries(trx, webhookId, {
    completedAt: now,
    error: `Not sent: the webhook was disabled. ${reason}`,
    except: keepDeliveryId,
  });
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
