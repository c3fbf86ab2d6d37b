/**
 * The webhook delivery loop: one long-running job per process. Each turn dispatches new outbox events into
 * deliveries, leases as many due deliveries as there are free sending slots, and starts them without waiting:
 * sends run concurrently, each bounded by the receiver deadline, and at most PER_WEBHOOK_CONCURRENCY of them
 * go to any one webhook, so a slow or dead receiver holds a few slots for a few seconds and never the rest.
 * On stop (SIGTERM) it starts nothing new and waits for the sends in flight, which end by their deadline.
 */

import { attemptDelivery } from '../modules/webhooks/delivery.ts';
import { dispatchOutbox } from '../modules/webhooks/dispatch.ts';
import {
  claimDueDeliveries,
  deliveryLeaseMs,
  releaseDeliveries,
} from '../modules/webhooks/queue-repository.ts';
import type { JobContext, PeriodicJob } from './runner.ts';

/** Sends one process runs at the same time to one webhook. */
export const PER_WEBHOOK_CONCURRENCY = 4;
const DISPATCH_BATCH = 500;

type Claimed = Awaited<ReturnType<typeof claimDueDeliveries>>[number];
type InFlight = Map<string, { webhookId: string; done: Promise<void> }>;

/**
 * One turn's claim: leases up to `free` due deliveries, keeping at most PER_WEBHOOK_CONCURRENCY sends in
 * flight per webhook, and launches them. Returns whether to claim again at once (a webhook's surplus was
 * given back) and whether every free slot is now taken.
 */
async function claimTurn(
  ctx: JobContext,
  inFlight: InFlight,
  free: number,
  launch: (delivery: Claimed) => void,
): Promise<{ again: boolean; saturated: boolean }> {
  const { database, config } = ctx;
  const perWebhook = new Map<string, number>();
  for (const { webhookId } of inFlight.values()) {
    perWebhook.set(webhookId, (perWebhook.get(webhookId) ?? 0) + 1);
  }
  const full = [...perWebhook].filter(([, n]) => n >= PER_WEBHOOK_CONCURRENCY).map(([id]) => id);
  const claimed = await claimDueDeliveries(database.db, {
    limit: free,
    leaseMs: deliveryLeaseMs(config),
    excludeWebhookIds: full,
  });
  const surplus: string[] = [];
  for (const delivery of claimed) {
    const n = perWebhook.get(delivery.webhook_id) ?? 0;
    if (n >= PER_WEBHOOK_CONCURRENCY) {
      surplus.push(delivery.id);
      continue;
    }
    perWebhook.set(delivery.webhook_id, n + 1);
    launch(delivery);
  }
  // A batch may hold more of one webhook's deliveries than its share: give those back and claim again at
  // once, now excluding that webhook, so other webhooks' deliveries are not starved.
  if (surplus.length > 0) await releaseDeliveries(database.db, surplus);
  return { again: surplus.length > 0, saturated: claimed.length - surplus.length >= free };
}

/** Waits `ms`, or less when woken (through `setWake`) or stopped. */
function pause(signal: AbortSignal, ms: number, setWake: (wake: (() => void) | null) => void): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      setWake(null);
      resolve();
    }
    setWake(done);
    signal.addEventListener('abort', done, { once: true });
  });
}

export async function runWebhookDeliveryLoop(ctx: JobContext): Promise<void> {
  const { database, config, log, signal } = ctx;
  const inFlight: InFlight = new Map();
  let wake: (() => void) | null = null;
  // When every slot was filled, more may be due: a finished send starts the next turn at once.
  let saturated = false;

  const launch = (delivery: Claimed) => {
    const done = attemptDelivery(database.db, delivery, config, 'scheduled')
      .then(({ result, status }) => {
        if (!result.succeeded) {
          log.info(
            { delivery: delivery.id, webhook: delivery.webhook_id, error: result.error, status },
            'webhook attempt failed',
          );
        }
      })
      .catch((err: unknown) => {
        // The lease runs out and the delivery is attempted again.
        log.error({ err, delivery: delivery.id }, 'could not record a webhook attempt');
      })
      .finally(() => {
        inFlight.delete(delivery.id);
        if (saturated) wake?.();
      });
    inFlight.set(delivery.id, { webhookId: delivery.webhook_id, done });
  };

  while (!signal.aborted) {
    let again = false;
    try {
      const dispatched = await dispatchOutbox(database.db, { limit: DISPATCH_BATCH });
      again = dispatched.events === DISPATCH_BATCH;
      const free = config.webhookConcurrency - inFlight.size;
      saturated = free <= 0;
      if (free > 0) {
        const turn = await claimTurn(ctx, inFlight, free, launch);
        again ||= turn.again;
        saturated = turn.saturated;
      }
    } catch (err) {
      log.error({ err }, 'webhook delivery turn failed');
      again = false;
    }
    if (again && !saturated) continue;
    await pause(signal, config.webhookPollMs, (next) => {
      wake = next;
    });
  }
  await Promise.allSettled([...inFlight.values()].map((f) => f.done));
}

export const webhookDeliveryJob: PeriodicJob = {
  name: 'webhooks.deliver',
  // The loop runs until the runner stops; this is only the pause before restarting it after a crash.
  everyMs: (config) => config.webhookPollMs,
  // A loop, not a run: no timeout; a crash restarts it after everyMs.
  timeoutMs: null,
  attempts: 1,
  enabled: (config) => config.webhookWorkerInProcess,
  run: runWebhookDeliveryLoop,
};
