/**
 * The notification loop: notifications as a kind of the one delivery queue (the kind:
 * modules/notifications/delivery.ts `notificationDeliveries`; the loop: delivery-loop.ts). Before each
 * turn's claim it plans new alert events from the outbox into notifications (plan.ts), moves due
 * escalations a step (escalation.ts) and queues the morning briefs that are due (brief-email.ts, once a
 * minute). Any number of workers share this on PostgreSQL (leases, SKIP LOCKED, unique keys); on SQLite
 * keep it in one process. On stop it starts nothing new and waits for the sends in flight.
 */
import type { Config } from '../config.ts';
import type { Db } from '../db/schema.ts';
import { queueDueBriefs } from '../modules/notifications/brief-email.ts';
import { deliverDue, notificationDeliveries } from '../modules/notifications/delivery.ts';
import { escalateDue } from '../modules/notifications/escalation.ts';
import { planFromOutbox } from '../modules/notifications/plan.ts';
import { deliveryJob } from './delivery-loop.ts';
import type { JobContext } from './runner.ts';

/** Alert events planned per turn (plan.ts's default). */
const PLAN_BATCH = 100;

/** What comes before sending: planning, escalations, and (when `briefs`) the morning briefs. */
async function prepareNotifications(
  db: Db,
  config: Pick<Config, 'publicUrl' | 'smtpUrl'>,
  now: number,
  briefs: boolean,
) {
  const common = { now, publicUrl: config.publicUrl, email: config.smtpUrl !== null };
  const plan = await planFromOutbox(db, { ...common, limit: PLAN_BATCH });
  const escalation = await escalateDue(db, common);
  return {
    events: plan.events,
    planned: plan.planned,
    escalated: escalation.escalated,
    briefs: briefs ? await queueDueBriefs(db, common) : 0,
  };
}

/** One turn of the loop at `now` (tests call it with an injected clock). */
export async function notificationTurn(
  ctx: Pick<JobContext, 'database' | 'config'>,
  now: number,
  options: { briefs?: boolean } = {},
): Promise<{ planned: number; escalated: number; briefs: number; sent: number; claimed: number }> {
  const { database, config } = ctx;
  const prepared = await prepareNotifications(database.db, config, now, options.briefs !== false);
  const delivery = await deliverDue(database.db, config, { now });
  const { planned, escalated, briefs } = prepared;
  return { planned, escalated, briefs, sent: delivery.sent, claimed: delivery.claimed };
}

const BRIEF_EVERY_MS = 60_000;

/** The kind with its preparation; briefs are looked for once a minute. */
function notificationsWithPlanning(config: Readonly<Config>) {
  let lastBriefs = 0;
  return {
    ...notificationDeliveries(config),
    prepare: async (db: Db, now: number) => {
      const briefs = now - lastBriefs >= BRIEF_EVERY_MS;
      if (briefs) lastBriefs = now;
      const prepared = await prepareNotifications(db, config, now, briefs);
      // A full batch of events: more are waiting, the next turn comes at once.
      return prepared.events >= PLAN_BATCH;
    },
  };
}

export const notificationDeliveryJob = deliveryJob({
  name: 'notifications.deliver',
  kind: notificationsWithPlanning,
  enabled: (config) => config.notificationWorkerInProcess,
});
