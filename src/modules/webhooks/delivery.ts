/**
 * Webhook delivery, in three steps that any number of workers can run at once:
 *  1. dispatch: each undispatched outbox row becomes one delivery row per subscribed, enabled webhook of its
 *     farm, and the outbox row is marked dispatched, in one transaction (a unique index on (webhook, event)
 *     keeps it to one delivery per webhook whatever happens);
 *  2. claim: due deliveries are leased (`locked_until`) by one worker; PostgreSQL skips rows another worker
 *     holds (FOR UPDATE SKIP LOCKED), SQLite's single-statement UPDATE is atomic by itself. A worker that dies
 *     mid-send leaves a lease that simply runs out, and the delivery is attempted again;
 *  3. attempt: POST the signed payload, then record the attempt and the delivery's next step (retry on the
 *     schedule, succeeded, failed; a 410 disables the webhook) in one transaction.
 * Delivery is at least once: a receiver may see an event again after a crash, and de-duplicates by event id.
 */

import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { Kysely } from 'kysely';
import type { Config } from '../../config.ts';
import type { Engine } from '../../db/database.ts';
import type { DB, Db } from '../../db/schema.ts';
import type { AttemptTrigger, DeliveryStatus } from '../../db/tables/webhooks.ts';
import { inTransaction } from '../../db/transaction.ts';
import { newId } from '../../lib/ids.ts';
import { toIso } from '../../lib/time.ts';
import { metrics } from '../metrics/metrics.ts';
import { subscribesTo } from './repository.ts';
import {
  DELIVERY_ATTEMPT_HEADER,
  DELIVERY_ID_HEADER,
  EVENT_ID_HEADER,
  EVENT_TYPE_HEADER,
  type OutboxEvent,
  payloadOf,
  SIGNATURE_HEADER,
  signPayload,
  WEBHOOK_USER_AGENT,
} from './signing.ts';
import { assertPublicHost, guardedLookup, RefusedAddressError } from './url-guard.ts';

export type DeliverySettings = Pick<
  Config,
  'webhookAllowPrivate' | 'webhookTimeoutMs' | 'webhookRetryScheduleMs'
>;

/** How long past the receiver's deadline a lease lasts, so recording the attempt never races a new claim. */
export const LEASE_MARGIN_MS = 30_000;

// ---------------------------------------------------------------------------------------------- dispatch

const INSERT_CHUNK = 200;

/**
 * Turns up to `limit` undispatched outbox events into deliveries. A webhook receives the events that happen
 * while it exists and is enabled (created no later than the event). Returns how many events were dispatched.
 */
export async function dispatchOutbox(
  db: Kysely<DB>,
  engine: Engine,
  options: { now?: number; limit?: number } = {},
): Promise<{ events: number; deliveries: number }> {
  const now = options.now ?? Date.now();
  const limit = options.limit ?? 500;
  return db.transaction().execute(async (trx) => {
    let pending = trx
      .selectFrom('outbox')
      .select(['id', 'farm_id', 'type', 'created_at'])
      .where('dispatched_at', 'is', null)
      .orderBy('id')
      .limit(limit);
    if (engine === 'postgres') pending = pending.forUpdate().skipLocked();
    const events = await pending.execute();
    if (events.length === 0) return { events: 0, deliveries: 0 };
    const farmIds = [...new Set(events.map((e) => e.farm_id))];
    const hooks = (
      await trx
        .selectFrom('webhooks')
        .select(['id', 'farm_id', 'events', 'created_at'])
        .where('farm_id', 'in', farmIds)
        .where('status', '=', 'enabled')
        .execute()
    ).map((h) => ({ ...h, events: JSON.parse(h.events) as string[] }));
    const rows = [];
    for (const event of events) {
      for (const hook of hooks) {
        if (hook.farm_id !== event.farm_id || hook.created_at > event.created_at) continue;
        if (!subscribesTo(hook.events, event.type)) continue;
        rows.push({
          id: newId('delivery', now),
          webhook_id: hook.id,
          farm_id: event.farm_id,
          event_id: event.id,
          event_type: event.type,
          status: 'pending' as const,
          attempt_count: 0,
          next_attempt_at: now,
          locked_until: null,
          last_attempt_at: null,
          last_status_code: null,
          last_error: null,
          created_at: now,
          completed_at: null,
        });
      }
    }
    for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
      await trx
        .insertInto('webhook_deliveries')
        .values(rows.slice(i, i + INSERT_CHUNK))
        .onConflict((oc) => oc.columns(['webhook_id', 'event_id']).doNothing())
        .execute();
    }
    await trx
      .updateTable('outbox')
      .set({ dispatched_at: now })
      .where(
        'id',
        'in',
        events.map((e) => e.id),
      )
      .execute();
    return { events: events.length, deliveries: rows.length };
  });
}

