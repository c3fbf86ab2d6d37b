/**
 * The notification loop: one long-running job per process. Each turn plans new alert events from the outbox
 * into notifications (modules/notifications/plan.ts), moves due escalations a step (escalation.ts), queues
 * the morning briefs that are due (brief-email.ts, once a minute) and sends the due notifications
 * (delivery.ts). Any number of workers share this on PostgreSQL (leases, SKIP LOCKED, unique keys); on
 * SQLite keep it in one process. On stop it starts nothing new and waits for the sends in flight.
 */
import { queueDueBriefs } from '../modules/notifications/brief-email.ts';
import { deliverDue } from '../modules/notifications/delivery.ts';
import { escalateDue } from '../modules/notifications/escalation.ts';
import { planFromOutbox } from '../modules/notifications/plan.ts';
import type { JobContext, PeriodicJob } from './runner.ts';

/** One turn of the loop at `now` (tests call it with an injected clock). */
export async function notificationTurn(
  ctx: Pick<JobContext, 'database' | 'config'>,
  now: number,
  options: { briefs?: boolean } = {},
): Promise<{ planned: number; escalated: number; briefs: number; sent: number; claimed: number }> {
  const { database, config } = ctx;
  const common = { now, publicUrl: config.publicUrl, email: config.smtpUrl !== null };
  const plan = await planFromOutbox(database.db, common);
  const escalation = await escalateDue(database.db, common);
  const briefs = options.briefs === false ? 0 : await queueDueBriefs(database.db, common);
  const delivery = await deliverDue(database.db, config, { now });
  return {
    planned: plan.planned,
    escalated: escalation.escalated,
    briefs,
    sent: delivery.sent,
    claimed: delivery.claimed,
  };
}

const BRIEF_EVERY_MS = 60_000;

export async function runNotificationLoop(ctx: JobContext): Promise<void> {
  let lastBriefs = 0;
  while (!ctx.signal.aborted) {
    let busy = false;
    try {
      const now = Date.now();
      const briefs = now - lastBriefs >= BRIEF_EVERY_MS;
      if (briefs) lastBriefs = now;
      const turn = await notificationTurn(ctx, now, { briefs });
      busy = turn.claimed >= 50;
    } catch (err) {
      ctx.log.error({ err }, 'notification turn failed');
    }
    if (busy) continue;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, ctx.config.webhookPollMs);
      function done() {
        clearTimeout(timer);
        ctx.signal.removeEventListener('abort', done);
        resolve();
      }
      ctx.signal.addEventListener('abort', done, { once: true });
    });
  }
}

export const notificationDeliveryJob: PeriodicJob = {
  name: 'notifications.deliver',
  everyMs: (config) => config.webhookPollMs,
  enabled: (config) => config.notificationWorkerInProcess,
  // A loop that runs until shutdown (like webhooks.deliver): no timeout; each notification keeps its own retries.
  timeoutMs: null,
  attempts: 1,
  run: runNotificationLoop,
};
