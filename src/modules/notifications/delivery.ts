/**
 * Notification delivery, step 2: sending. Notifications are a kind of the one delivery queue
 * (db/delivery-queue.ts): due ones are leased by one worker, the claim counting the attempt, sent on their
 * channel, and settled only while the lease holds: `sent` as soon as the channel accepted it (a push
 * service's 201, an SMTP server's 250), else retried on the schedule, then `failed`.
 * A worker killed mid-send leaves a lease that runs out, and every notice it had in flight is sent again as
 * its next attempt (`attempts: 2` in the delivery log): the window for a duplicate is from the send's start
 * to the statement that records the channel's answer, so one kill can repeat as many notices as there were
 * sends in flight (up to the loop's concurrency, 8).
 * - An alert notice whose alert is no longer open (acknowledged or resolved before it went out: an
 *   escalation step, or one held by quiet hours) is `skipped` (not an attempt); so is one after which a
 *   later notice about the same alert already reached the person on that channel (a watch notice held by
 *   quiet hours while the urgent one, or an escalation step, went out at once): it would arrive out of date.
 * - A retry honours the channel's `Retry-After` (ntfy's 429 and 503): not sooner than it asks, at most
 *   RETRY_AFTER_CAP_MS (6 h); the delivery log's answer says so.
 * - Each channel is an adapter (channels/registry.ts): it renders the notice (title, reason, farm, time, the
 *   alert's URL and a fresh acknowledge token) and sends it, and says whether its answer was accepted, worth
 *   a retry, or final: push to each of the person's browsers (channels/push.ts), email to their address
 *   (channels/email.ts), ntfy to their topic (channels/ntfy.ts).
 */
import type { Config } from '../../config.ts';
import {
  type Answer,
  type DeliveryKind,
  type DeliveryState,
  deliverDueOnce,
  nextStep,
  release,
  type Step,
  settle,
} from '../../db/delivery-queue.ts';
import type { Db } from '../../db/schema.ts';
import { HOUR_MS, MINUTE_MS } from '../../lib/time.ts';
import { issueAckToken } from './ack-token.ts';
import { alertById, farmById, personById } from './audience.ts';
import { channel } from './channels/registry.ts';
import { type DeliveryConfig, type Outcome, serverSetup } from './channels/types.ts';
import { DEFAULT_READER } from './content.ts';
import {
  type ClaimedNotification,
  claimDueNotifications,
  laterNoticeSent,
  NOTIFICATION_QUEUE,
  type NotificationRow,
} from './repository.ts';

/** Delays of the retries after the first attempt. */
export const NOTIFICATION_RETRY_MS: readonly number[] = [
  10_000,
  60_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
];
/**
 * The longest wait a channel's `Retry-After` may put before the next attempt: a server asking for a day
 * (or a date far ahead) would otherwise hold the notice past any use; past this the schedule goes on.
 */
export const RETRY_AFTER_CAP_MS = 6 * HOUR_MS;
/**
 * A lease covers the channel's deadline (FARMSTEAD_WEBHOOK_TIMEOUT_MS: a push service or an SMTP server has
 * as long as a webhook receiver) for each of a person's browsers, and a margin for recording the outcome.
 */
export function notificationLeaseMs(config: Pick<Config, 'webhookTimeoutMs'>): number {
  return config.webhookTimeoutMs * 3 + 5_000;
}
export type { DeliveryConfig } from './channels/types.ts';

/**
 * Sends one notice on its channel: nothing when the server cannot send on it or its person cannot be reached
 * there any more (skipped), else rendered with the farm's name and, for an alert, a fresh acknowledge token.
 */
async function sendOnChannel(
  db: Db,
  row: NotificationRow,
  config: DeliveryConfig,
  now: number,
): Promise<Outcome> {
  const adapter = channel(row.channel);
  const unavailable = adapter.unavailable(serverSetup(config));
  if (unavailable) return { accepted: false, final: true, skipped: true, answer: `not sent: ${unavailable}` };
  if (!(await adapter.reachable(db, [row.person_id])).has(row.person_id)) {
    return { accepted: false, final: true, skipped: true, answer: `not sent: ${adapter.unreachable}` };
  }
  const farm = row.farm_id ? await farmById(db, row.farm_id) : undefined;
  const ackToken =
    row.kind === 'alert' && row.alert_id ? await issueAckToken(db, row.person_id, row.alert_id, now) : null;
  const person = await personById(db, row.person_id);
  const message = adapter.render({
    row,
    farmName: farm?.name ?? null,
    ackToken,
    publicUrl: config.publicUrl,
    reader: person ? { language: person.language, units: person.units } : DEFAULT_READER,
  });
  return adapter.send(db, row, message, config, now);
}

/** What a channel's outcome means to the queue. */
function answerOf(outcome: Outcome): Answer {
  if (outcome.accepted) return 'succeeded';
  if (outcome.skipped) return 'skipped';
  return outcome.final ? 'failed' : 'retry';
}

