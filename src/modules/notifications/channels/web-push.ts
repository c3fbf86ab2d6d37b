/**
 * Web Push (RFC 8030, payload encrypted per RFC 8291, VAPID per RFC 8292) through the `web-push` library.
 * The push service's address is a person's browser's choice, so it goes through the webhooks' SSRF guard:
 * when the subscription is saved (checkPushEndpoint) and again inside each connection (guardedLookup),
 * unless FARMSTEAD_WEBHOOK_ALLOW_PRIVATE allows private addresses. Touches no database.
 */
import https from 'node:https';
import { isIP } from 'node:net';
import webPush from 'web-push';
import { invalid } from '../../../domain/errors.ts';
import {
  assertPublicHost,
  checkWebhookUrl,
  guardedLookup,
  RefusedAddressError,
} from '../../webhooks/url-guard.ts';

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
}

const guardedAgent = new https.Agent({ keepAlive: true, lookup: guardedLookup });
const openAgent = new https.Agent({ keepAlive: true });

export function newVapidKeys(): { publicKey: string; privateKey: string } {
  return webPush.generateVAPIDKeys();
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
  try {
    return await checkWebhookUrl(raw, options);
  } catch (err) {
    // The webhook guard names `url`; the same refusal names `endpoint` here.
    if (err instanceof Error && 'param' in err) {
      throw invalid('endpoint', err.message.replace(/^url/, 'endpoint'));
    }
    throw err;
  }
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
  },
): Promise<PushResult> {
  try {
    const host = new URL(target.endpoint).hostname.replace(/^\[|\]$/g, '');
    // Literal addresses never reach the guarded lookup, so they are checked here.
    if (!options.allowPrivate && (isIP(host) || /(^|\.)localhost\.?$/i.test(host)))
      await assertPublicHost(host);
    const response = await webPush.sendNotification(
      { endpoint: target.endpoint, keys: { p256dh: target.p256dh, auth: target.auth } },
      payload,
      {
        vapidDetails: options.vapid,
        TTL: options.ttlSeconds,
        urgency: options.urgent ? 'high' : 'normal',
        timeout: options.timeoutMs,
        agent: options.allowPrivate ? openAgent : guardedAgent,
      },
    );
    return {
      status: response.statusCode,
      accepted: true,
      gone: false,
      answer: `HTTP ${response.statusCode}`,
    };
  } catch (err) {
    if (err instanceof webPush.WebPushError) {
      const gone = err.statusCode === 404 || err.statusCode === 410;
      const body = String(err.body ?? '')
        .slice(0, 200)
        .trim();
      return {
        status: err.statusCode,
        accepted: false,
        gone,
        answer: `HTTP ${err.statusCode}${body ? `: ${body}` : ''}${gone ? ' (the browser unsubscribed; removed)' : ''}`,
      };
    }
    if (err instanceof RefusedAddressError) {
      return { status: null, accepted: false, gone: false, answer: `refused: ${err.message}` };
    }
    const e = err as NodeJS.ErrnoException;
    return {
      status: null,
      accepted: false,
      gone: false,
      answer: e.code ? `${e.message} (${e.code})` : String(e.message ?? err),
    };
  }
}
