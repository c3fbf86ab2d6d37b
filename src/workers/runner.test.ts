/**
 * The runner honours each job's timeout and attempts. Jobs here are the test's own; the runner, its
 * logger (Fastify's) and the database handed to jobs are the real ones, and the clock is node:test's
 * mock of setTimeout, so nothing waits.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, mock, test } from 'node:test';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { testConfig } from '../../test/engines.ts';
import type { Config } from '../config.ts';
import { type Database, openDatabase } from '../db/database.ts';
import { JOBS } from './jobs.ts';
import { type JobContext, type PeriodicJob, RETRY_PAUSE_MS, startWorkers } from './runner.ts';

let config: Readonly<Config>;
let database: Database;
let cleanup: () => Promise<void>;
let log: FastifyBaseLogger;
const logged: Array<{ level: number; msg: string; job?: string; attempt?: number; timeoutMs?: number }> = [];

before(async () => {
  ({ config, cleanup } = await testConfig('sqlite'));
  database = await openDatabase(config);
  const app = Fastify({
    logger: { level: 'debug', stream: { write: (line: string) => void logged.push(JSON.parse(line)) } },
  });
  log = app.log;
});

after(async () => {
  await database.close();
  await cleanup();
});

beforeEach(() => {
  logged.length = 0;
});

/** Lets the promise callbacks of the runs that the last tick started settle. */
async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

function job(overrides: Partial<PeriodicJob> & Pick<PeriodicJob, 'run'>): PeriodicJob {
  return { name: 'test.job', everyMs: () => 60_000, timeoutMs: 10_000, attempts: 1, ...overrides };
}

test("every job in the catalog states its timeout (none only for the delivery queue's loops) and its attempts", () => {
  for (const j of JOBS) {
    assert.ok(j.attempts >= 1 && Number.isInteger(j.attempts), j.name);
    assert.ok(j.timeoutMs === null || (Number.isInteger(j.timeoutMs) && j.timeoutMs > 0), j.name);
  }
  assert.deepEqual(
    JOBS.filter((j) => j.timeoutMs === null).map((j) => j.name),
    ['webhooks.deliver', 'notifications.deliver', 'integrations.downlinks'],
  );
});

test('a failing run is retried after a pause, up to its attempts; then the job waits its interval', async (t) => {
  mock.timers.enable({ apis: ['setTimeout'] });
  t.after(() => mock.timers.reset());
  const runs: number[] = [];
  const workers = startWorkers(
    [
      job({
        attempts: 3,
        run: async () => {
          runs.push(runs.length + 1);
          if (runs.length !== 3 && runs.length !== 5) throw new Error(`run ${runs.length} failed`);
        },
      }),
    ],
    { database, config, log },
  );
  mock.timers.tick(0);
  await settle();
  assert.deepEqual(runs, [1], 'the first turn starts at once');
  mock.timers.tick(RETRY_PAUSE_MS - 1);
  await settle();
  assert.deepEqual(runs, [1], 'the retry waits its pause');
  mock.timers.tick(1);
  await settle();
  mock.timers.tick(RETRY_PAUSE_MS);
  await settle();
  assert.deepEqual(runs, [1, 2, 3], 'the third attempt succeeds');
  mock.timers.tick(RETRY_PAUSE_MS);
  await settle();
  assert.deepEqual(runs, [1, 2, 3], 'after a success, no more runs this turn');
  mock.timers.tick(60_000 - RETRY_PAUSE_MS);
  await settle();
  assert.deepEqual(runs, [1, 2, 3, 4], 'the next turn comes after the interval');
  mock.timers.tick(RETRY_PAUSE_MS);
  await settle();
  assert.deepEqual(runs, [1, 2, 3, 4, 5]);
  const failures = logged.filter((l) => l.msg === 'background job failed');
  assert.deepEqual(
    failures.map((l) => l.attempt),
    [1, 2, 1],
    'each failure is logged with its attempt',
  );
  await workers.stop();
});

test('a job that keeps failing runs its attempts and no more in a turn', async (t) => {
  mock.timers.enable({ apis: ['setTimeout'] });
  t.after(() => mock.timers.reset());
  let runs = 0;
  const workers = startWorkers(
    [
      job({
        attempts: 2,
        run: async () => {
          runs++;
          throw new Error('always');
        },
      }),
    ],
    { database, config, log },
  );
  mock.timers.tick(0);
  await settle();
  for (let i = 0; i < 5; i++) {
    mock.timers.tick(RETRY_PAUSE_MS);
    await settle();
  }
  assert.equal(runs, 2);
  mock.timers.tick(60_000);
  await settle();
  assert.equal(runs, 3, 'the next turn starts again from its first attempt');
  await workers.stop();
});

test('a run past its timeout is abandoned: its signal aborts, it is logged, not retried, and the job goes on', async (t) => {
  mock.timers.enable({ apis: ['setTimeout'] });
  t.after(() => mock.timers.reset());
  const signals: AbortSignal[] = [];
  const workers = startWorkers(
    [
      job({
        attempts: 3,
        timeoutMs: 10_000,
        // Never settles by itself: only its signal tells it to stop, and it does not listen.
        run: (ctx: JobContext) => {
          signals.push(ctx.signal);
          return new Promise<void>(() => {});
        },
      }),
    ],
    { database, config, log },
  );
  mock.timers.tick(0);
  await settle();
  assert.equal(signals.length, 1);
  mock.timers.tick(9_999);
  await settle();
  assert.equal(signals[0]?.aborted, false, 'within its timeout the run goes on');
  mock.timers.tick(1);
  await settle();
  assert.equal(signals[0]?.aborted, true, 'past it, its signal is aborted');
  assert.match(String(signals[0]?.reason), /test\.job ran past its timeout of 10000 ms/);
  assert.deepEqual(
    logged.filter((l) => l.msg === 'background job timed out; abandoned').map((l) => [l.job, l.timeoutMs]),
    [['test.job', 10_000]],
  );
  mock.timers.tick(RETRY_PAUSE_MS);
  await settle();
  assert.equal(signals.length, 1, 'a timed-out run is not retried');
  mock.timers.tick(60_000);
  await settle();
  assert.equal(signals.length, 2, 'the next turn starts after the interval, the abandoned run still pending');
  // stop() aborts the run in flight and waits for it, at most to its timeout; never for the abandoned one.
  const stopping = workers.stop();
  assert.equal(signals[1]?.aborted, true);
  mock.timers.tick(10_000);
  await stopping;
});

test('a loop (no timeout) runs until the runner stops, which aborts its signal', async (t) => {
  mock.timers.enable({ apis: ['setTimeout'] });
  t.after(() => mock.timers.reset());
  let signal: AbortSignal | undefined;
  let ended = false;
  const workers = startWorkers(
    [
      job({
        timeoutMs: null,
        run: (ctx) =>
          new Promise<void>((resolve) => {
            signal = ctx.signal;
            ctx.signal.addEventListener('abort', () => {
              ended = true;
              resolve();
            });
          }),
      }),
    ],
    { database, config, log },
  );
  mock.timers.tick(0);
  await settle();
  mock.timers.tick(24 * 3_600_000);
  await settle();
  assert.equal(signal?.aborted, false, 'no timeout abandons it');
  await workers.stop();
  assert.equal(ended, true, 'stop waited for it to end');
  assert.equal(logged.filter((l) => l.level >= 40).length, 0, 'nothing was logged as a failure');
});
