/**
 * What a receiver gets: the payload text and its signatures, two of them over the same bytes and time:
 *  - the spec's `Service-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, keyed with the
 *    webhook's secret exactly as shown on create (the whole `whsec_…` text, as UTF-8);
 *  - Standard Webhooks (standardwebhooks.com): `webhook-id`, `webhook-timestamp` and
 *    `webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, keyed with the bytes the
 *    base64 after `whsec_` encodes, so any Standard Webhooks library verifies a delivery with the secret.
 */
import { createHmac } from 'node:crypto';
import { toIso } from '../../lib/time.ts';

export const SIGNATURE_HEADER = 'Service-Signature';
export const EVENT_ID_HEADER = 'Service-Event-Id';
export const EVENT_TYPE_HEADER = 'Service-Event-Type';
export const DELIVERY_ID_HEADER = 'Service-Delivery-Id';
export const DELIVERY_ATTEMPT_HEADER = 'Service-Delivery-Attempt';
export const STANDARD_ID_HEADER = 'webhook-id';
export const STANDARD_TIMESTAMP_HEADER = 'webhook-timestamp';
export const STANDARD_SIGNATURE_HEADER = 'webhook-signature';

export interface OutboxEvent {
  id: string;
  type: string;
  farm_id: string;
  created_at: number;
  /** The event's data as stored: JSON text of an object. */
  data: string;
}

/**
 * The payload `{id, type, farm_id, created_at, data}`. Built from the stored outbox row, so every attempt of
 * every webhook sends the same bytes; `data` is embedded as stored, without a parse and re-serialise.
 */
export function payloadOf(event: OutboxEvent): string {
  const head = JSON.stringify({
    id: event.id,
    type: event.type,
    farm_id: event.farm_id,
    created_at: toIso(event.created_at),
  });
  return `${head.slice(0, -1)},"data":${event.data}}`;
}

/** The Service-Signature header value for a body sent at `timestampSeconds`. */
export function signPayload(secret: string, body: string, timestampSeconds: number): string {
  const v1 = createHmac('sha256', secret).update(`${timestampSeconds}.${body}`).digest('hex');
  return `t=${timestampSeconds},v1=${v1}`;
}

/**
 * The Standard Webhooks key: the bytes the base64 after `whsec_` encodes. Secrets are standard base64;
 * those made before (URL-safe base64, `-` and `_`) decode to their bytes the same way (Node reads both
 * alphabets), so every webhook gets the header.
 */
export function standardKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
}

/** The Standard Webhooks `webhook-signature` value for a message id and body sent at `timestampSeconds`. */
export function signStandard(secret: string, msgId: string, body: string, timestampSeconds: number): string {
  const mac = createHmac('sha256', standardKey(secret))
    .update(`${msgId}.${timestampSeconds}.${body}`)
    .digest('base64');
  return `v1,${mac}`;
}
