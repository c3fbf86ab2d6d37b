/**
 * The HTTP client for network server APIs (downlinks). The address is a user's, so it goes through the
 * webhooks' SSRF guard (webhooks/url-guard.ts: the check when saved, and a guarded lookup inside every
 * connection, off with FARMSTEAD_WEBHOOK_ALLOW_PRIVATE=1). Unlike webhook delivery it sends a bearer key and
 * keeps the start of the answer: a refusal's words go into the command's result. Touches no database.
 */
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { assertPublicHost, guardedLookup, RefusedAddressError } from '../webhooks/url-guard.ts';

export interface ClientSettings {
  allowPrivate: boolean;
  timeoutMs: number;
}

export interface ApiAnswer {
  status: number;
  /** The body's first 2,000 characters, parsed when it is JSON. */
  body: unknown;
}

const MAX_BODY = 2_000;
const httpAgent = new http.Agent({ keepAlive: true });
const httpsAgent = new https.Agent({ keepAlive: true });

class ApiTimeout extends Error {}

/** A failed request in words (the command's result keeps them). */
export function describeFailure(err: unknown, timeoutMs: number): string {
  if (err instanceof ApiTimeout) return `timed out: no answer within ${timeoutMs} ms`;
  if (err instanceof RefusedAddressError) return `refused: ${err.message}`;
  const e = err as NodeJS.ErrnoException;
  return e.code ? `${e.message} (${e.code})` : e.message || String(err);
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** POSTs JSON with `Authorization: Bearer <apiKey>`; resolves with the answer or rejects (network, guard, deadline). */
export async function postToNetworkServer(
  url: string,
  body: unknown,
  apiKey: string | null,
  settings: ClientSettings,
): Promise<ApiAnswer> {
  const target = new URL(url);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  // Literal addresses never reach the guarded lookup, so they are checked here.
  if (!settings.allowPrivate && (isIP(host) || /(^|\.)localhost\.?$/i.test(host)))
    await assertPublicHost(host);
  const payload = JSON.stringify(body);
  const secure = target.protocol === 'https:';
  return new Promise<ApiAnswer>((resolve, reject) => {
    const request = (secure ? https : http).request(target, {
      method: 'POST',
      agent: secure ? httpsAgent : httpAgent,
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json',
        'Content-Length': String(Buffer.byteLength(payload)),
        'User-Agent': 'Farmstead-LoRaWAN',
        ...(apiKey ? { Authorization: `Bearer ${apiKey}` } : {}),
      },
      ...(settings.allowPrivate ? {} : { lookup: guardedLookup }),
    });
    const timer = setTimeout(() => request.destroy(new ApiTimeout()), settings.timeoutMs);
    request.on('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        if (text.length < MAX_BODY) text += chunk;
      });
      response.on('end', () => {
        clearTimeout(timer);
        resolve({ status: response.statusCode ?? 0, body: parsed(text.slice(0, MAX_BODY)) });
      });
      response.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
    request.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    request.end(payload);
  });
}
