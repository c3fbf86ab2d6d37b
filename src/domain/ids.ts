/**
 * Record ids: the record kind's prefix (record-kinds.ts) and a time-sortable body. In the domain, beside the
 * prefixes it reads; Web Crypto's random values keep it free of Node-only imports, as the domain files are.
 */
import { RECORD_KINDS, type RecordKind } from './record-kinds.ts';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

function encodeTime(ms: number): string {
  let out = '';
  let n = ms;
  for (let i = 0; i < 10; i++) {
    out = CROCKFORD[n % 32] + out;
    n = Math.floor(n / 32);
  }
  return out;
}

const RANDOM_BITS = 80n;
const RANDOM_MAX = (1n << RANDOM_BITS) - 1n;
let lastAt = -1;
let lastRandom = 0n;

function randomPart(at: number): bigint {
  // Within one millisecond the random part counts up (as in monotonic ULIDs), so ids made in the same
  // millisecond by this process still sort in the order they were made.
  if (at === lastAt && lastRandom < RANDOM_MAX) {
    lastRandom += 1n;
    return lastRandom;
  }
  lastAt = at;
  const bytes = crypto.getRandomValues(new Uint8Array(10));
  lastRandom = bytes.reduce((n, byte) => (n << 8n) | BigInt(byte), 0n) >> 1n; // leave headroom to count up
  return lastRandom;
}

/**
 * A prefixed, time-sortable id (ULID-like: 10 characters of milliseconds, then 16 of randomness that
 * count up within a millisecond). `at` lets a record carry the same millisecond as its created_at, so
 * ordering by id equals ordering by (created_at, id).
 */
export function newId(kind: RecordKind, at: number = Date.now()): string {
  let n = randomPart(at);
  let rand = '';
  for (let i = 0; i < 16; i++) {
    rand = CROCKFORD[Number(n & 31n)] + rand;
    n >>= 5n;
  }
  return `${RECORD_KINDS[kind].prefix}_${encodeTime(at)}${rand}`;
}
