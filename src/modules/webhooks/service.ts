import type { Page, PageRequest } from '../../db/pagination.ts';
import type { Db, Trx } from '../../db/schema.ts';
import { inTransaction, lockRows } from '../../db/transaction.ts';
import { conflict, invalid, notFound } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { isWebhookEventName, WEBHOOK_EVENTS, WEBHOOK_TEST_EVENT } from '../../domain/webhook-events.ts';
import { newWebhookSecret } from '../../lib/secrets.ts';
import { toIso } from '../../lib/time.ts';
import { requireFarm, type Scope } from '../farms/access.ts';
import { loadScoped } from '../records/scoped.ts';
import { attemptDelivery, disableWebhook } from './delivery.ts';
import { claimDeliveryForRetry, deliveryLeaseMs } from './queue-repository.ts';
import {
  attemptsByDelivery,
  deleteWebhookRow,
  failIfPending,
  findDeliveryRow,
  insertTestEvent,
  insertWebhook,
  listFarmWebhooks,
  listWebhookDeliveries,
  toDelivery,
  toWebhook,
  updateWebhookRow,
  type WebhookRow,
} from './repository.ts';
import type { CreateWebhookInput, UpdateWebhookInput, Webhook, WebhookDelivery } from './schemas.ts';
import type { DeliverySettings } from './transport.ts';
import { checkWebhookUrl } from './url-guard.ts';

type DeliveryStatusFilter = WebhookDelivery['status'];

/** `events` as stored: known names without repeats, or exactly ["*"]. Errors name the bad entry. */
export function checkEvents(events: readonly string[]): string[] {
  if (events.length === 0) {
    throw invalid('events', 'events must name at least one event, or be ["*"] for every event.');
  }
  const out: string[] = [];
  events.forEach((name, i) => {
    const param = `events[${i}]`;
    if (name === '*') {
      if (events.length !== 1) {
        throw invalid(param, `${param}: "*" means every event and must be the only entry of events.`);
      }
    } else if (!isWebhookEventName(name)) {
      throw invalid(
        param,
        `${param} "${name}" is not a webhook event; use any of ${WEBHOOK_EVENTS.join(', ')}, or ["*"] alone for every event.`,
      );
    }
    if (!out.includes(name)) out.push(name);
  });
  return out;
}

/** Creates a webhook; the result carries the signing secret, which no other response ever shows. */
export async function createWebhook(
  db: Db,
  scope: Scope,
  farmId: string,
  input: CreateWebhookInput,
  options: { allowPrivate: boolean; now?: number },
): Promise<Webhook & { secret: string }> {
  const farm = await requireFarm(db, scope, farmId);
  const events = checkEvents(input.events ?? ['*']);
  const url = await checkWebhookUrl(input.url, options);
  const now = options.now ?? Date.now();
  const row: WebhookRow = {
    id: newId('webhook', now),
    farm_id: farm.id,
    url,
    events: JSON.stringify(events),
    secret: newWebhookSecret(),
    status: 'enabled',
    disabled_reason: null,
    created_at: now,
  };
  await insertWebhook(db, row);
  return { ...toWebhook(row), secret: row.secret };
}

export async function listWebhooks(
  db: Db,
  scope: Scope,
  farmId: string,
  page: PageRequest,
): Promise<Page<Webhook>> {
  const farm = await requireFarm(db, scope, farmId);
  return listFarmWebhooks(db, farm.id, page);
}

export async function getWebhook(db: Db, scope: Scope, id: string): Promise<Webhook> {
  return toWebhook(await loadScoped(db, scope, 'webhook', id));
}

/**
 * Changes url, events and/or status. Disabling fails the webhook's pending deliveries (nothing is sent to a
 * disabled webhook); enabling sends the events that happen from then on.
 */
export async function updateWebhook(
  db: Db,
  scope: Scope,
  id: string,
  input: UpdateWebhookInput,
  options: { allowPrivate: boolean; now?: number },
): Promise<Webhook> {
  await loadScoped(db, scope, 'webhook', id);
  const now = options.now ?? Date.now();
  const patch: Partial<Pick<WebhookRow, 'url' | 'events' | 'status' | 'disabled_reason'>> = {};
  if (input.events !== undefined) patch.events = JSON.stringify(checkEvents(input.events));
  // Checked before the transaction: it may look the host up in DNS.
  if (input.url !== undefined) patch.url = await checkWebhookUrl(input.url, options);
  const run = async (trx: Trx) => {
    // The webhook is locked before its deliveries (the lock order), and its status read under the lock.
    await lockRows(trx, 'webhooks', id);
    const row = await loadScoped(trx, scope, 'webhook', id);
    const disabling = input.status === 'disabled' && row.status !== 'disabled';
    if (input.status === 'enabled' && row.status !== 'enabled') {
      patch.status = 'enabled';
      patch.disabled_reason = null;
    }
    if (Object.keys(patch).length > 0) await updateWebhookRow(trx, row.id, patch);
    if (disabling) await disableWebhook(trx, row.id, `Disabled with PATCH at ${toIso(now)}.`, now);
  };
  await inTransaction(db, run);
  return getWebhook(db, scope, id);
}

