import { createHash, randomBytes, randomFillSync, timingSafeEqual } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// CSPRNG bytes drawn a few kilobytes at a time (as Node's randomUUID does): a request id per request no
// longer costs a call into the random generator and a fresh buffer each.
const pool = Buffer.alloc(4096);
let poolAt = pool.length;

function randomByte(): number {
  if (poolAt === pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  return pool[poolAt++] as number;
}

/** `length` characters of base62 from a CSPRNG (rejection sampling keeps it unbiased); 32 characters ≈ 190 bits. */
export function randomToken(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
}

/**
 * Secrets are random and long, so a fast one-way hash is the right store: a slow password hash would
 * only cost latency on every request without adding safety to 190-bit tokens.
 */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/**
 * Whether a secret that was sent equals the one expected, in time that does not depend on where they
 * first differ (so an attacker cannot find it byte by byte). Strings are compared as their UTF-8 bytes.
 * Only the length can leak, and it is no secret: every kind of token here has a fixed length or is a
 * hash of one.
 */
export function sameSecret(sent: string | Uint8Array, expected: string | Uint8Array): boolean {
  const a = typeof sent === 'string' ? Buffer.from(sent) : sent;
  const b = typeof expected === 'string' ? Buffer.from(expected) : expected;
  // timingSafeEqual throws on different lengths: unequal, without a comparison.
  return a.length === b.length && timingSafeEqual(a, b);
}

export type KeyMode = 'live' | 'test';

export function newApiKey(mode: KeyMode): { key: string; prefix: string; hash: string } {
  const key = `rk_${mode}_${randomToken(32)}`;
  return { key, prefix: key.slice(0, 12), hash: hashSecret(key) };
}

export function newDeviceKey(): { key: string; prefix: string; hash: string } {
  const key = `rd_${randomToken(32)}`;
  return { key, prefix: key.slice(0, 7), hash: hashSecret(key) };
}

/**
 * Webhook signing secrets: 32 bytes (256 bits), shown once. Standard base64 after `whsec_`, as Standard
 * Webhooks defines the secret, so its libraries decode it (earlier secrets were URL-safe base64).
 */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}
