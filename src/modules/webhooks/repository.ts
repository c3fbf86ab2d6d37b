/**
 * The webhooks' records: webhooks, their deliveries and the attempts of each, as the API and the recording
 * of an attempt read and write them. The delivery queue's own queries (dispatch, leases, pruning) are in
 * queue-repository.ts.
 */
import type { Insertable, Selectable, Updateable } from 'kysely';
import { fetchPage, type Page, type PageRequest } from '../../db/pagination.ts';
import type { Db, Trx } from '../../db/schema.ts';
import { SEQ_NEVER_STREAMED } from '../../db/tables/foundation.ts';
import type {
  DeliveryStatus,
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhooksTable,
} from '../../db/tables/webhooks.ts';
import { parseJson } from '../../lib/json.ts';
import { toIso } from '../../lib/time.ts';
import type { Webhook, WebhookAttempt, WebhookDelivery } from './schemas.ts';

export type WebhookRow = Selectable<WebhooksTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
export type AttemptRow = Selectable<WebhookAttemptsTable>;

/** Whether a webhook's `events` (names, or ["*"]) include an event type. */
export function subscribesTo(events: readonly string[], type: string): boolean {
  return events.includes('*') || events.includes(type);
}

/** The API object; the secret is never part of it (create adds it once). */
export function toWebhook(row: WebhookRow): Webhook {
  return {
    id: row.id,
    farm_id: row.farm_id,
    url: row.url,
    events: parseJson<string[]>(row.events, []),
    status: row.status,
    disabled_reason: row.disabled_reason,
    created_at: toIso(row.created_at),
  };
}

export function toAttempt(row: AttemptRow): WebhookAttempt {
  return {
    number: row.number,
    trigger: row.trigger,
    at: toIso(row.at),
    duration_ms: row.duration_ms,
    status_code: row.status_code,
    error: row.error,
    succeeded: row.status_code !== null && row.status_code >= 200 && row.status_code < 300,
  };
}

export function toDelivery(row: DeliveryRow, attempts: readonly AttemptRow[]): WebhookDelivery {
  return {
    id: row.id,
    webhook_id: row.webhook_id,
    farm_id: row.farm_id,
    event_id: row.event_id,
    event_type: row.event_type,
    status: row.status,
    attempt_count: row.attempt_count,
    next_attempt_at: toIso(row.next_attempt_at),
    last_attempt_at: toIso(row.last_attempt_at),
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    attempts: attempts.map(toAttempt),
    created_at: toIso(row.created_at),
    completed_at: toIso(row.completed_at),
  };
}

/** Attempts of the given deliveries, grouped by delivery, oldest first. */
export async function attemptsByDelivery(
  db: Db,
  deliveryIds: readonly string[],
): Promise<Map<string, AttemptRow[]>> {
  const byDelivery = new Map<string, AttemptRow[]>();
  if (deliveryIds.length === 0) return byDelivery;
  const rows = await db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('delivery_id', 'in', deliveryIds)
    .orderBy('delivery_id')
    .orderBy('number')
    .execute();
  for (const row of rows) {
    const list = byDelivery.get(row.delivery_id) ?? [];
    list.push(row);
    byDelivery.set(row.delivery_id, list);
  }
  return byDelivery;
}

/** A delivery as recording an attempt reads it, or undefined when it was deleted. */
export function deliveryToRecord(trx: Trx, deliveryId: string) {
  return trx
    .selectFrom('webhook_deliveries')
    .select(['status', 'next_attempt_at', 'completed_at', 'farm_id', 'webhook_id'])
    .where('id', '=', deliveryId)
    .executeTakeFirst();
}

/** Stores an attempt (`attempt` may carry more members, such as the transport's `succeeded`: only the columns are written). */
export async function insertAttempt(trx: Trx, attempt: AttemptRow): Promise<void> {
  const { delivery_id, number, farm_id, trigger, at, duration_ms, status_code, error } = attempt;
  await trx
    .insertInto('webhook_attempts')
    .values({ delivery_id, number, farm_id, trigger, at, duration_ms, status_code, error })
    .execute();
}

/** A webhook's status, or undefined when it was deleted. */
export async function webhookStatus(trx: Trx, webhookId: string): Promise<WebhookRow['status'] | undefined> {
  const row = await trx
    .selectFrom('webhooks')
    .select(['status'])
    .where('id', '=', webhookId)
    .executeTakeFirst();
  return row?.status;
}