// ------------------------------------------------------------------------------------------------- claim

/** A leased delivery with everything needed to send it. */
export interface ClaimedDelivery {
  id: string;
  webhook_id: string;
  url: string;
  secret: string;
  /** Attempts made before this one. */
  attempt_count: number;
  event: OutboxEvent;
}

async function loadClaimed(db: Db, ids: string[]): Promise<ClaimedDelivery[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
    .innerJoin('outbox as o', 'o.id', 'd.event_id')
    .select([
      'd.id',
      'd.webhook_id',
      'd.attempt_count',
      'd.next_attempt_at',
      'w.url',
      'w.secret',
      'o.id as event_id',
      'o.type',
      'o.farm_id',
      'o.created_at',
      'o.data',
    ])
    .where('d.id', 'in', ids)
    .execute();
  return rows
    .sort((a, b) => (a.next_attempt_at ?? 0) - (b.next_attempt_at ?? 0) || (a.id < b.id ? -1 : 1))
    .map((r) => ({
      id: r.id,
      webhook_id: r.webhook_id,
      url: r.url,
      secret: r.secret,
      attempt_count: r.attempt_count,
      event: { id: r.event_id, type: r.type, farm_id: r.farm_id, created_at: r.created_at, data: r.data },
    }));
}

/**
 * Leases up to `limit` due deliveries of enabled webhooks (oldest due first) for `leaseMs`, skipping the
 * webhooks in `excludeWebhookIds` (those this process is already sending its share to).
 */
export async function claimDueDeliveries(
  db: Kysely<DB>,
  engine: Engine,
  options: { limit: number; leaseMs: number; now?: number; excludeWebhookIds?: readonly string[] },
): Promise<ClaimedDelivery[]> {
  const now = options.now ?? Date.now();
  if (options.limit < 1) return [];
  let due = db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
    .where('webhook_id', 'in', db.selectFrom('webhooks').select('id').where('status', '=', 'enabled'))
    .orderBy('next_attempt_at')
    .orderBy('id')
    .limit(options.limit);
  if (options.excludeWebhookIds?.length) due = due.where('webhook_id', 'not in', options.excludeWebhookIds);
  if (engine === 'postgres') due = due.forUpdate().skipLocked();
  const claimed = await db
    .updateTable('webhook_deliveries')
    .set({ locked_until: now + options.leaseMs })
    .where('id', 'in', due)
    .returning('id')
    .execute();
  return loadClaimed(
    db,
    claimed.map((c) => c.id),
  );
}

/** Gives leased deliveries back without attempting them (they become claimable at once). */
export async function releaseDeliveries(db: Db, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.updateTable('webhook_deliveries').set({ locked_until: null }).where('id', 'in', ids).execute();
}

/**
 * Leases one delivery for a manual retry, whatever its status, unless an attempt holds it right now.
 * Returns null when it is held.
 */
export async function claimDeliveryForRetry(
  db: Db,
  deliveryId: string,
  leaseMs: number,
  now: number = Date.now(),
): Promise<ClaimedDelivery | null> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ locked_until: now + leaseMs })
    .where('id', '=', deliveryId)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) return null;
  const [claimed] = await loadClaimed(db, [deliveryId]);
  return claimed ?? null;
}

// ----------------------------------------------------------------------------------------------- attempt

export interface AttemptResult {
  at: number;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  succeeded: boolean;
}

// Keep-alive connections to receivers, separate from anything else the process sends.
const httpAgent = new http.Agent({ keepAlive: true });
const httpsAgent = new https.Agent({ keepAlive: true });

class DeliveryTimeout extends Error {}

function describeError(err: unknown, timeoutMs: number): string {
  if (err instanceof DeliveryTimeout) return `timed out: no response within ${timeoutMs} ms`;
  if (err instanceof RefusedAddressError) return `refused: ${err.message}`;
  const e = err as NodeJS.ErrnoException;
  const byCode: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ECONNRESET: 'connection reset by the receiver',
    ENOTFOUND: 'host not found',
    EAI_AGAIN: 'host lookup failed (temporary DNS failure)',
    EHOSTUNREACH: 'host unreachable',
    ENETUNREACH: 'network unreachable',
    ETIMEDOUT: 'connection timed out',
  };
  const known = e.code ? byCode[e.code] : undefined;
  if (known) return `${known} (${e.code})`;
  return e.code ? `${e.message} (${e.code})` : e.message || String(err);
}

