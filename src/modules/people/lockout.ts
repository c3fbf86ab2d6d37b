/**
 * Sign-in lock-out, kept in the database (sign_in_failures) so every process on one PostgreSQL sees the
 * same counts. Failures are counted per email and per client address (IPv6 by its /64):
 *  - the first few failures cost nothing more than the password check;
 *  - after that each further attempt must wait, doubling: 1 s, 2 s, 4 s… after the last failure;
 *  - at the refusal threshold the bucket is refused for LOCK_MS after its last failure.
 * Refused attempts answer 429 `rate_limited` with Retry-After and are not counted (nor checked: the right
 * password is refused too while locked). A bucket is forgotten FORGET_MS after its last failure; a
 * successful sign-in clears its email's failures; the `people.prune` job removes forgotten buckets. The
 * statements are repository.ts's.
 */
import type { Db } from '../../db/schema.ts';
import { AppError } from '../../domain/errors.ts';
import { addressBucket } from '../../lib/address-bucket.ts';
import { MINUTE_MS } from '../../lib/time.ts';
import { countSignInFailure, deleteSignInFailures, signInFailures } from './repository.ts';

export interface LockoutRule {
  /** Failures that cost nothing more. */
  free: number;
  /** At this many failures the bucket is refused for LOCK_MS. */
  refuseAt: number;
}

/** One email: a person mistyping a few times is never held up; a guesser is stopped after ten. */
export const EMAIL_RULE: LockoutRule = { free: 5, refuseAt: 10 };
/** One address: more room, since a farm's crew may share one address behind NAT. */
export const ADDRESS_RULE: LockoutRule = { free: 20, refuseAt: 50 };
export const LOCK_MS = 15 * MINUTE_MS;
export const FORGET_MS = 15 * MINUTE_MS;

export interface Buckets {
  email: string;
  address: string;
}

export function bucketsOf(email: string, address: string): Buckets {
  return { email: `email:${email}`, address: `ip:${addressBucket(address)}` };
}

/** Epoch ms before which a bucket with `count` failures, the last at `lastAt`, refuses attempts. */
export function refusedUntil(rule: LockoutRule, count: number, lastAt: number): number {
  if (count >= rule.refuseAt) return lastAt + LOCK_MS;
  if (count >= rule.free) return lastAt + 1_000 * 2 ** (count - rule.free);
  return 0;
}

/** Refuses (429 with Retry-After seconds in `retryAfter`) while either bucket is held back. */
export async function checkLockout(db: Db, buckets: Buckets, now: number): Promise<void> {
  const rows = await signInFailures(db, [buckets.email, buckets.address], now - FORGET_MS);
  let until = 0;
  for (const row of rows) {
    const rule = row.bucket === buckets.email ? EMAIL_RULE : ADDRESS_RULE;
    until = Math.max(until, refusedUntil(rule, row.count, row.lastAt));
  }
  if (until > now) throw new LockedOut(Math.max(1, Math.ceil((until - now) / 1_000)));
}

export class LockedOut extends AppError {
  readonly retryAfter: number;
  constructor(retryAfter: number) {
    super(
      'rate_limited',
      `Too many failed sign-ins for this email or from this address. Try again in ${retryAfter} s.`,
    );
    this.retryAfter = retryAfter;
  }
}

/** Counts one failure in both buckets (a new count once the previous one is forgotten). */
export async function recordFailure(db: Db, buckets: Buckets, now: number): Promise<void> {
  for (const bucket of [buckets.email, buckets.address]) {
    await countSignInFailure(db, bucket, now, now - FORGET_MS);
  }
}

/** A successful sign-in clears the email's failures (the address keeps its own). */
export async function clearFailures(db: Db, buckets: Buckets): Promise<void> {
  await deleteSignInFailures(db, buckets.email);
}
