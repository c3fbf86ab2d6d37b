import type { Selectable } from 'kysely';
import type { Db } from '../../db/schema.ts';
import type {
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
