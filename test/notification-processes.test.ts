/**
 * Exactly one notification per person, alert, channel and step, sent by real `worker` processes
 * (src/main.ts worker) to a local https push service (test/push-service.ts; the children trust its
 * certificate through NODE_EXTRA_CA_CERTS):
 *  - three workers at once on one PostgreSQL database: every notification received once, none twice;
 *  - a worker killed with `kill -9` mid-way, then another started: every notification is received, and none
 *    that was recorded as sent before the kill is sent again (only those in flight at the kill may be);
 *  - a send in flight when the worker dies is sent again once its lease runs out, and the delivery log counts
 *    that as its second attempt.
 * After a kill the test ends the dead worker's leases itself (`leasesRunOut`) instead of waiting them out.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import * as make from './factories.ts';
import { ENGINES, startTestApp, type TestApp, waitFor } from './harness.ts';
import { signedInPerson } from './people.ts';
import { baseEnv, MAIN } from './processes.ts';
import { type PushService, startPushService } from './push-service.ts';

const HOUSES = 12;

let push: PushService;
before(async () => {
  push = await startPushService();
});
after(() => push.close());

/**
 * A worker process on the test app's database. It keeps the default 5 s deadline for a push: a push the
 * service received but answered late on a busy machine would time out and rightly be sent again (at least
 * once), which is not what these tests are about; after a kill the test ends the leases itself.
 */
