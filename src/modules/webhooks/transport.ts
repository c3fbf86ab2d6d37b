/**
 * Webhook delivery, step 3: transport. POSTs one signed payload to a receiver over a raw Node HTTP(S)
 * request, guarded against private addresses (url-guard.ts) and bounded by the receiver deadline, and
 * describes the outcome. Touches no database.
 */
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { Config } from '../../config.ts';
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
  WEBHOOK_USER_AGENT,
} from './signing.ts';
import { assertPublicHost, guardedLookup, RefusedAddressError } from './url-guard.ts';

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
    const start = async (retried: boolean) => {
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
      request.on('error', (err: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        // A kept-alive connection the receiver closed while idle fails at once on reuse: that is not the
        // receiver's answer, so send once more on a new connection (as Node's docs advise).
        if (!retried && request.reusedSocket && err.code === 'ECONNRESET') {
          start(true).catch((e: unknown) => finish(e));
          return;
        }
        finish(err);
      });
      request.on('close', () => clearTimeout(timer));
      request.end(body);
    };
    start(false).catch((err: unknown) => finish(err));
  });
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
    'User-Agent': WEBHOOK_USER_AGENT,
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
