/**
 * The delivery queue's worker loop (db/delivery-queue.ts), one long-running job per kind and process. Each
 * turn runs the kind's preparation (outbox events fanned out into items…), claims as many due items as
 * there are free sending slots, and starts them without waiting: sends run concurrently, each bounded by
 * its own deadline, and at most `perGroup` of them go to any one group (a webhook), so a slow or dead
 * receiver holds a few slots for a few seconds and never the rest. A finished send frees its slot and,
 * when every slot was taken, starts the next turn at once. On stop (SIGTERM) it starts nothing new and
 * waits for the sends in flight, which end by their deadline; a process killed mid-send leaves leases
 * that run out, and those items are sent again (their next attempt).
 */
import type { Config } from '../config.ts';
import type { DeliveryKind, Leased } from '../db/delivery-queue.ts';
import { pause } from '../lib/pause.ts';
import type { JobContext, PeriodicJob } from './runner.ts';

type InFlight = Map<string, { group: string | null; done: Promise<void> }>;

/**
 * One turn's claim: up to `free` due items, keeping at most `perGroup` sends in flight per group, launched.
 * Returns whether to claim again at once (a group's surplus was given back) and whether every free slot
 * is now taken.
 */
async function claimTurn<Item extends Leased>(
  ctx: JobContext,
  kind: DeliveryKind<Item>,
  inFlight: InFlight,
  free: number,
  launch: (item: Item) => void,
): Promise<{ again: boolean; saturated: boolean }> {
  const db = ctx.database.db;
  const perGroup = kind.perGroup ?? Number.POSITIVE_INFINITY;
  const groups = new Map<string, number>();
  for (const { group } of inFlight.values()) {
    if (group !== null) groups.set(group, (groups.get(group) ?? 0) + 1);
  }
  const full = [...groups].filter(([, n]) => n >= perGroup).map(([id]) => id);
  const claimed = await kind.claim(db, { now: Date.now(), limit: free, skipGroups: full });
  const surplus: Item[] = [];
  for (const item of claimed) {
    const n = item.group === null ? 0 : (groups.get(item.group) ?? 0);
    if (n >= perGroup) {
      surplus.push(item);
      continue;
    }
    if (item.group !== null) groups.set(item.group, n + 1);
    launch(item);
  }
  // A batch may hold more of one group's items than its share: give those back and claim again at once,
  // now leaving that group out, so other groups' items are not starved.
  if (surplus.length > 0) await kind.release(db, surplus);
  return { again: surplus.length > 0, saturated: claimed.length - surplus.length >= free };
}

/** Runs a kind's deliveries until the job's signal aborts, then waits for the sends in flight. */
export async function runDeliveryLoop<Item extends Leased>(
  ctx: JobContext,
  kind: DeliveryKind<Item>,
): Promise<void> {
  const { database, log, signal } = ctx;
  const queue = kind.queue.name;
  const inFlight: InFlight = new Map();
  let wake: (() => void) | null = null;
  // When every slot was filled, more may be due: a finished send starts the next turn at once.
  let saturated = false;

  const launch = (item: Item) => {
    const done = kind
      .send(database.db, item, Date.now())
      .then((state) => {
        if (state === 'retrying' || state === 'failed' || state === 'expired') {
          log.info({ queue, key: item.key, attempt: item.attempt, state }, 'delivery attempt not accepted');
        } else if (state === null) {
          log.warn(
            { queue, key: item.key },
            'delivery settled by another worker: its lease ran out mid-send',
          );
        }
      })
      .catch((err: unknown) => {
        // Its lease runs out and the item is attempted again.
        log.error({ err, queue, key: item.key }, 'could not send or settle a delivery');
      })
      .finally(() => {
        inFlight.delete(item.key);
        if (saturated) wake?.();
      });
    inFlight.set(item.key, { group: item.group, done });
  };

  while (!signal.aborted) {
    let again = false;
    try {
      again = (await kind.prepare?.(database.db, Date.now())) ?? false;
      const free = kind.concurrency - inFlight.size;
      saturated = free <= 0;
      if (free > 0) {
        const turn = await claimTurn(ctx, kind, inFlight, free, launch);
        again ||= turn.again;
        saturated = turn.saturated;
      }
    } catch (err) {
      log.error({ err, queue }, 'delivery turn failed');
      again = false;
    }
    if (again && !saturated) continue;
    await pause(kind.pollMs, signal, (next) => {
      wake = next;
    });
  }
  await Promise.allSettled([...inFlight.values()].map((f) => f.done));
}

/**
 * The catalog entry of a kind's loop: it runs until the runner stops (no timeout; each item keeps its own
 * retries), and `pollMs` is also the pause before restarting it after a crash.
 */
export function deliveryJob<Item extends Leased>(job: {
  name: string;
  kind: (config: Readonly<Config>) => DeliveryKind<Item>;
  enabled?: (config: Readonly<Config>) => boolean;
}): PeriodicJob {
  return {
    name: job.name,
    everyMs: (config) => job.kind(config).pollMs,
    timeoutMs: null,
    attempts: 1,
    ...(job.enabled ? { enabled: job.enabled } : {}),
    run: (ctx) => runDeliveryLoop(ctx, job.kind(ctx.config)),
  };
}
