/**
 * Background work runs as named periodic jobs (see jobs.ts). Each job runs at most once at a time per
 * process; jobs that must not run twice across processes take their own database locks
 * (FOR UPDATE SKIP LOCKED on PostgreSQL).
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';

export interface JobContext {
  database: Database;
  config: Readonly<Config>;
  log: FastifyBaseLogger;
  /** Set when the runner is stopping; long jobs should check it between steps. */
  signal: AbortSignal;
}

export interface PeriodicJob {
  name: string;
  /** Pause between the end of one run and the start of the next, in ms. */
  everyMs: (config: Readonly<Config>) => number;
  /** Whether this job runs in this process (e.g. off in tests, or when its own worker process runs it). */
  enabled?: (config: Readonly<Config>) => boolean;
  run(ctx: JobContext): Promise<void>;
}

export interface RunningWorkers {
  stop(): Promise<void>;
}

export function startWorkers(jobs: readonly PeriodicJob[], ctx: Omit<JobContext, 'signal'>): RunningWorkers {
  const controller = new AbortController();
  const running = new Set<Promise<void>>();
  const timers = new Set<NodeJS.Timeout>();

  const schedule = (job: PeriodicJob, delay: number) => {
    if (controller.signal.aborted) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      const run = job
        .run({ ...ctx, signal: controller.signal })
        .catch((err: unknown) => ctx.log.error({ err, job: job.name }, 'background job failed'))
        .finally(() => {
          running.delete(run);
          schedule(job, job.everyMs(ctx.config));
        });
      running.add(run);
    }, delay);
    timers.add(timer);
  };

  for (const job of jobs) {
    if (job.enabled && !job.enabled(ctx.config)) continue;
    schedule(job, 0);
  }

  return {
    async stop() {
      controller.abort();
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await Promise.allSettled([...running]);
    },
  };
}
