/**
 * Web Push (RFC 8030, payload encrypted per RFC 8291, VAPID per RFC 8292): the `web-push` library encrypts
 * and signs (`generateRequestDetails`), and the request it describes goes out through the outbound client
 * (lib/outbound.ts). The push service's address is a person's browser's choice, so the SSRF guard checks it
 * when the subscription is saved (checkPushEndpoint) and again inside each connection, unless
 * FARMSTEAD_WEBHOOK_ALLOW_PRIVATE allows private addresses. Touches no database. `web-push` (and the ASN.1
 * and big-number libraries under it) is loaded when first needed: most servers never send a push.
 */
import type webPush from 'web-push';
import { checkOutboundUrl } from '../../../calls/outbound-url.ts';
import { invalid } from '../../../domain/errors.ts';
import { OutboundError, retryAfterMs, sendOutbound } from '../../../lib/outbound.ts';

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
  subject: string;
}

export interface PushTarget {
  endpoint: string;
  p256dh: string;
  auth: string;
}

export interface PushResult {
  /** The push service's HTTP status, or null when no answer came. */
  status: number | null;
  accepted: boolean;
  /** The subscription is gone (404/410): remove it. */
  gone: boolean;
  answer: string;
  /** The wait a push service asked for with a 429 or 5xx (`Retry-After`, RFC 8030 §8.4), in ms. */
  retryAfterMs?: number;
}

// A push service answers with an empty body or a short error; the answer keeps its first 200 characters.
const MAX_ANSWER_BYTES = 64 * 1024;

let webPushLoaded: Promise<typeof webPush> | null = null;

function loadWebPush(): Promise<typeof webPush> {
  webPushLoaded ??= import('web-push').then((m) => m.default);
  return webPushLoaded;
}

export async function newVapidKeys(): Promise<{ publicKey: string; privateKey: string }> {
  return (await loadWebPush()).generateVAPIDKeys();
}

/** Validates a subscription's endpoint for saving: https, and a public address unless private ones are allowed. */
export async function checkPushEndpoint(raw: string, options: { allowPrivate: boolean }): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid('endpoint', `endpoint "${raw.slice(0, 100)}" is not an absolute URL.`);
  }
  if (url.protocol !== 'https:') {
    throw invalid('endpoint', 'endpoint must be an https:// URL (push services are reached over TLS only).');
  }
  return checkOutboundUrl(raw, { allowPrivate: options.allowPrivate, param: 'endpoint' });
}

/** Sends one encrypted payload to one browser's push service. Never throws. */
export async function sendPush(
  target: PushTarget,
  payload: string,
  options: {
    vapid: VapidKeys;
    urgent: boolean;
    ttlSeconds: number;
    allowPrivate: boolean;
    timeoutMs: number;
    now: number;
  },
): Promise<PushResult> {
  let request: webPush.RequestDetails;
  try {
    request = (await loadWebPush()).generateRequestDetails(
      { endpoint: target.endpoint, keys: { p256dh: target.p256dh, auth: target.auth } },
      payload,
      {
        vapidDetails: options.vapid,
        TTL: options.ttlSeconds,
        urgency: options.urgent ? 'high' : 'normal',
      },
    );
  } catch (err) {
    // Keys a browser sent that cannot encrypt: no push service would accept this subscription.
    return { status: null, accepted: false, gone: false, answer: (err as Error).message };
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    // The client counts the body itself.
    if (name.toLowerCase() !== 'content-length') headers[name] = String(value);
  }
  try {
    const answer = await sendOutbound({
      url: request.endpoint,
      method: request.method,
      headers,
      ...(request.body ? { body: request.body } : {}),
      allowPrivate: options.allowPrivate,
      timeoutMs: options.timeoutMs,
      maxResponseBytes: MAX_ANSWER_BYTES,
    });
    if (answer.status >= 200 && answer.status < 300) {
      return { status: answer.status, accepted: true, gone: false, answer: `HTTP ${answer.status}` };
    }
    const gone = answer.status === 404 || answer.status === 410;
    const body = answer.body.toString('utf8').slice(0, 200).trim();
    const wait =
      answer.status === 429 || answer.status >= 500
        ? retryAfterMs(answer.headers['retry-after'], options.now)
        : undefined;
    return {
      status: answer.status,
      accepted: false,
      gone,
      answer: `HTTP ${answer.status}${body ? `: ${body}` : ''}${gone ? ' (the browser unsubscribed; removed)' : ''}`,
      ...(wait === undefined ? {} : { retryAfterMs: wait }),
    };
  } catch (err) {
    return {
      status: null,
      accepted: false,
      gone: false,
      answer: err instanceof OutboundError ? err.message : String(err),
    };
  }
}
