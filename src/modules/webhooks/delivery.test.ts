import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import {
  expectError,
  forEachEngine,
  openTestAppOn,
  type ReceivedRequest,
  type Receiver,
  type ReceiverAnswer,
  startReceiver,
  startWebhookWorker,
  type TestApp,
  waitFor,
} from '../../../test/harness.ts';
import type { Farm, List, NewWebhook, Webhook, WebhookDelivery } from '../../../test/replies.ts';
import { deliverDueNow } from '../../../test/webhook-delivery.ts';
import { hmacMatches, verifyLikeAReceiver } from '../../../test/webhook-receiver.ts';
import { loadConfig } from '../../config.ts';
import { openDatabase } from '../../db/database.ts';
import { WEBHOOK_EVENTS, type WebhookEventName } from '../../domain/webhook-events.ts';
import { OUTBOUND_USER_AGENT } from '../../lib/outbound.ts';
import { startWorkers } from '../../workers/runner.ts';
import { webhookDeliveryJob } from '../../workers/webhook-delivery.ts';
import { emitEvent } from './emit.ts';

/** The verifier printed in docs/webhooks.md, loaded from the docs, so the docs stay right. */
async function docsVerifier(): Promise<(secret: string, header: string, body: string) => boolean> {
  const docs = readFileSync(path.resolve(import.meta.dirname, '../../../docs/webhooks.md'), 'utf8');
  const block = /```js\n(\/\/ verify-signature\.mjs\n[\s\S]*?)```/.exec(docs)?.[1];
  assert.ok(block, 'docs/webhooks.md has the verify-signature.mjs block');
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'farmstead-docs-')), 'verify-signature.mjs');
  writeFileSync(file, block);
  const mod = (await import(pathToFileURL(file).href)) as {
    verifyWebhook: (secret: string, header: string, body: string) => boolean;
  };
  return mod.verifyWebhook;
}

const SHORT_RETRIES = { webhookRetryScheduleMs: [150, 150, 150] };
const MAIN = path.resolve(import.meta.dirname, '../../main.ts');

