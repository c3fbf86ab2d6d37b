import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { forEachEngine } from '../../../test/harness.ts';
import { loadConfig } from '../../config.ts';
import { DAY_MS } from '../../lib/time.ts';
import { JOBS } from '../../workers/jobs.ts';
import { recordAttempt } from './delivery.ts';
import { dispatchOutbox } from './dispatch.ts';
import { emitEvent } from './emit.ts';
import { claimDueDeliveries } from './queue-repository.ts';
import { pruneWebhookHistory } from './retention.ts';

test('FARMSTEAD_WEBHOOK_RETENTION_DAYS keeps 30 days by default and takes whole days from 1', () => {
  assert.equal(loadConfig({}).webhookRetentionDays, 30);
  assert.equal(loadConfig({ FARMSTEAD_WEBHOOK_RETENTION_DAYS: '7' }).webhookRetentionDays, 7);
  assert.throws(
    () => loadConfig({ FARMSTEAD_WEBHOOK_RETENTION_DAYS: '0' }),
    /FARMSTEAD_WEBHOOK_RETENTION_DAYS/,
  );
  assert.ok(JOBS.some((job) => job.name === 'webhooks.retention'));
});

forEachEngine(
  'webhook history pruning',
  (t) => {
    /** A farm with one webhook, and outbox events in every state, placed in time by an injected clock. */
    async function history(now: number) {
      const { db } = t().database;
      const acct = await t().account();
      const farmId = acct.sample_farm_id;
      const hook = await t().request('POST', `/v1/farms/${farmId}/webhooks`, {
        key: acct.test_key,
        body: { url: 'http://127.0.0.1:9/hooks' },
      });
      assert.equal(hook.status, 201, JSON.stringify(hook.body));
      const old = now - 40 * DAY_MS;
      const recent = now - 5 * DAY_MS;
      // The account's sample farm emitted nothing webhooks see yet; these are the events under test.
      await dispatchOutbox(db, { now: old - 1 });
      const done = await emitEvent(db, farmId, 'animal.created', { id: 'ani_done' }, old);
      const failed = await emitEvent(db, farmId, 'animal.created', { id: 'ani_failed' }, old);
      const pending = await emitEvent(db, farmId, 'animal.created', { id: 'ani_pending' }, old);
      await dispatchOutbox(db, { now: old });
      const fresh = await emitEvent(db, farmId, 'animal.created', { id: 'ani_fresh' }, recent);
      await dispatchOutbox(db, { now: recent });
      const undispatched = await emitEvent(db, farmId, 'animal.created', { id: 'ani_new' }, old);

      const claimed = await claimDueDeliveries(db, { limit: 10, leaseMs: 1_000, now: recent });
      const outcome = (ok: boolean, code: number, at: number) => ({
        at,
        duration_ms: 3,
        status_code: code,
        error: ok ? null : `the receiver answered HTTP ${code}`,
        succeeded: ok,
      });
      for (const c of claimed) {
        const id = c.event.id;
        if (id === done.id || id === fresh.id)
          await recordAttempt(db, c, outcome(true, 200, old), 'scheduled', []);
        if (id === failed.id) await recordAttempt(db, c, outcome(false, 500, old), 'scheduled', []);
        if (id === pending.id) await recordAttempt(db, c, outcome(false, 500, old), 'scheduled', [DAY_MS]);
      }
      return { farmId, hookId: hook.body.id as string, done, failed, pending, fresh, undispatched };
    }

    async function counts(hookId: string) {
      const { db } = t().database;
      const deliveries = await db
        .selectFrom('webhook_deliveries')
        .select(['event_id', 'status'])
        .where('webhook_id', '=', hookId)
        .execute();
      const attempts = await db
        .selectFrom('webhook_attempts')
        .innerJoin('webhook_deliveries as d', 'd.id', 'webhook_attempts.delivery_id')
        .select('d.event_id')
        .where('d.webhook_id', '=', hookId)
        .execute();
      return { deliveries, attempts };
    }

    test('finished history past the retention goes with its attempts; pending, undispatched and recent stay', async () => {
      // The injected clock: two months ahead, so the webhook (created now) predates every event.
      const now = Date.now() + 60 * DAY_MS;
      const h = await history(now);
      const before = await counts(h.hookId);
      assert.equal(before.deliveries.length, 4);
      assert.equal(before.attempts.length, 4);
      assert.equal(before.deliveries.find((d) => d.event_id === h.pending.id)?.status, 'pending');

      const result = await pruneWebhookHistory(t().database.db, now, 30, { batch: 1 });
      assert.equal(result.ran, true);
      // The two old finished events, and the account's own set-up events (its sample farm's), all past 30 days.
      assert.ok(result.deletedEvents >= 2, JSON.stringify(result));
      const after = await counts(h.hookId);
      assert.deepEqual(after.deliveries.map((d) => d.event_id).sort(), [h.pending.id, h.fresh.id].sort());
      assert.deepEqual(after.attempts.map((a) => a.event_id).sort(), [h.pending.id, h.fresh.id].sort());
      const outbox = await t()
        .database.db.selectFrom('outbox')
        .select('id')
        .where('id', 'in', [h.done.id, h.failed.id, h.pending.id, h.fresh.id, h.undispatched.id])
        .execute();
      assert.deepEqual(
        outbox.map((o) => o.id).sort(),
        [h.pending.id, h.fresh.id, h.undispatched.id].sort(),
        'the undispatched event is kept, whatever its age',
      );

      const again = await pruneWebhookHistory(t().database.db, now, 30);
      assert.equal(again.deletedEvents, 0, 'a second run finds nothing');
      const later = await pruneWebhookHistory(t().database.db, now + 30 * DAY_MS, 30);
      assert.ok(later.deletedEvents >= 1, 'the recent event goes once it is old enough');
      const [left] = (await counts(h.hookId)).deliveries;
      assert.equal(left?.event_id, h.pending.id);
    });

    test('on PostgreSQL one process prunes at a time: a run skips while another holds the lock', async (ctx) => {
      if (t().engine !== 'postgres') return ctx.skip('SQLite runs in one process');
      const { db } = t().database;
      await db.connection().execute(async (conn) => {
        await sql`select pg_advisory_lock(7146101)`.execute(conn);
        try {
          const skipped = await pruneWebhookHistory(db, Date.now(), 30);
          assert.deepEqual(skipped, { deletedEvents: 0, ran: false });
        } finally {
          await sql`select pg_advisory_unlock(7146101)`.execute(conn);
        }
      });
      assert.equal((await pruneWebhookHistory(db, Date.now(), 30)).ran, true);
    });
  },
  { webhookAllowPrivate: true },
);