/** How many scheduled (not manual) attempts a delivery has had. */
export async function scheduledAttempts(trx: Trx, deliveryId: string): Promise<number> {
  const row = await trx
    .selectFrom('webhook_attempts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('delivery_id', '=', deliveryId)
    .where('trigger', '=', 'scheduled')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function setWebhookDisabled(trx: Trx, webhookId: string, reason: string): Promise<void> {
  await trx
    .updateTable('webhooks')
    .set({ status: 'disabled', disabled_reason: reason })
    .where('id', '=', webhookId)
    .execute();
}

/** Fails a webhook's pending deliveries (but `except`), as nothing is sent to a disabled webhook. */
export async function failPendingDeliveries(
  trx: Trx,
  webhookId: string,
  failure: { completedAt: number; error: string; except: string | null },
): Promise<void> {
  let pending = trx
    .updateTable('webhook_deliveries')
    .set({
      status: 'failed',
      next_attempt_at: null,
      completed_at: failure.completedAt,
      last_error: failure.error,
    })
    .where('webhook_id', '=', webhookId)
    .where('status', '=', 'pending');
  if (failure.except) pending = pending.where('id', '!=', failure.except);
  await pending.execute();
}

export async function insertWebhook(db: Db, row: WebhookRow): Promise<void> {
  await db.insertInto('webhooks').values(row).execute();
}

/** A page of a farm's webhooks, newest first. */
export function listFarmWebhooks(db: Db, farmId: string, page: PageRequest): Promise<Page<Webhook>> {
  return fetchPage(db.selectFrom('webhooks').selectAll().where('farm_id', '=', farmId), page, toWebhook);
}

export async function updateWebhookRow(
  trx: Trx,
  webhookId: string,
  patch: Updateable<WebhooksTable>,
): Promise<void> {
  await trx.updateTable('webhooks').set(patch).where('id', '=', webhookId).execute();
}

/** Deletes a webhook; its deliveries and their attempts cascade. */
export async function deleteWebhookRow(db: Db, webhookId: string): Promise<void> {
  await db.deleteFrom('webhooks').where('id', '=', webhookId).execute();
}

/** A page of a webhook's deliveries (of one status, when given), newest first, each with its attempts. */
export async function listWebhookDeliveries(
  db: Db,
  webhookId: string,
  page: PageRequest,
  status: DeliveryStatus | undefined,
): Promise<Page<WebhookDelivery>> {
  let query = db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId);
  if (status) query = query.where('status', '=', status);
  const listed = await fetchPage(query, page, (row) => row);
  const attempts = await attemptsByDelivery(
    db,
    listed.data.map((r) => r.id),
  );
  return { ...listed, data: listed.data.map((r) => toDelivery(r, attempts.get(r.id) ?? [])) };
}

/** A delivery of this webhook, or undefined (another webhook's delivery is not this one's). */
export function findDeliveryRow(
  db: Db,
  webhookId: string,
  deliveryId: string,
): Promise<DeliveryRow | undefined> {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('id', '=', deliveryId)
    .where('webhook_id', '=', webhookId)
    .executeTakeFirst();
}

/** A new delivery row: pending, never attempted; `next_attempt_at` null keeps it from the workers. */
export function pendingDelivery(delivery: {
  id: string;
  webhook_id: string;
  farm_id: string;
  event_id: string;
  event_type: string;
  created_at: number;
  next_attempt_at: number | null;
}): Insertable<WebhookDeliveriesTable> {
  return {
    ...delivery,
    status: 'pending',
    attempt_count: 0,
    locked_until: null,
    last_attempt_at: null,
    last_status_code: null,
    last_error: null,
    completed_at: null,
  };
}

/**
 * Stores a test event: an outbox row already marked dispatched (so no other webhook gets it) and never
 * streamed (it is not a farm change), with one delivery of the one webhook, which no worker picks up.
 */
export async function insertTestEvent(
  trx: Trx,
  event: { id: string; farm_id: string; type: string; data: string; created_at: number },
  deliveryId: string,
  webhookId: string,
): Promise<void> {
  await trx
    .insertInto('outbox')
    .values({ ...event, dispatched_at: event.created_at, seq: SEQ_NEVER_STREAMED })
    .execute();
  await trx
    .insertInto('webhook_deliveries')
    .values(
      pendingDelivery({
        id: deliveryId,
        webhook_id: webhookId,
        farm_id: event.farm_id,
        event_id: event.id,
        event_type: event.type,
        created_at: event.created_at,
        next_attempt_at: null,
      }),
    )
    .execute();
}

/** Fails a delivery that is still pending (a test event's one attempt failed). */
export async function failIfPending(db: Db, deliveryId: string, completedAt: number): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', next_attempt_at: null, completed_at: completedAt })
    .where('id', '=', deliveryId)
    .where('status', '=', 'pending')
    .execute();
}
