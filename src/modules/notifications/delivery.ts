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
 *   escalation step, or one held by quiet hours) is `skipped` (not an attempt).
 * - Push goes to each of the person's browsers; a 404/410 removes that subscription. It carries the title,
 *   reason, farm, time, the alert's URL and a fresh acknowledge token.
 * - Email goes to the person's address, with the link to the alert and the acknowledge page's link.
 */
import type { Config } from '../../config.ts';
import {
  type Answer,
  type DeliveryKind,
  type DeliveryState,
  deliverDueOnce,
  nextStep,
  release,
  settle,
} from '../../db/delivery-queue.ts';
import type { Db } from '../../db/schema.ts';
import { toIso } from '../../lib/time.ts';
import { issueAckToken } from './ack-token.ts';
import { sendEmail } from './channels/email.ts';
import { sendPush } from './channels/web-push.ts';
import { ackPageUrl, emailText } from './content.ts';
import {
  alertById,
  type ClaimedNotification,
  claimDueNotifications,
  deleteSubscriptionById,
  farmById,
  NOTIFICATION_QUEUE,
  type NotificationRow,
  personById,
  subscriptionsOf,
  touchSubscription,
} from './repository.ts';
import { vapidKeys } from './vapid.ts';

/** Delays of the retries after the first attempt. */
export const NOTIFICATION_RETRY_MS: readonly number[] = [
  10_000,
  60_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
];
/**
 * A lease covers the channel's deadline (FARMSTEAD_WEBHOOK_TIMEOUT_MS: a push service or an SMTP server has
 * as long as a webhook receiver) for each of a person's browsers, and a margin for recording the outcome.
 */
export function notificationLeaseMs(config: Pick<Config, 'webhookTimeoutMs'>): number {
  return config.webhookTimeoutMs * 3 + 5_000;
}
/** How long a push service keeps a push for an offline phone. */
const PUSH_TTL_SECONDS = 24 * 3600;

export type DeliveryConfig = Pick<
  Config,
  | 'smtpUrl'
  | 'emailFrom'
  | 'publicUrl'
  | 'webhookAllowPrivate'
  | 'webhookTimeoutMs'
  | 'vapidKeys'
  | 'vapidSubject'
>;

interface Outcome {
  accepted: boolean;
  /** Nothing more to try (every browser gone, a permanent refusal, nothing to send to). */
  final: boolean;
  skipped?: boolean;
  answer: string;
}

/** The push payload the console's service worker shows (web/sw.ts). */
export interface PushPayload {
  id: string;
  kind: NotificationRow['kind'];
  title: string;
  body: string;
  severity: string | null;
  farm: string | null;
  alert_id: string | null;
  at: string;
  url: string;
  ack_token: string | null;
  ack_url: string;
}

async function sendPushNotice(
  db: Db,
  row: NotificationRow,
  config: DeliveryConfig,
  now: number,
): Promise<Outcome> {
  const subscriptions = await subscriptionsOf(db, row.person_id);
  if (subscriptions.length === 0) {
    return {
      accepted: false,
      final: true,
      skipped: true,
      answer: 'not sent: no browser allows notifications',
    };
  }
  const farm = row.farm_id ? await farmById(db, row.farm_id) : undefined;
  const token =
    row.kind === 'alert' && row.alert_id ? await issueAckToken(db, row.person_id, row.alert_id, now) : null;
  const payload: PushPayload = {
    id: row.id,
    kind: row.kind,
    title: row.title,
    body: row.body,
    severity: row.severity,
    farm: farm?.name ?? null,
    alert_id: row.alert_id,
    at: toIso(row.created_at),
    url: row.url,
    ack_token: token,
    ack_url: `${config.publicUrl}/v1/notifications/acknowledge`,
  };
  const vapid = await vapidKeys(db, config);
  const answers: string[] = [];
  let accepted = false;
  let remaining = 0;
  for (const sub of subscriptions) {
    const result = await sendPush(sub, JSON.stringify(payload), {
      vapid,
      urgent: row.severity === 'urgent' && row.kind === 'alert',
      ttlSeconds: PUSH_TTL_SECONDS,
      allowPrivate: config.webhookAllowPrivate,
      timeoutMs: config.webhookTimeoutMs,
    });
    answers.push(`${sub.id}: ${result.answer}`);
    if (result.gone) await deleteSubscriptionById(db, sub.id);
    else remaining++;
    if (result.accepted) {
      accepted = true;
      await touchSubscription(db, sub.id, now);
    }
  }
  return { accepted, final: remaining === 0, answer: answers.join('; ') };
}

async function sendEmailNotice(
  db: Db,
  row: NotificationRow,
  config: DeliveryConfig,
  now: number,
): Promise<Outcome> {
  if (!config.smtpUrl)
    return { accepted: false, final: true, skipped: true, answer: 'not sent: email is not set up' };
  const person = await personById(db, row.person_id);
  if (!person)
    return { accepted: false, final: true, skipped: true, answer: 'not sent: the person was removed' };
  const farm = row.farm_id ? await farmById(db, row.farm_id) : undefined;
  const token =
    row.kind === 'alert' && row.alert_id ? await issueAckToken(db, row.person_id, row.alert_id, now) : null;
  const text =
    row.kind === 'brief'
      ? `${row.body}\n\nOpen the brief: ${row.url}\n`
      : emailText({
          title: row.title,
          body: row.body,
          url: row.url,
          ackUrl: token ? ackPageUrl(config.publicUrl, token) : null,
          farmName: farm?.name ?? 'Farmstead',
        });
  const result = await sendEmail(config.smtpUrl, {
    from: config.emailFrom,
    to: person.email,
    subject: row.title,
    text,
    urgent: row.severity === 'urgent' && row.kind === 'alert',
    timeoutMs: config.webhookTimeoutMs,
  });
  return { accepted: result.accepted, final: result.permanent, answer: result.answer };
}

/** What a channel's outcome means to the queue. */
function answerOf(outcome: Outcome): Answer {
  if (outcome.accepted) return 'succeeded';
  if (outcome.skipped) return 'skipped';
  return outcome.final ? 'failed' : 'retry';
}

/** Sends one claimed notification and settles it. Returns its new status (null: the lease was lost). */
export async function deliverNotification(
  db: Db,
  row: ClaimedNotification,
  config: DeliveryConfig,
  now: number = Date.now(),
): Promise<NotificationRow['status'] | null> {
  let outcome: Outcome | undefined;
  if (row.kind === 'alert' && row.alert_id) {
    const alert = await alertById(db, row.alert_id);
    if (alert?.status !== 'open') {
      outcome = {
        accepted: false,
        final: true,
        skipped: true,
        answer: `not sent: the alert was ${alert?.status ?? 'deleted'} first`,
      };
    }
  }
  outcome ??=
    row.channel === 'push'
      ? await sendPushNotice(db, row, config, now)
      : await sendEmailNotice(db, row, config, now);
  const step = nextStep(answerOf(outcome), row.attempt, { scheduleMs: NOTIFICATION_RETRY_MS }, now);
  const settled = await settle(db, NOTIFICATION_QUEUE, row, step, {
    answer: outcome.answer.slice(0, 2000),
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
