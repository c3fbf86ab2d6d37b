import { randomBytes } from 'node:crypto';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/** Id prefixes, one per record kind, so an id says what it names. */
export const ID_PREFIX = {
  account: 'acct',
  key: 'key',
  farm: 'farm',
  animal: 'ani',
  group: 'grp',
  paddock: 'pad',
  device: 'dev',
  command: 'cmd',
  alert: 'alt',
  task: 'task',
  event: 'evt',
  webhook: 'wh',
  delivery: 'dlv',
  outbox: 'msg',
  rule: 'rule',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

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
  lastRandom = BigInt(`0x${randomBytes(10).toString('hex')}`) >> 1n; // leave headroom to count up
  return lastRandom;
}

/**
 * A prefixed, time-sortable id (ULID-like: 10 characters of milliseconds, then 16 of randomness that
 * count up within a millisecond). `at` lets a record carry the same millisecond as its created_at, so
 * ordering by id equals ordering by (created_at, id).
 */
export function newId(kind: IdKind, at: number = Date.now()): string {
  let n = randomPart(at);
  let rand = '';
  for (let i = 0; i < 16; i++) {
    rand = CROCKFORD[Number(n & 31n)] + rand;
    n >>= 5n;
  }
  return `${ID_PREFIX[kind]}_${encodeTime(at)}${rand}`;
}
