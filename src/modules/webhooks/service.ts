import { checkOutboundUrl } from '../../calls/outbound-url.ts';
import type { Page, PageRequest } from '../../db/pagination.ts';
import type { Db, Trx } from '../../db/schema.ts';
import { inTransaction, lockRows } from '../../db/transaction.ts';
import { AppError, conflict, invalid, notFound } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { describePermission, type Policy, permission } from '../../domain/permissions.ts';
import {
  isWebhookEventName,
  mayReadEvent,
  readableEvents,
  readsEverything,
  WEBHOOK_EVENT_RESOURCES,
  WEBHOOK_EVENTS,
  WEBHOOK_TEST_EVENT,
  type WebhookEventName,
} from '../../domain/webhook-events.ts';
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

type DeliveryStatusFilter = WebhookDelivery['status'];

/** Who creates or changes a webhook: its scope, and its policy (the events it may have sent to it). */
export type WebhookCaller = Scope & { policy: Policy };

/** The 403 for an event the caller may not read, naming the event and the permission it needs. */
function unreadableEvent(type: WebhookEventName, param: string): AppError {
  const need = describePermission(permission(WEBHOOK_EVENT_RESOURCES[type], 'read'));
  return new AppError(
    'forbidden',
    `${param} "${type}" needs ${need}, which this key lacks: a webhook may only send events its creator's key may read.`,
    { param },
  );
}

/**
 * `events` as stored: known names without repeats, or exactly ["*"]. Every event must be one the caller
 * may read (403 naming it), as on the live stream. `"*"` is "every event this caller may read": stored as
 * ["*"] only for a caller that may read everything, else as the concrete list of those events, so a
 * restricted key's webhook never gains an event it may not read. Errors name the bad entry.
 */
export function checkEvents(events: readonly string[], policy: Policy): string[] {
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
    } else if (!mayReadEvent(policy, name)) {
      throw unreadableEvent(name, param);
    }
    if (!out.includes(name)) out.push(name);
  });
  if (out[0] !== '*' || readsEverything(policy)) return out;
  const readable = readableEvents(policy);
  if (readable.length === 0) {
    throw new AppError(
      'forbidden',
      `events[0] "*" would send no event: this key may read none of ${WEBHOOK_EVENTS.join(', ')} (a webhook may only send events its creator's key may read).`,
      { param: 'events[0]' },
    );
  }
  return readable;
}

/** A webhook's stored events the caller must be able to read before it may point them elsewhere. */
function checkStoredEvents(stored: readonly string[], policy: Policy): void {
  if (stored.includes('*')) {
    if (readsEverything(policy)) return;
    const unreadable = WEBHOOK_EVENTS.find((type) => !mayReadEvent(policy, type));
    if (unreadable === undefined) return;
    throw new AppError(
      'forbidden',
      `This webhook sends every event ("*"), including "${unreadable}", which needs ${describePermission(permission(WEBHOOK_EVENT_RESOURCES[unreadable], 'read'))} that this key lacks; to change its url, also send events naming only events this key may read.`,
      { param: 'events' },
    );
  }
  for (const type of stored) {
    if (isWebhookEventName(type) && !mayReadEvent(policy, type)) {
      const need = describePermission(permission(WEBHOOK_EVENT_RESOURCES[type], 'read'));
      throw new AppError(
        'forbidden',
        `This webhook sends "${type}", which needs ${need} that this key lacks; to change its url, also send events naming only events this key may read.`,
        { param: 'events' },
      );
    }
  }
}

/** Creates a webhook; the result carries the signing secret, which no other response ever shows. */
export async function createWebhook(
  db: Db,
  caller: WebhookCaller,
  farmId: string,
  input: CreateWebhookInput,
  options: { allowPrivate: boolean; now?: number },
): Promise<Webhook & { secret: string }> {
  const farm = await requireFarm(db, caller, farmId);
  const events = checkEvents(input.events ?? ['*'], caller.policy);
  const url = await checkOutboundUrl(input.url, { allowPrivate: options.allowPrivate });
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
 * disabled webhook); enabling sends the events that happen from then on. New events are checked as on
 * create; a new url alone needs the caller to read every event the webhook already sends (else a key
 * could point someone else's `*` webhook at itself).
 */
export async function updateWebhook(
  db: Db,
  caller: WebhookCaller,
  id: string,
  input: UpdateWebhookInput,
  options: { allowPrivate: boolean; now?: number },
): Promise<Webhook> {
  const current = toWebhook(await loadScoped(db, caller, 'webhook', id));
  const now = options.now ?? Date.now();
  const patch: Partial<Pick<WebhookRow, 'url' | 'events' | 'status' | 'disabled_reason'>> = {};
  if (input.events !== undefined) patch.events = JSON.stringify(checkEvents(input.events, caller.policy));
  else if (input.url !== undefined) checkStoredEvents(current.events, caller.policy);
  // Checked before the transaction: it may look the host up in DNS.
  if (input.url !== undefined)
    patch.url = await checkOutboundUrl(input.url, { allowPrivate: options.allowPrivate });
  const run = async (trx: Trx) => {
    // The webhook is locked before its deliveries (the lock order), and its status read under the lock.
    await lockRows(trx, 'webhooks', id);
    const row = await loadScoped(trx, caller, 'webhook', id);
    const disabling = input.status === 'disabled' && row.status !== 'disabled';
    if (input.status === 'enabled' && row.status !== 'enabled') {
      patch.status = 'enabled';
      patch.disabled_reason = null;
    }
    if (Object.keys(patch).length > 0) await updateWebhookRow(trx, row.id, patch);
    if (disabling) await disableWebhook(trx, row.id, `Disabled with PATCH at ${toIso(now)}.`, now);
  };
  await inTransaction(db, run);
  return getWebhook(db, caller, id);
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
