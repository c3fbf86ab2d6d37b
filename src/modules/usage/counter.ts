/**
 * Counts authenticated calls by account, day (UTC) and surface without a write per request: counts
 * gather in memory and are added to the database in one batch every few seconds (and on shutdown).
 * The write is an additive upsert, so several processes sharing one PostgreSQL stay exact.
 */
import type { Db } from '../../db/schema.ts';
import type { Surface } from '../../domain/usage.ts';
import { addUsageCounts } from './repository.ts';

export class UsageCounter {
  private pending = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private readonly db: Db;
  /** The UTC day of the last count, as a day number and as text: one Date and ISO string a day, not a call. */
  private day = { number: Number.NaN, text: '' };

  constructor(db: Db, flushEveryMs: number) {
    this.db = db;
    this.timer = setInterval(() => void this.flush().catch(() => {}), flushEveryMs);
    this.timer.unref();
  }

  count(accountId: string, surface: Surface, at: number = Date.now()): void {
    const number = Math.floor(at / 86_400_000);
    if (number !== this.day.number) {
      this.day = { number, text: new Date(number * 86_400_000).toISOString().slice(0, 10) };
    }
    const key = `${accountId}|${this.day.text}|${surface}`;
    this.pending.set(key, (this.pending.get(key) ?? 0) + 1);
  }

  /** Writes what has gathered; concurrent callers wait for the same write. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.write());
    return this.flushing;
  }

  private async write(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    const rows = [...batch].map(([key, count]) => {
      const [account_id, day, surface] = key.split('|') as [string, string, string];
      return { account_id, day, surface, count };
    });
    try {
      await addUsageCounts(this.db, rows);
    } catch (err) {
      // Put the counts back so a passing failure loses nothing.
      for (const [key, count] of batch) this.pending.set(key, (this.pending.get(key) ?? 0) + count);
      throw err;
    }
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }
}
