/** Receiver-side checks for the webhook tests, written from docs/webhooks.md, independent of signing.ts. */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Verifies like a receiver would, with Web Crypto (not the node:crypto HMAC our signer uses). */
export async function verifyLikeAReceiver(secret: string, header: string, body: string): Promise<boolean> {
  const fields = new Map(header.split(',').map((part) => part.split('=', 2) as [string, string]));
  const t = Number(fields.get('t'));
  const v1 = fields.get('v1') ?? '';
  if (!Number.isInteger(t) || Math.abs(Date.now() / 1000 - t) > 300) return false;
  const enc = new TextEncoder();
  const key = await crypto.subtle.importKey(
    'raw',
    enc.encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['verify'],
  );
  return crypto.subtle.verify('HMAC', key, Buffer.from(v1, 'hex'), enc.encode(`${t}.${body}`));
}

/** Recomputes the HMAC-SHA256 of "<t>.<body>" and compares it with the header's v1. */
export function hmacMatches(secret: string, header: string, body: string): boolean {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
  if (!match) return false;
  const expected = createHmac('sha256', secret).update(`${match[1]}.${body}`).digest();
  return timingSafeEqual(expected, Buffer.from(match[2] ?? '', 'hex'));
}
