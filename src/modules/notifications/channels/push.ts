/**
 * Push to a person's browsers (the console's service worker shows it, web/sw.ts): one encrypted push per
 * subscribed browser through web-push.ts. Accepted when any browser's push service took it; a 404/410 means
 * that browser unsubscribed, and it is removed (final when none is left); anything else is retried, no sooner
 * than a push service's `Retry-After` asks (the longest, when several do; delivery.ts caps it).
 */
import { toIso } from '../../../lib/time.ts';
import { say } from '../content.ts';
import {
  deleteSubscriptionById,
  type NotificationRow,
  peopleWithSubscriptions,
  subscriptionsOf,
  touchSubscription,
} from '../repository.ts';
import { vapidKeys } from '../vapid.ts';
import { ackEndpoint, type ChannelAdapter, isUrgentAlert } from './types.ts';
import { sendPush } from './web-push.ts';

/** How long a push service keeps a push for an offline phone. */
const PUSH_TTL_SECONDS = 24 * 3600;

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
  /** The notification's buttons, in the person's language. */
  labels: { acknowledge: string; open: string };
}

export const pushChannel: ChannelAdapter<PushPayload> = {
  defaults: (role) => (role === 'owner' ? ['urgent', 'watch'] : ['urgent']),
  unavailable: () => null,
  reachable: peopleWithSubscriptions,
  unreachable: 'No browser of yours allows notifications yet: allow them on your Account page first.',

  render: ({ row, farmName, ackToken, publicUrl, reader }) => ({
    id: row.id,
    kind: row.kind,
    title: row.title,
    body: row.body,
    severity: row.severity,
    farm: farmName,
    alert_id: row.alert_id,
    at: toIso(row.created_at),
    url: row.url,
    ack_token: ackToken,
    ack_url: ackEndpoint(publicUrl),
    labels: { acknowledge: say(reader, 'action_acknowledge'), open: say(reader, 'action_open') },
  }),

  async send(db, row, payload, config, now) {
    const subscriptions = await subscriptionsOf(db, row.person_id);
    const vapid = await vapidKeys(db, config);
    const answers: string[] = [];
    let accepted = false;
    let remaining = 0;
    // The longest wait a push service asked for: a retry goes to every browser again.
    let wait: number | undefined;
    for (const sub of subscriptions) {
      const result = await sendPush(sub, JSON.stringify(payload), {
        vapid,
        urgent: isUrgentAlert(row),
        ttlSeconds: PUSH_TTL_SECONDS,
        allowPrivate: config.webhookAllowPrivate,
        timeoutMs: config.webhookTimeoutMs,
        now,
      });
      answers.push(`${sub.id}: ${result.answer}`);
      if (result.retryAfterMs !== undefined) wait = Math.max(wait ?? 0, result.retryAfterMs);
      if (result.gone) await deleteSubscriptionById(db, sub.id);
      else remaining++;
      if (result.accepted) {
        accepted = true;
        await touchSubscription(db, sub.id, now);
      }
    }
    return {
      accepted,
      final: remaining === 0,
      answer: answers.join('; '),
      ...(wait === undefined || accepted ? {} : { retryAfterMs: wait }),
    };
  },
};
