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

/**
 * A prefixed, time-sortable id (ULID-like: 10 characters of milliseconds, then 16 random).
 * `at` lets a record carry the same millisecond as its created_at, so ordering by id equals
 * ordering by (created_at, id).
 */
export function newId(kind: IdKind, at: number = Date.now()): string {
  const bytes = randomBytes(10);
  let rand = '';
  for (let i = 0; i < 16; i++) {
    // 80 random bits → 16 base-32 characters (5 bits each).
    const bit = i * 5;
    const byte = bit >> 3;
    const shift = bit & 7;
    const word = ((bytes[byte] ?? 0) << 8) | (bytes[byte + 1] ?? 0);
    rand += CROCKFORD[(word >> (11 - shift)) & 31];
  }
  return `${ID_PREFIX[kind]}_${encodeTime(at)}${rand}`;
}
