/**
 * Background work runs as named periodic jobs (see jobs.ts), each with its timeout and attempts. A job
 * runs at most once at a time per process, unless a run past its timeout was abandoned while it still
 * runs (its signal is aborted: jobs check it between steps); jobs that must not run twice, across
 * processes or after an abandoned run, take their own database locks (advisory locks, FOR UPDATE SKIP
 * LOCKED on PostgreSQL; SQLite's writes are one at a time).
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { pause } from '../lib/pause.ts';

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
  /**
   * Longest one run may take, in ms (Trigger.dev's maxDuration): past it the run is abandoned — its
   * signal aborted, an error logged, not retried — and the job is scheduled again as after a failure.
   * null: the job is a loop that runs until the runner stops.
   */
  timeoutMs: number | null;
  /**
   * Runs per turn (Trigger.dev's retry.maxAttempts): a run that throws is tried again RETRY_PAUSE_MS
   * later, up to this many runs in all; then the job waits `everyMs` as after a success.
   */
  attempts: number;
  /** Whether this job runs in this process (e.g. off in tests, or when its own worker process runs it). */
  enabled?: (config: Readonly<Config>) => boolean;
  run(ctx: JobContext): Promise<void>;
}

/** The pause before a failed run's next attempt. */
export const RETRY_PAUSE_MS = 1_000;

export interface RunningWorkers {
  /** Stops scheduling and waits for the runs in flight (not for abandoned ones). */
  stop(): Promise<void>;
}

type Outcome = 'done' | 'failed' | 'timed out';

export function startWorkers(jobs: readonly PeriodicJob[], ctx: Omit<JobContext, 'signal'>): RunningWorkers {
  const controller = new AbortController();
  const running = new Set<Promise<void>>();
  const timers = new Set<NodeJS.Timeout>();

  /** One run: done, failed (logged) or, past the job's timeout, abandoned (its signal aborted, logged). */
  const runOnce = async (job: PeriodicJob, attempt: number): Promise<Outcome> => {
    const run = new AbortController();
    const stopRun = () => run.abort(controller.signal.reason);
    controller.signal.addEventListener('abort', stopRun, { once: true });
    let abandoned = false;
    const work = job.run({ ...ctx, signal: run.signal }).then(
      (): Outcome => 'done',
      (err: unknown): Outcome => {
        if (abandoned) ctx.log.warn({ err, job: job.name }, 'abandoned background job failed');
        else ctx.log.error({ err, job: job.name, attempt, attempts: job.attempts }, 'background job failed');
        return 'failed';
      },
    );
    let deadline: NodeJS.Timeout | undefined;
    const limit = job.timeoutMs;
    const outcome =
      limit === null
        ? await work
        : await Promise.race([
            work,
            new Promise<Outcome>((resolve) => {
              deadline = setTimeout(() => resolve('timed out'), limit);
            }),
          ]);
    clearTimeout(deadline);
    controller.signal.removeEventListener('abort', stopRun);
    if (outcome === 'timed out') {
      abandoned = true;
      run.abort(new Error(`${job.name} ran past its timeout of ${limit} ms`));
      ctx.log.error({ job: job.name, timeoutMs: limit }, 'background job timed out; abandoned');
    }
    return outcome;
  };

  /** A turn: up to `attempts` runs while they fail; a timed-out run ends the turn. */
  const turn = async (job: PeriodicJob): Promise<void> => {
    for (let attempt = 1; attempt <= job.attempts; attempt++) {
      if (attempt > 1) await pause(RETRY_PAUSE_MS, controller.signal);
      if (controller.signal.aborted) return;
      if ((await runOnce(job, attempt)) !== 'failed') return;
    }
  };

  const schedule = (job: PeriodicJob, delay: number) => {
    if (controller.signal.aborted) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      const run = turn(job).finally(() => {
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
