/**
 * Rate limits in fixed windows: per API key, per device key, and per client address for failed
 * authentication. One small limiter rather than @fastify/rate-limit: that plugin counts every request per
 * route before authentication, while these limits count per key after it, and count only failures for
 * addresses.
 *
 * Answers carry the IETF draft headers (draft-ietf-httpapi-ratelimit-headers-07): RateLimit-Limit,
 * RateLimit-Remaining, RateLimit-Reset (seconds) and RateLimit-Policy (`1200;w=60`); a refusal is
 * `429 rate_limited` with Retry-After.
 */
import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import { sql } from 'kysely';
import type { Config } from '../config.ts';
import type { Db } from '../db/schema.ts';
import { AppError } from './errors.ts';

export interface WindowCount {
  count: number;
  /** Epoch ms when the window ends. */
  resetAt: number;
}

export interface RateLimitStore {
  /** Counts one more request in the bucket's current window and returns the count so far. */
  hit(bucket: string, windowStart: number, windowMs: number): Promise<WindowCount>;
}

/** Counts in this process (SQLite serves from one process). */
export class MemoryStore implements RateLimitStore {
  private readonly windows = new Map<string, { start: number; count: number }>();
  private sweptAt = 0;

  async hit(bucket: string, windowStart: number, windowMs: number): Promise<WindowCount> {
    const entry = this.windows.get(bucket);
    const count = entry && entry.start === windowStart ? entry.count + 1 : 1;
    if (!entry) this.sweep(windowStart);
    this.windows.set(bucket, { start: windowStart, count });
    return { count, resetAt: windowStart + windowMs };
  }

  /** Drops past windows once the map grows, so many one-off addresses cannot grow it without end. */
  private sweep(windowStart: number): void {
    if (this.windows.size < 10_000 || this.sweptAt === windowStart) return;
    this.sweptAt = windowStart;
    for (const [bucket, entry] of this.windows) if (entry.start < windowStart) this.windows.delete(bucket);
  }
}

const SWEEP_EVERY_MS = 5 * 60_000;

/**
 * Counts in the rate_limit_counters table, shared by every process on one PostgreSQL database: one row per
 * bucket, reset by the upsert when a new window starts. Old rows are swept now and then.
 */
export class TableStore implements RateLimitStore {
  private lastSweep = 0;
  private readonly db: Db;
  private readonly log: FastifyBaseLogger;
  constructor(db: Db, log: FastifyBaseLogger) {
    this.db = db;
    this.log = log;
  }

  async hit(bucket: string, windowStart: number, windowMs: number): Promise<WindowCount> {
    this.maybeSweep(windowStart, windowMs);
    const row = await this.db
      .insertInto('rate_limit_counters')
      .values({ bucket, window_start: windowStart, count: 1 })
      .onConflict((oc) =>
        oc.column('bucket').doUpdateSet({
          count: sql`case when rate_limit_counters.window_start = excluded.window_start then rate_limit_counters.count + 1 else 1 end`,
          window_start: sql`excluded.window_start`,
        }),
      )
      .returning(['count', 'window_start'])
      .executeTakeFirstOrThrow();
    return { count: Number(row.count), resetAt: Number(row.window_start) + windowMs };
  }

  private maybeSweep(windowStart: number, windowMs: number): void {
    if (windowStart - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = windowStart;
    this.db
      .deleteFrom('rate_limit_counters')
      .where('window_start', '<', windowStart - windowMs)
      .execute()
      .catch((err) => this.log.warn({ err }, 'could not sweep rate-limit counters'));
  }
}

export type LimitKind = 'api' | 'device' | 'session';

/**
 * The bucket of a client address: IPv4 as is (also when IPv4-mapped), IPv6 by its /64, since one client
 * usually holds a whole /64 and could otherwise take a fresh address for every few guesses.
 */
export function addressBucket(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return mapped[1];
  if (!address.includes(':')) return address;
  const bare = address.replace(/%.*$/, '').toLowerCase();
  const [head = '', tail = ''] = bare.split('::');
  const front = head ? head.split(':') : [];
  const back = tail ? tail.split(':') : [];
  const groups = bare.includes('::')
    ? [...front, ...Array<string>(Math.max(0, 8 - front.length - back.length)).fill('0'), ...back]
    : front;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

const WHAT: Record<LimitKind, string> = {
  api: 'this API key',
  device: 'this device key',
  session: "this account's console sessions",
};

export class RateLimiter {
  private readonly store: RateLimitStore;
  private readonly config: Pick<
    Config,
    'rateLimitWindowMs' | 'rateLimitApiKey' | 'rateLimitDeviceKey' | 'rateLimitAuthFailures'
  >;
  private readonly log: FastifyBaseLogger;
  private readonly clock: () => number;

  constructor(
    store: RateLimitStore,
    config: RateLimiter['config'],
    log: FastifyBaseLogger,
    clock: () => number = Date.now,
  ) {
    this.store = store;
    this.config = config;
    this.log = log;
    this.clock = clock;
  }

  private window(): { start: number; now: number } {
    const now = this.clock();
    return { now, start: now - (now % this.config.rateLimitWindowMs) };
  }

  /** Counts a request of a key; over the limit it is refused with 429. Headers say where the key stands. */
  async hitKey(kind: LimitKind, id: string, reply: FastifyReply): Promise<void> {
    const max = kind === 'device' ? this.config.rateLimitDeviceKey : this.config.rateLimitApiKey;
    const { start, now } = this.window();
    const counted = await this.guard(() =>
      this.store.hit(`${kind}:${id}`, start, this.config.rateLimitWindowMs),
    );
    if (!counted) return;
    const reset = this.headers(reply, max, counted, now);
    if (counted.count > max) throw this.refusal(reply, reset, `Too many requests with ${WHAT[kind]}`, max);
  }

  /**
   * Counts a failed authentication from an address. Past the limit the failure answers 429 instead of 401,
   * so guessing keys is throttled while valid keys from the same address (a farm behind one NAT) still work
   * and a successful request costs no extra lookup.
   */
  async failedAuthentication(address: string, reply: FastifyReply): Promise<void> {
    const max = this.config.rateLimitAuthFailures;
    const { start, now } = this.window();
    const bucket = `auth:${addressBucket(address)}`;
    const failures = await this.guard(() => this.store.hit(bucket, start, this.config.rateLimitWindowMs));
    if (!failures || failures.count <= max) return;
    const reset = this.headers(reply, max, failures, now);
    throw this.refusal(reply, reset, 'Too many failed authentications from this address', max);
  }

  /** A store that cannot count (database unreachable) lets requests through rather than failing them. */
  private async guard(fn: () => Promise<WindowCount>): Promise<WindowCount | null> {
    try {
      return await fn();
    } catch (err) {
      this.log.warn({ err }, 'rate-limit store unavailable; request not limited');
      return null;
    }
  }

  private headers(reply: FastifyReply, max: number, counted: WindowCount, now: number): number {
    const reset = Math.max(1, Math.ceil((counted.resetAt - now) / 1_000));
    reply.header('ratelimit-limit', max);
    reply.header('ratelimit-remaining', Math.max(0, max - counted.count));
    reply.header('ratelimit-reset', reset);
    reply.header('ratelimit-policy', `${max};w=${this.config.rateLimitWindowMs / 1_000}`);
    return reset;
  }

  private refusal(reply: FastifyReply, reset: number, what: string, max: number): AppError {
    reply.header('retry-after', reset);
    return new AppError(
      'rate_limited',
      `${what}: at most ${max} per ${this.config.rateLimitWindowMs / 1_000} s. Retry after ${reset} s.`,
    );
  }
}
