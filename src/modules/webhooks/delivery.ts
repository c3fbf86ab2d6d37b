/**
 * Webhook delivery, in steps that any number of workers can run at once:
 *  1. dispatch (dispatch.ts): outbox events become one delivery per subscribed webhook;
 *  2. claim (queue-repository.ts, through the one delivery queue db/delivery-queue.ts): due deliveries are
 *     leased by one worker, the attempt counted;
 *  3. transport (transport.ts): the signed payload is POSTed to the receiver;
 *  4. record (here): the attempt and the delivery's next step (retry on the schedule, succeeded, failed; a
 *     410 disables the webhook) are written in one transaction, while the claim's lease holds.
 * Delivery is at least once: a receiver may see an event again after a crash, and de-duplicates by event id.
 * `webhookDeliveries(config)` is the kind the worker loop (workers/delivery-loop.ts) drives.
 */
import type { Config } from '../../config.ts';
import {
  type Answer,
  type DeliveryKind,
  type DeliveryState,
  leaseHolds,
  nextStep,
  release,
  type Step,
  settle,
} from '../../db/delivery-queue.ts';
import type { Db, Trx } from '../../db/schema.ts';
import type { AttemptTrigger, DeliveryStatus } from '../../db/tables/webhooks.ts';
import { inTransaction, lockRows } from '../../db/transaction.ts';
import { metrics } from '../../lib/metrics.ts';
import { toIso } from '../../lib/time.ts';
import { dispatchOutbox } from './dispatch.ts';
import {
  claimDueDeliveries,
  deliveryLeaseMs,
  type LeasedDelivery,
  WEBHOOK_QUEUE,
} from './queue-repository.ts';
import {
  deliveryToRecord,
  failPendingDeliveries,
  insertAttempt,
  scheduledAttempts,
  setWebhookDisabled,
  webhookStatus,
} from './repository.ts';
import { type AttemptResult, type DeliverySettings, sendDelivery } from './transport.ts';

/** What the receiver's answer means: 2xx succeeded, 410 Gone failed for good, anything else a retry. */
function answerOf(result: AttemptResult): Answer {
  if (result.succeeded) return 'succeeded';
  if (result.status_code === 410) return 'failed';
  return 'retry';
}

/**
 * Records an attempt and decides what comes next, releasing the lease:
 *  - 2xx: succeeded;
 *  - 410 Gone: failed, and the webhook is disabled (its other pending deliveries fail with it);
 *  - otherwise, for a scheduled attempt: the next retry per the schedule (counting scheduled attempts),
 *    or failed after the last; a manual attempt leaves the delivery's status and schedule as they were.
 * The attempt is stored whatever happens (it was made); the delivery changes only while the claim's lease
 * holds. Returns the delivery's new status, or null when it was deleted or its lease lost meanwhile.
 */
export async function recordAttempt(
  db: Db,
  claimed: LeasedDelivery,
  result: AttemptResult,
  trigger: AttemptTrigger,
  retryScheduleMs: readonly number[],
): Promise<DeliveryStatus | null> {
  return inTransaction(db, async (trx) => {
    // The lock order: the webhook, then its deliveries. A 410 disables the webhook and fails its other
    // pending deliveries; two such attempts at once would otherwise each hold one delivery and wait for the
    // other's (a deadlock).
    await lockRows(trx, 'webhooks', claimed.webhook_id);
    const current = await deliveryToRecord(trx, claimed.id);
    if (!current) return null;
    await insertAttempt(trx, {
      ...result,
      delivery_id: claimed.id,
      number: claimed.attempt,
      farm_id: current.farm_id,
      trigger,
    });
    if (!(await leaseHolds(trx, WEBHOOK_QUEUE, claimed))) return null;
    const finishedAt = result.at + result.duration_ms;
    const answer = answerOf(result);
    const enabled = (await webhookStatus(trx, current.webhook_id)) === 'enabled';
    let step: Step | null;
    let lastError = result.error;
    if (answer !== 'retry') step = nextStep(answer, claimed.attempt, { scheduleMs: [] }, finishedAt);
    // A manual attempt leaves the delivery's status and schedule as they were.
    else if (trigger !== 'scheduled') step = null;
    else if (!enabled) {
      step = nextStep('failed', claimed.attempt, { scheduleMs: [] }, finishedAt);
      lastError = `${result.error}; not retried: the webhook is disabled`;
    } else {
      const tries = await scheduledAttempts(trx, claimed.id);
      step = nextStep('retry', tries, { scheduleMs: retryScheduleMs }, finishedAt);
    }
    if (result.status_code === 410) {
      const reason = `The receiver answered 410 Gone at ${toIso(finishedAt)}.`;
      await disableWebhook(trx, current.webhook_id, reason, finishedAt, claimed.id);
    }
    const completedAt = step && step.state !== 'retrying' ? finishedAt : current.completed_at;
    await settle(trx, WEBHOOK_QUEUE, claimed, step, {
      completed_at: completedAt,
      last_error: lastError,
      last_attempt_at: result.at,
      last_status_code: result.status_code,
    });
    const status = step === null ? current.status : statusOf(step.state);
    metrics.webhookDeliveries.inc({ outcome: status === 'pending' ? 'retrying' : status });
    return status;
  });
}

function statusOf(state: DeliveryState): DeliveryStatus {
  return state === 'retrying' ? 'pending' : (WEBHOOK_QUEUE.statuses[state] as DeliveryStatus);
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
  claimed: LeasedDelivery,
  settings: DeliverySettings,
  trigger: AttemptTrigger,
): Promise<{ result: AttemptResult; status: DeliveryStatus | null }> {
  const result = await sendDelivery(claimed, settings);
  const status = await recordAttempt(db, claimed, result, trigger, settings.webhookRetryScheduleMs);
  return { result, status };
}

/** Sends one process runs at the same time to one webhook. */
export const PER_WEBHOOK_CONCURRENCY = 4;
/** Outbox events fanned out into deliveries per turn. */
const DISPATCH_BATCH = 500;

/**
 * Webhook deliveries as a kind of the delivery queue: each turn first fans new outbox events out into
 * deliveries; a send is the signed POST, its answer recorded as above.
 */
export function webhookDeliveries(config: Readonly<Config>): DeliveryKind<LeasedDelivery> {
  const leaseMs = deliveryLeaseMs(config);
  return {
    queue: WEBHOOK_QUEUE,
    pollMs: config.webhookPollMs,
    concurrency: config.webhookConcurrency,
    perGroup: PER_WEBHOOK_CONCURRENCY,
    prepare: async (db) => (await dispatchOutbox(db, { limit: DISPATCH_BATCH })).events === DISPATCH_BATCH,
    claim: (db, { now, limit, skipGroups }) =>
      claimDueDeliveries(db, {
        now,
        limit,
        leaseMs,
        ...(skipGroups ? { excludeWebhookIds: skipGroups } : {}),
      }),
    release: (db, items) => release(db, WEBHOOK_QUEUE, items),
    send: async (db, claimed) => {
      const { status } = await attemptDelivery(db, claimed, config, 'scheduled');
      return status === null ? null : status === 'pending' ? 'retrying' : status;
    },
  };
}
