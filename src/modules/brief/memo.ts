/**
 * The brief's reads, memoised per farm while the database has not changed. Many clients asking for one
 * farm's brief at once (a console on every phone, an agent polling) then cost one set of reads instead of
 * one each; the ranking and wording still run per request with the real "now", so the answer is exactly the
 * one a fresh read would give.
 *
 * Validity is the database's own notion of "nothing committed since", read before the facts are:
 * - SQLite: `data_version` of the read connection, which changes whenever any other connection (this
 *   process's writer, a CLI, another process) commits.
 * - PostgreSQL: the current snapshot (`xmin:xmax:in-progress list`); it is unchanged only while no
 *   transaction of the cluster has started writing or committed, so equal snapshots see equal data, in
 *   every process.
 * A write anywhere in the database (cluster) invalidates every farm's entry: coarse, but exact without any
 * cost to writers. Inside a transaction nothing is memoised (its own writes are not committed yet).
 */
import { sql } from 'kysely';
import { isPostgres } from '../../db/engine.ts';
import type { Db } from '../../db/schema.ts';

/** Farms remembered per database; the least recently stored entry goes first. */
const MEMO_FARMS = 1_000;

/** A token that is equal on two reads only if nothing was committed in between. */
export async function dataVersion(db: Db): Promise<string> {
  if (isPostgres(db)) {
    const { rows } = await sql<{ v: string }>`select pg_current_snapshot()::text as v`.execute(db);
    return rows[0]?.v ?? '';
  }
  const { rows } = await sql<{ v: number }>`select data_version as v from pragma_data_version`.execute(db);
  return String(rows[0]?.v ?? '');
}

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
