/**
 * Where the rate limiter (rate-limit.ts) keeps its counts: in this process (SQLite), or in the
 * rate_limit_counters table every process on one PostgreSQL shares (its statements are here, the table's
 * only reader and writer).
 */
import type { FastifyBaseLogger } from 'fastify';
import { sql } from 'kysely';
import type { Db } from '../db/schema.ts';

export interface WindowCount {
  count: number;
  /** Epoch ms when the window ends. */
  resetAt: number;
}

export interface RateLimitStore {
  /** Counts one more request in the bucket's current window (limit: the bucket's) and returns the count so far. */
  hit(bucket: string, windowStart: number, windowMs: number, limit: number): Promise<WindowCount>;
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
/** How often a process adds its counts to the shared table (PostgreSQL), in ms. */
export const RATE_LIMIT_SYNC_MS = 1_000;

/** A bucket's count in this process: the shared total last seen, and what was counted here since. */
interface Tally {
  windowStart: number;
  shared: number;
  pending: number;
  /** Epoch ms `shared` was read from the table. */
  syncedAt: number;
}

/**
 * Counts in the rate_limit_counters table, shared by every process on one PostgreSQL database (one row per
 * bucket, reset when a new window starts), without a statement per request: a process counts in the table
 * on a bucket's first request in a window, then counts locally and adds its counts to the table every
 * RATE_LIMIT_SYNC_MS (one statement for all buckets), learning the others' counts in return. A request is
 * admitted locally only while that shared total is younger than the sync interval and the local estimate
 * stays within the limit; otherwise it is counted in the table at once, so a refusal always rests on every
 * process's count. A key can therefore pass its limit only by what the other processes admitted within
 * about the last second. Old rows are swept now and then.
 */
export class TableStore implements RateLimitStore {
  private lastSweep = 0;
  private readonly db: Db;
  private readonly log: FastifyBaseLogger;
  private readonly tallies = new Map<string, Tally>();
  private timer: NodeJS.Timeout | null = null;
  constructor(db: Db, log: FastifyBaseLogger) {
    this.db = db;
    this.log = log;
  }

  async hit(bucket: string, windowStart: number, windowMs: number, limit: number): Promise<WindowCount> {
    this.maybeSweep(windowStart, windowMs);
    const resetAt = windowStart + windowMs;
    const tally = this.tallies.get(bucket);
    const now = Date.now();
    const fresh = tally && tally.windowStart === windowStart && now - tally.syncedAt < RATE_LIMIT_SYNC_MS;
    if (tally && fresh && tally.shared + tally.pending + 1 <= limit) {
      tally.pending += 1;
      this.scheduleSync();
      return { count: tally.shared + tally.pending, resetAt };
    }
    // A new bucket or window, a total older than the sync interval, or a request near the limit: count it
    // (and what is pending) in the table now.
    const known = tally && tally.windowStart === windowStart ? tally : null;
    const count = (known?.pending ?? 0) + 1;
    // Until the table answers, requests beside this one see the estimate (near the limit: they ask too).
    const next: Tally = { windowStart, shared: (known?.shared ?? 0) + count, pending: 0, syncedAt: now };
    this.tallies.set(bucket, next);
    const [row] = await this.add([{ bucket, window_start: windowStart, count }]);
    if (row?.window_start === windowStart) next.shared = row.count;
    return { count: next.shared + next.pending, resetAt };
  }

  /** Adds counts to the shared rows; returns each row's total after. Rows in bucket order (lock order). */
  private async add(rows: Array<{ bucket: string; window_start: number; count: number }>) {
    const sorted = rows.toSorted((a, b) => (a.bucket < b.bucket ? -1 : a.bucket > b.bucket ? 1 : 0));
    const out = await this.db
      .insertInto('rate_limit_counters')
      .values(sorted)
      .onConflict((oc) =>
        oc.column('bucket').doUpdateSet({
          // Same window: add. A newer window starts over. Late counts of an older window are dropped.
          count: sql`case when rate_limit_counters.window_start = excluded.window_start then rate_limit_counters.count + excluded.count when excluded.window_start > rate_limit_counters.window_start then excluded.count else rate_limit_counters.count end`,
          window_start: sql`greatest(rate_limit_counters.window_start, excluded.window_start)`,
        }),
      )
      .returning(['bucket', 'count', 'window_start'])
      .execute();
    return out.map((r) => ({
      bucket: r.bucket,
      count: Number(r.count),
      window_start: Number(r.window_start),
    }));
  }

  private scheduleSync(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.sync().catch((err) => this.log.warn({ err }, 'could not add rate-limit counts to the table'));
    }, RATE_LIMIT_SYNC_MS);
    this.timer.unref();
  }

  /** Adds every bucket's pending count to the table and takes the shared totals back. */
  async sync(): Promise<void> {
    const rows = [];
    for (const [bucket, tally] of this.tallies) {
      if (tally.pending === 0) continue;
      rows.push({ bucket, window_start: tally.windowStart, count: tally.pending });
      tally.shared += tally.pending;
      tally.pending = 0;
    }
    if (rows.length === 0) return;
    for (const row of await this.add(rows)) {
      const tally = this.tallies.get(row.bucket);
      if (tally && tally.windowStart === row.window_start) {
        tally.shared = Math.max(tally.shared, row.count);
        tally.syncedAt = Date.now();
      }
    }
  }

  /** Stops the sync timer; the last second's local counts are not carried over (they expire anyway). */
  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private maybeSweep(windowStart: number, windowMs: number): void {
    if (windowStart - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = windowStart;
    for (const [bucket, tally] of this.tallies)
      if (tally.windowStart < windowStart) this.tallies.delete(bucket);
    this.db
      .deleteFrom('rate_limit_counters')
      .where('window_start', '<', windowStart - windowMs)
      .execute()
      .catch((err) => this.log.warn({ err }, 'could not sweep rate-limit counters'));
  }
}