/**
 * POSTs `body` and resolves with the response status once the headers arrive, or rejects. The deadline
 * covers DNS, connecting, TLS and the response headers. Redirects are not followed: they could lead to an
 * address the guard would refuse.
 */
function post(
  url: string,
  body: string,
  headers: Record<string, string>,
  settings: DeliverySettings,
): Promise<number> {
  const target = new URL(url);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  return new Promise<number>((resolve, reject) => {
    let settled = false;
    const finish = (err: unknown, status?: number) => {
      if (settled) return;
      settled = true;
      if (err) reject(err);
      else resolve(status ?? 0);
    };
    const start = async () => {
      // Literal addresses never reach the lookup below, so they are checked here.
      if (!settings.webhookAllowPrivate && (isIP(host) || /(^|\.)localhost\.?$/i.test(host))) {
        await assertPublicHost(host);
      }
      const secure = target.protocol === 'https:';
      const request = (secure ? https : http).request(target, {
        method: 'POST',
        agent: secure ? httpsAgent : httpAgent,
        headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
        ...(settings.webhookAllowPrivate ? {} : { lookup: guardedLookup }),
      });
      const timer = setTimeout(() => {
        request.destroy(new DeliveryTimeout());
      }, settings.webhookTimeoutMs);
      request.on('response', (response) => {
        finish(null, response.statusCode ?? 0);
        // Drain (and ignore) the body so the connection can be reused; the deadline still bounds it.
        response.resume();
        response.on('end', () => clearTimeout(timer));
        response.on('error', () => clearTimeout(timer));
      });
      request.on('error', (err) => {
        clearTimeout(timer);
        finish(err);
      });
      request.on('close', () => clearTimeout(timer));
      request.end(body);
    };
    start().catch((err: unknown) => finish(err));
  });
}

/** Sends one attempt of a claimed delivery. Never throws: failures are part of the result. */
export async function sendDelivery(
  claimed: ClaimedDelivery,
  settings: DeliverySettings,
): Promise<AttemptResult> {
  const body = payloadOf(claimed.event);
  const at = Date.now();
  const headers = {
    'Content-Type': 'application/json',
    'User-Agent': WEBHOOK_USER_AGENT,
    [SIGNATURE_HEADER]: signPayload(claimed.secret, body, Math.floor(at / 1000)),
    [EVENT_ID_HEADER]: claimed.event.id,
    [EVENT_TYPE_HEADER]: claimed.event.type,
    [DELIVERY_ID_HEADER]: claimed.id,
    [DELIVERY_ATTEMPT_HEADER]: String(claimed.attempt_count + 1),
  };
  const started = performance.now();
  try {
    const status = await post(claimed.url, body, headers, settings);
    const duration_ms = Math.round(performance.now() - started);
    const succeeded = status >= 200 && status < 300;
    let error: string | null = null;
    if (!succeeded) {
      error =
        status >= 300 && status < 400
          ? `the receiver answered HTTP ${status}; redirects are not followed`
          : `the receiver answered HTTP ${status}`;
    }
    return { at, duration_ms, status_code: status, error, succeeded };
  } catch (err) {
    const duration_ms = Math.round(performance.now() - started);
    return {
      at,
      duration_ms,
      status_code: null,
      error: describeError(err, settings.webhookTimeoutMs),
      succeeded: false,
    };
  }
}

/**
 * Records an attempt and decides what comes next, releasing the lease:
 *  - 2xx: succeeded;
 *  - 410 Gone: failed, and the webhook is disabled (its other pending deliveries fail with it);
 *  - otherwise, for a scheduled attempt: the next retry per the schedule, or failed after the last;
 *    a manual attempt leaves the delivery's status and schedule as they were.
 * Returns the delivery's new status, or null when the delivery was deleted meanwhile.
 */