function startWorker(t: TestApp): ChildProcess {
  const child = spawn(process.execPath, [MAIN, 'worker'], {
    env: {
      ...baseEnv(),
      ...(t.config.databaseUrl
        ? { DATABASE_URL: t.config.databaseUrl }
        : { FARMSTEAD_DATA: t.config.dataDir }),
      LOG_LEVEL: 'warn',
      // As the servers beside it are told (one environment file): the worker sends notifications anyway.
      FARMSTEAD_NOTIFICATION_WORKER: '0',
      NODE_EXTRA_CA_CERTS: push.caFile,
      FARMSTEAD_WEBHOOK_ALLOW_PRIVATE: '1',
      FARMSTEAD_WEBHOOK_POLL_MS: '20',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return child;
}

async function stop(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  await once(child, 'exit');
}

/** A farm with HOUSES urgent alerts and three people with a browser each: HOUSES × 3 notifications. */
async function alertsForThree(t: TestApp) {
  const account = await t.account();
  const farm = await make.farm(t, account.live_key, { name: 'Busy farm', timezone: 'UTC' });
  const browsers: string[] = [];
  for (const role of ['owner', 'crew', 'crew'] as const) {
    const person = await signedInPerson(t, account, role);
    const browser = push.subscription();
    const res = await person.request('POST', '/v1/me/push-subscriptions', { body: browser.json });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    browsers.push(browser.id);
  }
  for (let i = 0; i < HOUSES; i++) {
    const house = await make.device(t, account.live_key, farm.id, { type: 'house', name: `House ${i + 1}` });
    const res = await make.report(t, house.device_key, {
      readings: [{ metric: 'climate.nh3_ppm', value: 30 }],
    });
    assert.equal(res.status, 200);
  }
  return { browsers, farmId: farm.id, expected: HOUSES * 3 };
}

function receivedBy(browsers: readonly string[]) {
  return push.received.filter((r) => browsers.includes(r.subscription)).map((r) => String(r.payload.id));
}

async function notificationRows(t: TestApp, farmId: string) {
  return t.database.db
    .selectFrom('notifications')
    .select(['id', 'status', 'locked_until'])
    .where('kind', '=', 'alert')
    .where('farm_id', '=', farmId)
    .execute();
}

/**
 * The leases a killed worker held run out now rather than after `notificationLeaseMs` (20 s with these
 * workers' timeout): its rows become what they would be then, without the test waiting for it. Returns how
 * many leases were still held.
 */
async function leasesRunOut(t: TestApp, farmId: string): Promise<number> {
  const now = Date.now();
  const ended = await t.database.db
    .updateTable('notifications')
    .set({ locked_until: now })
    .where('farm_id', '=', farmId)
    .where('status', '=', 'pending')
    .where('locked_until', '>', now)
    .executeTakeFirst();
  return Number(ended.numUpdatedRows);
}

for (const engine of ENGINES) {
  describe(`notification workers [${engine}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(engine, { webhookAllowPrivate: true });
    });
    after(() => t.close());

    if (engine === 'postgres') {
      test('three workers at once: every notification sent exactly once', async () => {
        const { browsers, farmId, expected } = await alertsForThree(t);
        const workers = [startWorker(t), startWorker(t), startWorker(t)];
        try {
          await waitFor(
            'every notification sent',
            async () => {
              const rows = await notificationRows(t, farmId);
              return rows.length === expected && rows.every((r) => r.status === 'sent');
            },
            120_000,
          );
        } finally {
          await Promise.all(workers.map(stop));
        }
        const ids = receivedBy(browsers);
        assert.equal(ids.length, expected, 'one push per notification');
        assert.equal(new Set(ids).size, expected, 'no notification twice');
      });
    }

    test('kill -9 of the worker: none lost, none recorded as sent sent again', async () => {
      const { browsers, farmId, expected } = await alertsForThree(t);
      push.delayMs = 40;
      let worker = startWorker(t);
      try {
        await waitFor('a third of the pushes', () => receivedBy(browsers).length >= expected / 3, 120_000);
        worker.kill('SIGKILL');
        await once(worker, 'exit');
        const sentBeforeKill = new Set(
          (await notificationRows(t, farmId)).filter((r) => r.status === 'sent').map((r) => r.id),
        );
        assert.ok(sentBeforeKill.size > 0 && sentBeforeKill.size < expected, `${sentBeforeKill.size} sent`);
        await leasesRunOut(t, farmId);
        worker = startWorker(t);
        await waitFor(
          'every notification sent after the restart',
          async () => {
            const rows = await notificationRows(t, farmId);
            return rows.length === expected && rows.every((r) => r.status === 'sent');
          },
          120_000,
        );
        const ids = receivedBy(browsers);
        const counts = new Map<string, number>();
        for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
        assert.equal(counts.size, expected, 'every notification reached its browser');
        for (const id of sentBeforeKill)
          assert.equal(counts.get(id), 1, `${id} was recorded as sent: once only`);
      } finally {
        push.delayMs = 0;
        await stop(worker);
      }
    });

    test('a send in flight when the worker is killed is sent again, as attempt 2', async () => {
      const account = await t.account();
      const farm = await make.farm(t, account.live_key, { name: 'One-alert farm', timezone: 'UTC' });
      const person = await signedInPerson(t, account, 'owner');
      const browser = push.subscription();
      assert.equal(
        (await person.request('POST', '/v1/me/push-subscriptions', { body: browser.json })).status,
        201,
      );
      const house = await make.device(t, account.live_key, farm.id, { type: 'house', name: 'House' });
      assert.equal(
        (await make.report(t, house.device_key, { readings: [{ metric: 'climate.nh3_ppm', value: 30 }] }))
          .status,
        200,
      );
      // The push service answers 300 ms after a push arrived: the worker is killed in between, after the
      // channel has the notice and before its answer is recorded.
      push.delayMs = 300;
      let worker = startWorker(t);
      try {
        const [id] = await waitFor('the push arriving', () => {
          const ids = receivedBy([browser.id]);
          return ids.length > 0 && ids;
        });
        worker.kill('SIGKILL');
        await once(worker, 'exit');
        push.delayMs = 0;
        const [row] = await notificationRows(t, farm.id);
        assert.equal(row?.status, 'pending', 'the answer was never recorded');
        assert.ok(Number(row?.locked_until) > Date.now(), 'the dead worker still holds its lease');
        assert.equal(await leasesRunOut(t, farm.id), 1);
        worker = startWorker(t);
        await waitFor(
          'the notice sent again once its lease ran out',
          async () => (await notificationRows(t, farm.id))[0]?.status === 'sent',
          30_000,
        );
        assert.deepEqual(receivedBy([browser.id]), [id, id], 'the notice in flight was sent twice');
        const log = await person.request<{ data: { id: string; status: string; attempts: number }[] }>(
          'GET',
          '/v1/me/notifications',
        );
        const entry = log.body.data.find((n) => n.id === id);
        assert.equal(entry?.status, 'sent');
        assert.equal(entry?.attempts, 2, 'the re-send is counted as the second attempt');
      } finally {
        push.delayMs = 0;
        await stop(worker);
      }
    });
  });
}
