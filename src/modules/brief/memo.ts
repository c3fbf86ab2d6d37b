/**
 * The brief's reads, memoised per farm while the database has not changed. Many clients asking for one
 * farm's brief at once (a console on every phone, an agent polling) then cost one set of reads instead of
 * one each; the ranking and wording still run per request with the real "now", so the answer is exactly the
 * one a fresh read would give.
 *
 * Validity is the database's own notion of "nothing committed since" (db/data-version.ts), read before the
 * facts are: a write anywhere in the database (cluster) invalidates every farm's entry. Inside a transaction
 * nothing is memoised (its own writes are not committed yet).
 */
import type { Db } from '../../db/schema.ts';

/** Farms remembered per database; the least recently stored entry goes first. */
const MEMO_FARMS = 1_000;

interface Entry<T> {
  key: string;
  value: Promise<T>;
}

/**
 * Facts per farm under a key (the data version and whatever else the reads depend on). Concurrent misses
 * with the same key share one read; a failed read is forgotten.
 */
export class FarmMemo<T> {
  readonly #byDb = new WeakMap<Db, Map<string, Entry<T>>>();

  async get(db: Db, farmId: string, key: string, read: () => Promise<T>): Promise<T> {
    let farms = this.#byDb.get(db);
    if (!farms) {
      farms = new Map();
      this.#byDb.set(db, farms);
    }
    const known = farms.get(farmId);
    if (known && known.key === key) return known.value;
    const value = read();
    const entry = { key, value };
    farms.delete(farmId);
    if (farms.size >= MEMO_FARMS) farms.delete(farms.keys().next().value as string);
    farms.set(farmId, entry);
    value.catch(() => {
      if (farms.get(farmId) === entry) farms.delete(farmId);
    });
    return value;
  }
}

/** How long a built brief is served again while nothing is committed: its clock-derived parts age this much. */
export const BRIEF_REUSE_MS = 1_000;

interface Built<T> {
  version: string;
  at: number;
  value: T;
}

/**
 * Built briefs per farm, served again for BRIEF_REUSE_MS while the data version is unchanged: a crowd of
 * clients asking within the same second get the brief built for the first (its `generated_at` says when).
 * Any commit makes the next request build afresh, so a write always shows in the next brief.
 */
export class RecentBuilds<T> {
  readonly #byDb = new WeakMap<Db, Map<string, Built<T>>>();

  get(db: Db, farmId: string, version: string, now: number): T | undefined {
    const hit = this.#byDb.get(db)?.get(farmId);
    if (!hit || hit.version !== version) return undefined;
    return now >= hit.at && now - hit.at < BRIEF_REUSE_MS ? hit.value : undefined;
  }

  set(db: Db, farmId: string, version: string, now: number, value: T): void {
    let farms = this.#byDb.get(db);
    if (!farms) {
      farms = new Map();
      this.#byDb.set(db, farms);
    }
    farms.delete(farmId);
    if (farms.size >= MEMO_FARMS) farms.delete(farms.keys().next().value as string);
    farms.set(farmId, { version, at: now, value });
  }
}
