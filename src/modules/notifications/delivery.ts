/**
 * Notification delivery, step 2: sending. Due notifications are leased by one worker (repository.ts,
 * `claimDue`), sent on their channel, and settled only while the lease holds: `sent` as soon as the channel
 * accepted it (a push service's 201, an SMTP server's 250), else retried on the schedule, then `failed`.
 * A worker killed mid-send leaves a lease that runs out, and the notification is sent again: the one window
 * for a duplicate is between the channel's answer and the next statement.
 * - An alert notice whose alert is no longer open (acknowledged or resolved before it went out: an
 *   escalation step, or one held by quiet hours) is `skipped`.
 * - Each channel is an adapter (channels/registry.ts): it renders the notice (title, reason, farm, time, the
 *   alert's URL and a fresh acknowledge token) and sends it, and says whether its answer was accepted, worth
 *   a retry, or final: push to each of the person's browsers (channels/push.ts), email to their address
 *   (channels/email.ts), ntfy to their topic (channels/ntfy.ts).
 */
import type { Config } from '../../config.ts';
import type { Db } from '../../db/schema.ts';
import { issueAckToken } from './ack-token.ts';
import { alertById, farmById } from './audience.ts';
import { channel } from './channels/registry.ts';
import { type DeliveryConfig, type Outcome, serverSetup } from './channels/types.ts';
import { claimDue, type NotificationRow, settleNotification } from './repository.ts';

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
  const message = adapter.render({
    row,
    farmName: farm?.name ?? null,
    ackToken,
    publicUrl: config.publicUrl,
  });
  return adapter.send(db, row, message, config, now);
}

/** Sends one leased notification and settles it. Returns its new status (null: the lease was lost). */
export async function deliverNotification(
  db: Db,
  row: NotificationRow,
  config: DeliveryConfig,
  now: number = Date.now(),
): Promise<NotificationRow['status'] | null> {
  const lease = row.locked_until as number;
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
  outcome ??= await sendOnChannel(db, row, config, now);
  const attempts = row.attempt_count + (outcome.skipped ? 0 : 1);
  const delay = NOTIFICATION_RETRY_MS[attempts - 1];
  const status = outcome.accepted
    ? 'sent'
    : outcome.skipped
      ? 'skipped'
      : outcome.final || delay === undefined
        ? 'failed'
        : 'pending';
  const settled = await settleNotification(db, row.id, lease, {
    status,
    answer: outcome.answer.slice(0, 2000),
    attempt_count: attempts,
    next_attempt_at: status === 'pending' ? now + (delay ?? 0) : null,
    sent_at: status === 'sent' ? Date.now() : null,
  });
  return settled ? status : null;
}

/** One turn: claims up to `limit` due notifications and sends them (a few at a time). */
export async function deliverDue(
  db: Db,
  config: DeliveryConfig,
  options: { now?: number; limit?: number; concurrency?: number } = {},
): Promise<{ claimed: number; sent: number }> {
  const now = options.now ?? Date.now();
  const claimed = await claimDue(db, now, options.limit ?? 50, notificationLeaseMs(config));
  let sent = 0;
  const queue = [...claimed];
  const lanes = Array.from({ length: Math.min(options.concurrency ?? 8, queue.length) }, async () => {
    for (let row = queue.shift(); row; row = queue.shift()) {
      if ((await deliverNotification(db, row, config, now)) === 'sent') sent++;
    }
  });
  await Promise.all(lanes);
  return { claimed: claimed.length, sent };
}
