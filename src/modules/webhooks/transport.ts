/**
 * Webhook delivery, step 3: transport. POSTs one signed payload to a receiver through the outbound client
 * (lib/outbound.ts: the SSRF guard at connect time, no redirects, the receiver deadline over the whole
 * exchange) and describes the outcome. Touches no database.
 */
import type { Config } from '../../config.ts';
import { OutboundError, sendOutbound } from '../../lib/outbound.ts';
import type { ClaimedDelivery } from './queue-repository.ts';
import {
  DELIVERY_ATTEMPT_HEADER,
  DELIVERY_ID_HEADER,
  EVENT_ID_HEADER,
  EVENT_TYPE_HEADER,
  payloadOf,
  SIGNATURE_HEADER,
  STANDARD_ID_HEADER,
  STANDARD_SIGNATURE_HEADER,
  STANDARD_TIMESTAMP_HEADER,
  signPayload,
  signStandard,
} from './signing.ts';

export type DeliverySettings = Pick<
  Config,
  'webhookAllowPrivate' | 'webhookTimeoutMs' | 'webhookRetryScheduleMs'
>;

export interface AttemptResult {
  at: number;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  succeeded: boolean;
}

/** Sends one attempt of a claimed delivery. Never throws: failures are part of the result. */
export async function sendDelivery(
  claimed: ClaimedDelivery,
  settings: DeliverySettings,
): Promise<AttemptResult> {
  const body = payloadOf(claimed.event);
  const at = Date.now();
  const seconds = Math.floor(at / 1000);
  const headers = {
    'Content-Type': 'application/json',
    [SIGNATURE_HEADER]: signPayload(claimed.secret, body, seconds),
    // Standard Webhooks: the id is the event's, the same on every attempt, so a receiver can deduplicate.
    [STANDARD_ID_HEADER]: claimed.event.id,
    [STANDARD_TIMESTAMP_HEADER]: String(seconds),
    [STANDARD_SIGNATURE_HEADER]: signStandard(claimed.secret, claimed.event.id, body, seconds),
    [EVENT_ID_HEADER]: claimed.event.id,
    [EVENT_TYPE_HEADER]: claimed.event.type,
    [DELIVERY_ID_HEADER]: claimed.id,
    [DELIVERY_ATTEMPT_HEADER]: String(claimed.attempt_count + 1),
  };
  const started = performance.now();
  try {
    const { status } = await sendOutbound({
      url: claimed.url,
      method: 'POST',
      headers,
      body,
      allowPrivate: settings.webhookAllowPrivate,
      timeoutMs: settings.webhookTimeoutMs,
    });
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
      error: err instanceof OutboundError ? err.message : String(err),
      succeeded: false,
    };
  }
}