export async function recordAttempt(
  db: Db,
  claimed: ClaimedDelivery,
  result: AttemptResult,
  trigger: AttemptTrigger,
  retryScheduleMs: readonly number[],
): Promise<DeliveryStatus | null> {
  const finishedAt = result.at + result.duration_ms;
  return inTransaction(db, async (trx) => {
    // Incrementing first takes the row lock on PostgreSQL, so attempt numbers never collide.
    const current = await trx
      .updateTable('webhook_deliveries')
      .set((eb) => ({ attempt_count: eb('attempt_count', '+', 1) }))
      .where('id', '=', claimed.id)
      .returning(['attempt_count', 'status', 'next_attempt_at', 'completed_at', 'farm_id', 'webhook_id'])
      .executeTakeFirst();
    if (!current) return null;
    await trx
      .insertInto('webhook_attempts')
      .values({
        delivery_id: claimed.id,
        number: current.attempt_count,
        farm_id: current.farm_id,
        trigger,
        at: result.at,
        duration_ms: result.duration_ms,
        status_code: result.status_code,
        error: result.error,
      })
      .execute();
    const webhook = await trx
      .selectFrom('webhooks')
      .select(['status'])
      .where('id', '=', current.webhook_id)
      .executeTakeFirst();

    let status: DeliveryStatus = current.status;
    let next: number | null = current.next_attempt_at;
    let completed: number | null = current.completed_at;
    let lastError = result.error;
    if (result.succeeded) {
      status = 'succeeded';
      next = null;
      completed = finishedAt;
    } else if (result.status_code === 410) {
      status = 'failed';
      next = null;
      completed = finishedAt;
      await disableWebhook(
        trx,
        current.webhook_id,
        `The receiver answered 410 Gone at ${toIso(finishedAt)}.`,
        finishedAt,
        claimed.id,
      );
    } else if (trigger === 'scheduled') {
      const scheduled = await trx
        .selectFrom('webhook_attempts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('delivery_id', '=', claimed.id)
        .where('trigger', '=', 'scheduled')
        .executeTakeFirstOrThrow();
      const delay = retryScheduleMs[Number(scheduled.n) - 1];
      if (delay !== undefined && webhook?.status === 'enabled') {
        status = 'pending';
        next = finishedAt + delay;
      } else {
        status = 'failed';
        next = null;
        completed = finishedAt;
        if (webhook?.status !== 'enabled')
          lastError = `${result.error}; not retried: the webhook is disabled`;
      }
    }
    await trx
      .updateTable('webhook_deliveries')
      .set({
        status,
        next_attempt_at: next,
        completed_at: completed,
        locked_until: null,
        last_attempt_at: result.at,
        last_status_code: result.status_code,
        last_error: lastError,
      })
      .where('id', '=', claimed.id)
      .execute();
    metrics.webhookDeliveries.inc({ outcome: status === 'pending' ? 'retrying' : status });
    return status;
  });
}

/**
 * Disables a webhook; its pending deliveries (except `keepDeliveryId`, which the caller settles) fail,
 * since nothing is sent to a disabled webhook.
 */
export async function disableWebhook(
  trx: Db,
  webhookId: string,
  reason: string,
  now: number,
  keepDeliveryId: string | null = null,
): Promise<void> {
  await trx
    .updateTable('webhooks')
    .set({ status: 'disabled', disabled_reason: reason })
    .where('id', '=', webhookId)
    .execute();
  let pending = trx
    .updateTable('webhook_deliveries')
    .set({
      status: 'failed',
      next_attempt_at: null,
      completed_at: now,
      last_error: `Not sent: the webhook was disabled. ${reason}`,
    })
    .where('webhook_id', '=', webhookId)
    .where('status', '=', 'pending');
  if (keepDeliveryId) pending = pending.where('id', '!=', keepDeliveryId);
  await pending.execute();
}

/** One attempt of a claimed delivery, sent and recorded. */
export async function attemptDelivery(
  db: Db,
  claimed: ClaimedDelivery,
  settings: DeliverySettings,
  trigger: AttemptTrigger,
): Promise<{ result: AttemptResult; status: DeliveryStatus | null }> {
  const result = await sendDelivery(claimed, settings);
  const status = await recordAttempt(db, claimed, result, trigger, settings.webhookRetryScheduleMs);
  return { result, status };
}

/**
 * One whole pass, awaited: dispatch every pending event, then send every due delivery (concurrently) and
 * record the outcomes. The worker loop does the same continuously; this is for tests and one-off runs.
 */
export async function deliverDueNow(
  database: { db: Kysely<DB>; engine: Engine },
  settings: DeliverySettings,
): Promise<number> {
  while ((await dispatchOutbox(database.db, database.engine)).events > 0) {
    // Dispatch in batches until the outbox is empty.
  }
  const claimed = await claimDueDeliveries(database.db, database.engine, {
    limit: 10_000,
    leaseMs: settings.webhookTimeoutMs + LEASE_MARGIN_MS,
  });
  await Promise.all(claimed.map((c) => attemptDelivery(database.db, c, settings, 'scheduled')));
  return claimed.length;
}
