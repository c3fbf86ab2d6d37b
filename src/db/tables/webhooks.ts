export type WebhookStatus = 'enabled' | 'disabled';
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';
export type AttemptTrigger = 'scheduled' | 'manual';

export interface WebhooksTable {
  id: string;
  farm_id: string;
  url: string;
  /** JSON text: an array of event names, or ["*"]. */
  events: string;
  /** The signing secret (whsec_…). Kept in clear because every delivery is signed with it. */
  secret: string;
  status: WebhookStatus;
  disabled_reason: string | null;
  created_at: number;
}

/** One event for one webhook: created by the dispatcher, attempted until it succeeds or the schedule ends. */
export interface WebhookDeliveriesTable {
  id: string;
  webhook_id: string;
  farm_id: string;
  /** The outbox row (the event's id in the payload). */
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  attempt_count: number;
  /** When the next scheduled attempt is due; null once the delivery succeeded or failed. */
  next_attempt_at: number | null;
  /** A worker's lease on the delivery while it sends; a crashed worker's lease simply runs out. */
  locked_until: number | null;
  last_attempt_at: number | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: number;
  completed_at: number | null;
}

export interface WebhookAttemptsTable {
  delivery_id: string;
  /** 1 for the first attempt, counting scheduled and manual attempts together. */
  number: number;
  farm_id: string;
  trigger: AttemptTrigger;
  at: number;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
}

export interface WebhookTables {
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
}
