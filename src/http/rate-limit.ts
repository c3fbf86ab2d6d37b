/**
 * Rate limits in fixed windows: per API key, per device key, and per client address for failed
 * authentication. One small limiter rather than @fastify/rate-limit: that plugin counts every request per
 * route before authentication, while these limits count per key after it, and count only failures for
 * addresses.
 *
 * Answers carry the IETF draft headers (draft-ietf-httpapi-ratelimit-headers-07): RateLimit-Limit,
 * RateLimit-Remaining, RateLimit-Reset (seconds) and RateLimit-Policy (`1200;w=60`); a refusal is
 * `429 rate_limited` with Retry-After. Where the counts are kept (this process, or a table every process
 * shares): rate-limit-store.ts.
 */
import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import type { Config } from '../config.ts';
import { AppError } from '../domain/errors.ts';
import { addressBucket } from '../lib/address-bucket.ts';
import type { RateLimitStore, WindowCount } from './rate-limit-store.ts';

export type LimitKind = 'api' | 'device' | 'session';

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
      this.store.hit(`${kind}:${id}`, start, this.config.rateLimitWindowMs, max),
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
    const failures = await this.guard(() =>
      this.store.hit(bucket, start, this.config.rateLimitWindowMs, max),
    );
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