/** A wait in the delivery log's words: seconds, minutes or hours. */
function waitText(ms: number): string {
  if (ms < 2 * MINUTE_MS) return `${Math.ceil(ms / 1000)} s`;
  if (ms < 2 * HOUR_MS) return `${Math.ceil(ms / MINUTE_MS)} min`;
  return `${Math.round((ms / HOUR_MS) * 10) / 10} h`;
}

/**
 * The retry's step after the channel's `Retry-After`: never sooner than it asked, up to RETRY_AFTER_CAP_MS
 * (the schedule's own delay when that is later), and the log's answer says so.
 */
function honourRetryAfter(step: Step, outcome: Outcome, now: number): { step: Step; answer: string } {
  const asked = outcome.retryAfterMs;
  if (step.state !== 'retrying' || asked === undefined) return { step, answer: outcome.answer };
  const wait = Math.min(asked, RETRY_AFTER_CAP_MS);
  const capped = asked > wait ? `; capped at ${waitText(RETRY_AFTER_CAP_MS)}` : '';
  return {
    step: { state: 'retrying', next_attempt_at: Math.max(step.next_attempt_at, now + wait) },
    answer: `${outcome.answer} (Retry-After: ${waitText(asked)}${capped}; not tried again sooner)`,
  };
}

/**
 * Why an alert notice is not sent now, or null: its alert is no longer open, or a later notice about it
 * (the urgent one when a watch notice was held by quiet hours, an escalation step) already reached the
 * person on this channel, so this one would arrive out of date.
 */
async function outOfDate(db: Db, row: NotificationRow): Promise<string | null> {
  if (row.kind !== 'alert' || !row.alert_id) return null;
  const alert = await alertById(db, row.alert_id);
  if (alert?.status !== 'open') return `not sent: the alert was ${alert?.status ?? 'deleted'} first`;
  if (await laterNoticeSent(db, row)) return 'not sent: a later notice about this alert reached them first';
  return null;
}

/** Sends one claimed notification and settles it. Returns its new status (null: the lease was lost). */
export async function deliverNotification(
  db: Db,
  row: ClaimedNotification,
  config: DeliveryConfig,
  now: number = Date.now(),
): Promise<NotificationRow['status'] | null> {
  const stale = await outOfDate(db, row);
  const outcome: Outcome = stale
    ? { accepted: false, final: true, skipped: true, answer: stale }
    : await sendOnChannel(db, row, config, now);
  const { step, answer } = honourRetryAfter(
    nextStep(answerOf(outcome), row.attempt, { scheduleMs: NOTIFICATION_RETRY_MS }, now),
    outcome,
    now,
  );
  const settled = await settle(db, NOTIFICATION_QUEUE, row, step, {
    answer: answer.slice(0, 2000),
    sent_at: step.state === 'succeeded' ? Date.now() : null,
  });
  return settled ? statusOf(step.state) : null;
}

function statusOf(state: DeliveryState): NotificationRow['status'] {
  return state === 'retrying' ? 'pending' : (NOTIFICATION_QUEUE.statuses[state] as NotificationRow['status']);
}

/** Sends in flight at once per process. */
const CONCURRENCY = 8;

/**
 * Notifications as a kind of the delivery queue. The planning that turns alert events into notifications
 * runs before each turn (workers/notification-delivery.ts adds it as `prepare`).
 */
export function notificationDeliveries(
  config: DeliveryConfig & Pick<Config, 'webhookPollMs'>,
): DeliveryKind<ClaimedNotification> {
  const leaseMs = notificationLeaseMs(config);
  return {
    queue: NOTIFICATION_QUEUE,
    pollMs: config.webhookPollMs,
    concurrency: CONCURRENCY,
    claim: (db, { now, limit }) => claimDueNotifications(db, now, limit, leaseMs),
    release: (db, items) => release(db, NOTIFICATION_QUEUE, items),
    send: async (db, row, now) => {
      const status = await deliverNotification(db, row, config, now);
      return status === null
        ? null
        : status === 'pending'
          ? 'retrying'
          : status === 'sent'
            ? 'succeeded'
            : status;
    },
  };
}

/** One turn at `now`: claims up to `limit` due notifications and sends them (a few at a time). */
export async function deliverDue(
  db: Db,
  config: DeliveryConfig & Pick<Config, 'webhookPollMs'>,
  options: { now?: number; limit?: number; concurrency?: number } = {},
): Promise<{ claimed: number; sent: number }> {
  const { claimed, states } = await deliverDueOnce(
    db,
    notificationDeliveries(config),
    options.now ?? Date.now(),
    {
      limit: options.limit ?? 50,
      concurrency: options.concurrency ?? CONCURRENCY,
    },
  );
  return { claimed, sent: states.succeeded ?? 0 };
}