forEachEngine(
  'webhook delivery',
  (t) => {
    const receivers: Receiver[] = [];
    after(() => Promise.all(receivers.map((r) => r.close())));
    async function receiver(answer?: (r: ReceivedRequest, n: number) => ReceiverAnswer): Promise<Receiver> {
      const r = await startReceiver(answer);
      receivers.push(r);
      return r;
    }
    // A farm of its own on the one shared account: a fresh account per test would seed a sample farm each time.
    async function farmWithHook(
      rcv: Receiver,
      events: string[] = ['*'],
    ): Promise<{ key: string; farmId: string; hookId: string; secret: string }> {
      const acct = await t().sharedAccount();
      const farm = await t().request<Farm>('POST', '/v1/farms', {
        key: acct.live_key,
        body: { name: 'Delivery farm' },
      });
      const hook = await t().request<NewWebhook>('POST', `/v1/farms/${farm.body.id}/webhooks`, {
        key: acct.live_key,
        body: { url: rcv.url, events },
      });
      assert.equal(hook.status, 201, JSON.stringify(hook.body));
      return { key: acct.live_key, farmId: farm.body.id, hookId: hook.body.id, secret: hook.body.secret };
    }
    async function deliveries(
      app: TestApp,
      key: string,
      hookId: string,
      query = '',
    ): Promise<WebhookDelivery[]> {
      const res = await app.request<List<WebhookDelivery>>(
        'GET',
        `/v1/webhooks/${hookId}/deliveries${query}`,
        { key },
      );
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.data;
    }
    const emit = (farmId: string, type: WebhookEventName, data: Record<string, unknown>, now?: number) =>
      emitEvent(t().database.db, farmId, type, data, now);

    test('an event is delivered once, signed, with the documented payload and headers', async () => {
      const rcv = await receiver();
      const { key, farmId, hookId, secret } = await farmWithHook(rcv);
      const event = await emit(farmId, 'animal.created', { id: 'ani_1', name: 'Bessie', tags: ['a', 'b'] });
      const worker = startWebhookWorker(t());
      try {
        await waitFor(
          'the delivery',
          async () => (await deliveries(t(), key, hookId))[0]?.status === 'succeeded',
        );
      } finally {
        await worker.stop();
      }
      assert.equal(rcv.requests.length, 1);
      const [req] = rcv.requests;
      assert.ok(req);
      assert.equal(req.method, 'POST');
      assert.equal(req.url, '/hooks');
      assert.equal(req.headers['content-type'], 'application/json');
      assert.equal(req.headers['user-agent'], OUTBOUND_USER_AGENT);
      assert.equal(req.headers['service-event-id'], event.id);
      assert.equal(req.headers['service-event-type'], 'animal.created');
      const signature = String(req.headers['service-signature']);
      assert.match(signature, /^t=\d+,v1=[0-9a-f]{64}$/);
      assert.ok(hmacMatches(secret, signature, req.body), 'HMAC recomputed in the test matches');
      assert.ok(await verifyLikeAReceiver(secret, signature, req.body), 'an independent verifier accepts it');
      assert.equal(
        await verifyLikeAReceiver(secret, signature, `${req.body} `),
        false,
        'a changed body fails',
      );
      assert.equal(
        await verifyLikeAReceiver(`${secret}x`, signature, req.body),
        false,
        'another secret fails',
      );
      const docs = await docsVerifier();
      assert.equal(docs(secret, signature, req.body), true, 'the verifier in docs/webhooks.md accepts it');
      assert.equal(docs(secret, signature, req.body.replace('Bessie', 'Bossie')), false);
      assert.deepEqual(JSON.parse(req.body), {
        id: event.id,
        type: 'animal.created',
        farm_id: farmId,
        created_at: new Date(event.created_at).toISOString(),
        data: { id: 'ani_1', name: 'Bessie', tags: ['a', 'b'] },
      });

      const [delivery] = await deliveries(t(), key, hookId);
      assert.equal(delivery!.event_id, event.id);
      assert.equal(delivery!.event_type, 'animal.created');
      assert.equal(delivery!.attempt_count, 1);
      assert.equal(delivery!.next_attempt_at, null);
      assert.equal(delivery!.last_status_code, 200);
      assert.ok(delivery!.completed_at);
      assert.equal(delivery!.attempts.length, 1);
      assert.equal(delivery!.attempts[0]!.status_code, 200);
      assert.equal(delivery!.attempts[0]!.succeeded, true);
      assert.equal(delivery!.attempts[0]!.trigger, 'scheduled');
      assert.equal(delivery!.attempts[0]!.error, null);
      assert.ok(
        Number.isInteger(delivery!.attempts[0]!.duration_ms) && delivery!.attempts[0]!.duration_ms >= 0,
      );
      const one = await t().request('GET', `/v1/webhooks/${hookId}/deliveries/${delivery!.id}`, { key });
      assert.deepEqual(one.body, delivery);

      assert.equal(await deliverDueNow(t().database, t().config), 0, 'nothing is left to send');
      assert.equal(rcv.requests.length, 1, 'delivered exactly once');
    });

    test('"*" receives every event type, a single-type subscription only its type, and other farms are separate', async () => {
      const all = await receiver();
      const alertsOnly = await receiver();
      const otherFarm = await receiver();
      const { key, farmId } = await farmWithHook(all, ['*']);
      await t().request('POST', `/v1/farms/${farmId}/webhooks`, {
        key,
        body: { url: alertsOnly.url, events: ['alert.created'] },
      });
      const other = await farmWithHook(otherFarm, ['*']);
      for (const type of WEBHOOK_EVENTS) await emit(farmId, type, { id: `x_${type}` });
      await emit(other.farmId, 'device.created', { id: 'dev_other' });
      await deliverDueNow(t().database, t().config);
      assert.deepEqual(all.requests.map((r) => JSON.parse(r.body).type).sort(), [...WEBHOOK_EVENTS].sort());
      assert.deepEqual(
        alertsOnly.requests.map((r) => JSON.parse(r.body).type),
        ['alert.created'],
      );
      assert.deepEqual(
        otherFarm.requests.map((r) => JSON.parse(r.body).data.id),
        ['dev_other'],
      );
    });

    test('a webhook receives only the events that happen after it was created', async () => {
      const rcv = await receiver();
      const acct = await t().sharedAccount();
      const farm = await t().request<Farm>('POST', '/v1/farms', {
        key: acct.live_key,
        body: { name: 'Later' },
      });
      // One millisecond back: on a fast machine the event and the webhook could otherwise share a
      // millisecond, and an event at the webhook's own created_at is delivered ("no later than").
      await emit(farm.body.id, 'animal.created', { id: 'before' }, Date.now() - 1);
      await t().request('POST', `/v1/farms/${farm.body.id}/webhooks`, {
        key: acct.live_key,
        body: { url: rcv.url },
      });
      await emit(farm.body.id, 'animal.created', { id: 'after' });
      await deliverDueNow(t().database, t().config);
      assert.deepEqual(
        rcv.requests.map((r) => JSON.parse(r.body).data.id),
        ['after'],
      );
    });

    test('a receiver that fails and then recovers gets the event on a retry, per the configured schedule', async () => {
      const rcv = await receiver((_r, n) => (n === 1 ? 500 : n === 2 ? 503 : 200));
      const { key, farmId, hookId, secret } = await farmWithHook(rcv);
      const event = await emit(farmId, 'alert.created', { id: 'alt_1', severity: 'urgent' });
      const worker = startWebhookWorker(t(), SHORT_RETRIES);
      try {
        await waitFor(
          'the retry',
          async () => (await deliveries(t(), key, hookId))[0]?.status === 'succeeded',
        );
      } finally {
        await worker.stop();
      }
      const [delivery] = await deliveries(t(), key, hookId);
      assert.deepEqual(
        delivery!.attempts.map((a) => [a.number, a.status_code, a.succeeded]),
        [
          [1, 500, false],
          [2, 503, false],
          [3, 200, true],
        ],
      );
      assert.match(delivery!.attempts[0]!.error!, /500/);
      for (let i = 1; i < 3; i++) {
        const gap = Date.parse(delivery!.attempts[i]!.at) - Date.parse(delivery!.attempts[i - 1]!.at);
        assert.ok(gap >= 150, `retry ${i} waited for the schedule (${gap} ms)`);
      }
      assert.equal(rcv.requests.length, 3);
      const ids = new Set(rcv.requests.map((r) => r.headers['service-event-id']));
      assert.deepEqual([...ids], [event.id], 'the event id is stable across retries');
      assert.equal(new Set(rcv.requests.map((r) => r.body)).size, 1, 'the same body every time');
      for (const r of rcv.requests)
        assert.ok(hmacMatches(secret, String(r.headers['service-signature']), r.body));
    });

    test('after the last retry the delivery is failed; a manual retry sends it again', async () => {
      let answer = 500;
      const rcv = await receiver(() => answer);
      const { key, farmId, hookId } = await farmWithHook(rcv);
      await emit(farmId, 'command.failed', { id: 'cmd_1' });
      const worker = startWebhookWorker(t(), { webhookRetryScheduleMs: [20, 20] });
      try {
        await waitFor(
          'the failure',
          async () => (await deliveries(t(), key, hookId))[0]?.status === 'failed',
        );
      } finally {
        await worker.stop();
      }
      let [delivery] = await deliveries(t(), key, hookId);
      assert.equal(delivery!.attempt_count, 3, 'the first attempt and two retries');
      assert.equal(delivery!.next_attempt_at, null);
      assert.ok(delivery!.completed_at);
      assert.equal(delivery!.last_status_code, 500);
      assert.equal((await deliveries(t(), key, hookId, '?status=failed')).length, 1);
      assert.equal((await deliveries(t(), key, hookId, '?status=succeeded')).length, 0);

      const failedAgain = await t().request<WebhookDelivery>(
        'POST',
        `/v1/webhooks/${hookId}/deliveries/${delivery!.id}/retry`,
        { key },
      );
      assert.equal(failedAgain.status, 200);
      assert.equal(failedAgain.body.status, 'failed', 'a failing manual attempt leaves it failed');
      assert.equal(failedAgain.body.attempts.length, 4);
      assert.equal(failedAgain.body.attempts[3]!.trigger, 'manual');
      answer = 200;
      const retried = await t().request<WebhookDelivery>(
        'POST',
        `/v1/webhooks/${hookId}/deliveries/${delivery!.id}/retry`,
        {
          key,
        },
      );
      assert.equal(retried.body.status, 'succeeded');
      assert.deepEqual(
        retried.body.attempts.map((a) => [a.trigger, a.status_code]),
        [
          ['scheduled', 500],
          ['scheduled', 500],
          ['scheduled', 500],
          ['manual', 500],
          ['manual', 200],
        ],
      );
      [delivery] = await deliveries(t(), key, hookId);
      assert.equal(delivery!.status, 'succeeded');
      assert.equal(rcv.requests.length, 5);
      expectError(
        await t().request('POST', `/v1/webhooks/${hookId}/deliveries/dlv_missing/retry`, { key }),
        404,
        'not_found',
      );
    });

    test('410 Gone disables the webhook: no more deliveries until it is enabled again', async () => {
      let answer = 410;
      const rcv = await receiver(() => answer);
      const { key, farmId, hookId } = await farmWithHook(rcv);
      await emit(farmId, 'device.created', { id: 'dev_1' });
      await deliverDueNow(t().database, { ...t().config, ...SHORT_RETRIES });
      const hook = await t().request<Webhook>('GET', `/v1/webhooks/${hookId}`, { key });
      assert.equal(hook.body.status, 'disabled');
      assert.match(hook.body.disabled_reason!, /410/);
      const [gone] = await deliveries(t(), key, hookId);
      assert.equal(gone!.status, 'failed', 'no retry after 410');
      assert.equal(gone!.attempt_count, 1);

      await emit(farmId, 'device.created', { id: 'dev_2' });
      await deliverDueNow(t().database, t().config);
      assert.equal(rcv.requests.length, 1, 'nothing is sent to a disabled webhook');
      assert.equal((await deliveries(t(), key, hookId)).length, 1);
      const refused = expectError(
        await t().request('POST', `/v1/webhooks/${hookId}/deliveries/${gone!.id}/retry`, { key }),
        409,
        'conflict',
      );
      assert.match(refused.message, /enable/);

      answer = 200;
      await t().request('PATCH', `/v1/webhooks/${hookId}`, { key, body: { status: 'enabled' } });
      await emit(farmId, 'device.created', { id: 'dev_3' });
      await deliverDueNow(t().database, t().config);
      assert.deepEqual(
        rcv.requests.map((r) => JSON.parse(r.body).data.id),
        ['dev_1', 'dev_3'],
      );
    });

    test('disabling a webhook fails its pending retries', async () => {
      const rcv = await receiver(() => 500);
      const { key, farmId, hookId } = await farmWithHook(rcv);
      await emit(farmId, 'event.created', { id: 'evt_1' });
      await deliverDueNow(t().database, { ...t().config, webhookRetryScheduleMs: [3_600_000] });
      assert.equal((await deliveries(t(), key, hookId))[0]!.status, 'pending');
      await t().request('PATCH', `/v1/webhooks/${hookId}`, { key, body: { status: 'disabled' } });
      const [delivery] = await deliveries(t(), key, hookId);
      assert.equal(delivery!.status, 'failed');
      assert.equal(delivery!.next_attempt_at, null);
      assert.match(delivery!.last_error!, /disabled/);
    });

    test('a slow receiver (past the deadline) counts as failed, and does not delay deliveries to others', async () => {
      // The spec's deadline is 5 s; this worker's is 300 ms, so the test does not wait 5 s to see it.
      const DEADLINE_MS = 300;
      const slow = await receiver(() => ({ status: 200, delayMs: 2_000 }));
      const fast = await receiver();
      const { key, farmId, hookId } = await farmWithHook(slow);
      const fastHook = await t().request<NewWebhook>('POST', `/v1/farms/${farmId}/webhooks`, {
        key,
        body: { url: fast.url },
      });
      assert.equal(t().config.webhookTimeoutMs, 5_000, 'the spec’s 5 second deadline');
      await emit(farmId, 'alert.created', { id: 'alt_slow' });
      const worker = startWebhookWorker(t(), {
        webhookRetryScheduleMs: [3_600_000],
        webhookTimeoutMs: DEADLINE_MS,
      });
      try {
        await waitFor('the fast receiver', async () => {
          const [d] = await deliveries(t(), key, fastHook.body.id);
          return d?.status === 'succeeded';
        });
        assert.equal(slow.requests.length, 1, 'the slow receiver got its request at the same time');
        const [pendingSlow] = await deliveries(t(), key, hookId);
        assert.equal(
          pendingSlow!.attempts.length,
          0,
          'the fast delivery finished while the slow one was still waiting',
        );
        assert.equal(pendingSlow!.attempt_count, 1, 'the attempt in flight is counted from its claim');
        await waitFor(
          'the slow attempt',
          async () => (await deliveries(t(), key, hookId))[0]?.attempts.length === 1,
        );
      } finally {
        await worker.stop();
      }
      const [delivery] = await deliveries(t(), key, hookId);
      assert.equal(delivery!.status, 'pending', 'a retry is scheduled');
      assert.ok(delivery!.next_attempt_at);
      const [attempt] = delivery!.attempts;
      assert.equal(attempt!.succeeded, false);
      assert.equal(attempt!.status_code, null);
      assert.match(attempt!.error!, /timed out/);
      assert.match(attempt!.error!, new RegExp(`within ${DEADLINE_MS} ms`));
      assert.ok(
        attempt!.duration_ms >= DEADLINE_MS && attempt!.duration_ms < 2_000,
        `gave up at the deadline, not when the receiver answered (${attempt!.duration_ms} ms)`,
      );
    });

    test('a server restart between a failure and its retry still delivers the event', async () => {
      let answer = 500;
      const rcv = await receiver(() => answer);
      const { farmId, hookId } = await farmWithHook(rcv);
      const event = await emit(farmId, 'animal.created', { id: 'ani_r' });
      // Each "process" is a worker on its own connections to the database (no HTTP app needed), and reads
      // the delivery through them, so no two connections of this test process write at once.
      const workerProcess = async () => {
        const database = await openDatabase(t().config, { onPoolError: () => {} });
        const config = { ...t().config, webhookPollMs: 20, webhookWorkerInProcess: true, ...schedule };
        const workers = startWorkers([webhookDeliveryJob], { database, config, log: t().app.log });
        const delivery = () =>
          database.db
            .selectFrom('webhook_deliveries')
            .select(['status', 'attempt_count'])
            .where('webhook_id', '=', hookId)
            .executeTakeFirst();
        const stop = async () => {
          await workers.stop();
          await database.close();
        };
        return { database, delivery, stop };
      };
      // The retry is an hour away; after the restart the test moves it to now instead of waiting.
      const schedule = { webhookRetryScheduleMs: [3_600_000] };
      const first = await workerProcess();
      try {
        await waitFor('the failed first attempt', async () => (await first.delivery())?.attempt_count === 1);
      } finally {
        await first.stop();
      }
      assert.equal(rcv.requests.length, 1, 'the first process stopped before the retry was due');

      answer = 200;
      const second = await workerProcess();
      try {
        await second.database.db
          .updateTable('webhook_deliveries')
          .set({ next_attempt_at: Date.now() })
          .where('webhook_id', '=', hookId)
          .execute();
        await waitFor(
          'the retry after the restart',
          async () => (await second.delivery())?.status === 'succeeded',
        );
      } finally {
        await second.stop();
      }
      assert.equal(rcv.requests.length, 2);
      assert.deepEqual(
        rcv.requests.map((r) => r.headers['service-event-id']),
        [event.id, event.id],
      );
    });

    test('a delivery whose address is private at send time is a failed attempt that says why', async () => {
      const rcv = await receiver();
      const { key, farmId, hookId } = await farmWithHook(rcv);
      await emit(farmId, 'animal.created', { id: 'ani_private' });
      // The webhook was accepted (private addresses allowed); this worker runs without the override.
      await deliverDueNow(t().database, {
        ...t().config,
        webhookAllowPrivate: false,
        webhookRetryScheduleMs: [],
      });
      assert.equal(rcv.requests.length, 0, 'nothing was sent');
      const [delivery] = await deliveries(t(), key, hookId);
      assert.equal(delivery!.status, 'failed');
      assert.equal(delivery!.attempts[0]!.status_code, null);
      assert.match(delivery!.attempts[0]!.error!, /refused: 127\.0\.0\.1 is a loopback address/);
      assert.match(delivery!.attempts[0]!.error!, /FARMSTEAD_WEBHOOK_ALLOW_PRIVATE=1/);
      const retried = await t().request<WebhookDelivery>(
        'POST',
        `/v1/webhooks/${hookId}/deliveries/${delivery!.id}/retry`,
        {
          key,
        },
      );
      assert.equal(retried.body.status, 'succeeded', 'with the override (this app) it is sent');
      assert.equal(rcv.requests.length, 1);
    });

    test('deliveries list newest first, page with limit and before, and filter by status', async () => {
      const rcv = await receiver((r) => (JSON.parse(r.body).data.fail ? 500 : 200));
      const { key, farmId, hookId } = await farmWithHook(rcv);
      for (let i = 0; i < 5; i++) await emit(farmId, 'event.created', { id: `evt_${i}`, fail: i % 2 === 0 });
      await deliverDueNow(t().database, { ...t().config, webhookRetryScheduleMs: [] });
      const all = await deliveries(t(), key, hookId);
      assert.equal(all.length, 5);
      const seen: string[] = [];
      let query = '?limit=2';
      for (;;) {
        const page = await t().request<List<WebhookDelivery>>(
          'GET',
          `/v1/webhooks/${hookId}/deliveries${query}`,
          { key },
        );
        seen.push(...page.body.data.map((d) => d.id));
        if (!page.body.has_more) break;
        query = `?limit=2&before=${encodeURIComponent(page.body.next_before!)}`;
      }
      assert.deepEqual(
        seen,
        all.map((d) => d.id),
      );
      assert.deepEqual(seen, [...seen].sort().reverse(), 'newest first');
      assert.equal((await deliveries(t(), key, hookId, '?status=failed')).length, 3);
      assert.equal((await deliveries(t(), key, hookId, '?status=succeeded')).length, 2);
      const bad = expectError(
        await t().request('GET', `/v1/webhooks/${hookId}/deliveries?status=late`, { key }),
        400,
        'invalid_request',
      );
      assert.equal(bad.param, 'status');
    });

    test('stopping the worker lets a send in flight finish and records it', async () => {
      const rcv = await receiver(() => ({ status: 204, delayMs: 400 }));
      const { key, farmId, hookId } = await farmWithHook(rcv);
      await emit(farmId, 'animal.created', { id: 'ani_stop' });
      const worker = startWebhookWorker(t());
      await waitFor('the request', () => rcv.requests.length === 1);
      await worker.stop();
      const [delivery] = await deliveries(t(), key, hookId);
      assert.equal(delivery!.status, 'succeeded');
      assert.equal(delivery!.last_status_code, 204);
    });

    test('FARMSTEAD_WEBHOOK_WORKER=0 keeps delivery out of the server process', () => {
      assert.equal(webhookDeliveryJob.enabled?.(loadConfig({ FARMSTEAD_WEBHOOK_WORKER: '0' })), false);
      assert.equal(webhookDeliveryJob.enabled?.(loadConfig({})), true);
    });

    test('`cli worker` delivers webhooks with no HTTP listener and exits 0 on SIGTERM', async () => {
      const rcv = await receiver();
      const { key, farmId, hookId } = await farmWithHook(rcv);
      const config = t().config;
      const env = {
        PATH: process.env.PATH ?? '',
        ...(config.databaseUrl ? { DATABASE_URL: config.databaseUrl } : { FARMSTEAD_DATA: config.dataDir }),
        FARMSTEAD_WEBHOOK_ALLOW_PRIVATE: '1',
        FARMSTEAD_WEBHOOK_WORKER: '0',
        FARMSTEAD_WEBHOOK_POLL_MS: '20',
        LOG_LEVEL: 'info',
      };
      const child = spawn(process.execPath, [MAIN, 'worker'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (c: Buffer) => {
        output += c.toString();
      });
      child.stderr.on('data', (c: Buffer) => {
        output += c.toString();
      });
      try {
        await emit(farmId, 'device.created', { id: 'dev_cli' });
        await waitFor(
          'the worker process to deliver',
          async () => (await deliveries(t(), key, hookId))[0]?.status === 'succeeded',
        );
      } finally {
        child.kill('SIGTERM');
      }
      const [code] = await once(child, 'exit');
      assert.equal(code, 0, output);
      assert.match(output, /worker started/);
      assert.doesNotMatch(output, /Server listening/);
      assert.equal(rcv.requests.length, 1);
    });

    test('two workers on PostgreSQL deliver each event exactly once', async (ctx) => {
      if (t().engine !== 'postgres') return ctx.skip('several workers share deliveries on PostgreSQL only');
      const receiversOf = [await receiver(), await receiver(), await receiver()];
      const [firstReceiver, ...others] = receiversOf;
      assert.ok(firstReceiver);
      const { key, farmId, hookId } = await farmWithHook(firstReceiver);
      const hookIds = [hookId];
      for (const r of others) {
        const res = await t().request<NewWebhook>('POST', `/v1/farms/${farmId}/webhooks`, {
          key,
          body: { url: r.url },
        });
        hookIds.push(res.body.id);
      }
      const second = await openTestAppOn(t());
      const tuning = { webhookPollMs: 5, webhookConcurrency: 6 };
      const workers = [startWebhookWorker(t(), tuning), startWebhookWorker(second, tuning)];
      const EVENTS = 60;
      try {
        for (let i = 0; i < EVENTS; i++) {
          await emit(farmId, 'event.created', { id: `evt_${i}` });
          if (i % 10 === 9) await new Promise((resolve) => setTimeout(resolve, 10));
        }
        await waitFor('every delivery', () => receiversOf.every((r) => r.requests.length >= EVENTS));
      } finally {
        await Promise.all(workers.map((w) => w.stop()));
        await second.close();
      }
      for (const r of receiversOf) {
        const ids = r.requests.map((req) => req.headers['service-event-id']);
        assert.equal(ids.length, EVENTS, 'no event delivered twice');
        assert.equal(new Set(ids).size, EVENTS, 'every event delivered');
      }
      for (const id of hookIds) {
        const rows = await t()
          .database.db.selectFrom('webhook_deliveries')
          .select(['status', 'attempt_count'])
          .where('webhook_id', '=', id)
          .execute();
        assert.equal(rows.length, EVENTS);
        assert.ok(rows.every((row) => row.status === 'succeeded' && row.attempt_count === 1));
      }
    });
  },
  { webhookAllowPrivate: true },
);