/** Deletes a webhook with its deliveries and their attempts. */
export async function deleteWebhook(
  db: Db,
  scope: Scope,
  id: string,
): Promise<{ id: string; deleted: true }> {
  const row = await loadScoped(db, scope, 'webhook', id);
  await deleteWebhookRow(db, row.id);
  return { id: row.id, deleted: true };
}

export async function listDeliveries(
  db: Db,
  scope: Scope,
  webhookId: string,
  page: PageRequest,
  filter: { status?: DeliveryStatusFilter } = {},
): Promise<Page<WebhookDelivery>> {
  const webhook = await loadScoped(db, scope, 'webhook', webhookId);
  return listWebhookDeliveries(db, webhook.id, page, filter.status);
}

export async function getDelivery(
  db: Db,
  scope: Scope,
  webhookId: string,
  deliveryId: string,
): Promise<WebhookDelivery> {
  const webhook = await loadScoped(db, scope, 'webhook', webhookId);
  const row = await findDeliveryRow(db, webhook.id, deliveryId);
  if (!row) throw notFound('delivery', deliveryId);
  const attempts = await attemptsByDelivery(db, [row.id]);
  return toDelivery(row, attempts.get(row.id) ?? []);
}

/**
 * Sends a delivery again now, whatever its status, and answers once the attempt is recorded. A failed manual
 * attempt leaves the delivery's status and retry schedule as they were; a 2xx makes it succeeded.
 */
export async function retryDelivery(
  db: Db,
  scope: Scope,
  webhookId: string,
  deliveryId: string,
  settings: DeliverySettings,
): Promise<WebhookDelivery> {
  const webhook = await loadScoped(db, scope, 'webhook', webhookId);
  if (!(await findDeliveryRow(db, webhook.id, deliveryId))) throw notFound('delivery', deliveryId);
  if (webhook.status !== 'enabled') {
    throw conflict(
      `Webhook ${webhook.id} is disabled, so nothing is sent to it; enable it first with PATCH /v1/webhooks/${webhook.id} {"status": "enabled"}.`,
    );
  }
  const claimed = await claimDeliveryForRetry(db, deliveryId, deliveryLeaseMs(settings));
  if (!claimed) {
    throw conflict(
      'An attempt of this delivery is in progress right now; retry it again when it has finished.',
    );
  }
  await attemptDelivery(db, claimed, settings, 'manual');
  return getDelivery(db, scope, webhookId, deliveryId);
}

/**
 * Sends a `webhook.test` event to this webhook now, through the normal path: an outbox row (marked
 * dispatched, so no other webhook gets it) and a delivery of this webhook only, leased, signed, sent and
 * recorded like any attempt; answers with the delivery once the attempt is recorded. A test is attempted
 * once: if it fails the delivery is `failed` at once (no retry schedule), and the retry endpoint sends it again.
 */
export async function sendTestEvent(
  db: Db,
  scope: Scope,
  webhookId: string,
  settings: DeliverySettings,
  now: number = Date.now(),
): Promise<WebhookDelivery> {
  const webhook = await loadScoped(db, scope, 'webhook', webhookId);
  if (webhook.status !== 'enabled') {
    throw conflict(
      `Webhook ${webhook.id} is disabled, so nothing is sent to it; enable it first with PATCH /v1/webhooks/${webhook.id} {"status": "enabled"}.`,
    );
  }
  const eventId = newId('outbox', now);
  const deliveryId = newId('delivery', now);
  const event = {
    id: eventId,
    farm_id: webhook.farm_id,
    type: WEBHOOK_TEST_EVENT,
    data: JSON.stringify({
      webhook_id: webhook.id,
      message: 'A test event from Farmstead (POST /v1/webhooks/{id}/test). No farm record changed.',
    }),
    created_at: now,
  };
  // No next_attempt_at: the delivery workers never pick it up; this request makes its one attempt.
  await inTransaction(db, (trx) => insertTestEvent(trx, event, deliveryId, webhook.id));
  const claimed = await claimDeliveryForRetry(db, deliveryId, deliveryLeaseMs(settings));
  if (claimed) {
    const { result, status } = await attemptDelivery(db, claimed, settings, 'manual');
    if (status === 'pending') {
      await failIfPending(db, deliveryId, result.at + result.duration_ms);
    }
  }
  return getDelivery(db, scope, webhook.id, deliveryId);
}
