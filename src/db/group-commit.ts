/**
 * Group commit for device reports. On SQLite, where one writer serves every transaction in turn, units of
 * work that arrive while a transaction is running wait, and then run together in the next transaction,
 * each inside its own savepoint. A unit that fails is rolled back to its savepoint alone (it stores nothing) and the
 * others go on; a unit's caller is answered only after the transaction that holds it has committed, so
 * nothing acknowledged can be lost. One commit then writes the pages several reports share (the readings
 * table's last page, index pages, the WAL frame headers) once instead of once per report.
 *
 * A lone unit runs in a transaction of its own, as `inTransaction` would, one event-loop turn later (the
 * turn in which requests that arrived with it are read and join it); groups form only under concurrency
 * and hold at most MAX_GROUP units. Units must be short (device reports): a unit waits for the
 * others of its group. PostgreSQL groups too, differently (PgGroupCommitter below). Inside a caller's
 * transaction the unit simply joins it.
 */
import { type Kysely, sql } from 'kysely';
import { isPostgres } from './engine.ts';
import type { DB, Db, Trx } from './schema.ts';
import { inTransaction } from './transaction.ts';

/** Units per transaction at most: bounds how long the first of a group waits for the last. */
export const MAX_GROUP = 64;

interface Unit {
  fn: (trx: Trx) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
  outcome: { ok: true; value: unknown } | { ok: false; error: unknown } | null;
}

class GroupCommitter {
  readonly #db: Kysely<DB>;
  #queue: Unit[] = [];
  #running = false;
  constructor(db: Kysely<DB>) {
    this.#db = db;
  }

  run<T>(fn: (trx: Trx) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ fn, resolve: resolve as (value: unknown) => void, reject, outcome: null });
      if (this.#running) return;
      this.#running = true;
      // node:sqlite runs a whole transaction without giving the event loop a turn, so no request can
      // arrive while one runs: groups would never form. Starting after the loop's I/O phase instead lets
      // every report whose request was read in this turn join the group.
      setImmediate(() => void this.#drain());
    });
  }

  async #drain(): Promise<void> {
    try {
      while (this.#queue.length > 0) await this.#commitGroup(this.#queue.splice(0, MAX_GROUP));
    } finally {
      this.#running = false;
    }
  }

  async #commitGroup(group: Unit[]): Promise<void> {
    try {
      // A retried transaction (SQLite busy at BEGIN) runs every unit again from the start.
      await inTransaction(this.#db, async (trx) => {
        for (const unit of group) {
          await sql`savepoint group_unit`.execute(trx);
          try {
            unit.outcome = { ok: true, value: await unit.fn(trx) };
            await sql`release group_unit`.execute(trx);
          } catch (error) {
            unit.outcome = { ok: false, error };
            await sql`rollback to group_unit`.execute(trx);
            await sql`release group_unit`.execute(trx);
          }
        }
      });
    } catch (error) {
      for (const unit of group) unit.reject(error);
      return;
    }
    for (const unit of group) {
      if (unit.outcome?.ok) unit.resolve(unit.outcome.value);
      else unit.reject(unit.outcome?.error ?? new Error('unit of work did not run'));
    }
  }
}

/**
 * PostgreSQL: several transactions run side by side on the pool, but each costs a BEGIN and a COMMIT (two
 * round trips, and the COMMIT waits for the WAL flush) besides its own statements. Units that arrive
 * together therefore share one transaction here too, optimistically and without savepoints (each would
 * cost two more round trips): when every unit of the group succeeds, one COMMIT stores them all; when one
 * fails, the whole transaction is rolled back, the units before it run again together, it runs alone (its
 * caller gets the answer it would have got alone) and the units after it go on together, in order. A unit
 * may therefore run more than once and must keep its effects inside the transaction (as `inTransaction`
 * already requires for its retries).
 *
 * Units go to one of PG_LANES lanes by their key (ingest: the device), each lane running one group at a
 * time on one pooled connection: a device's reports stay in order, and two groups of one process never
 * wait on each other's device rows.
 */
export const PG_LANES = 2;

class PgGroupCommitter {
  readonly #db: Kysely<DB>;
  readonly #lanes: Array<{ queue: Unit[]; running: boolean }>;
  constructor(db: Kysely<DB>, lanes: number) {
    this.#db = db;
    this.#lanes = Array.from({ length: lanes }, () => ({ queue: [], running: false }));
  }

  run<T>(fn: (trx: Trx) => Promise<T>, key: string): Promise<T> {
    const lane = this.#lanes[laneOf(key, this.#lanes.length)] as { queue: Unit[]; running: boolean };
    return new Promise<T>((resolve, reject) => {
      lane.queue.push({ fn, resolve: resolve as (value: unknown) => void, reject, outcome: null });
      if (lane.running) return;
      lane.running = true;
      // As on SQLite: every unit whose request was read in this turn joins the first group.
      setImmediate(() => void this.#drain(lane));
    });
  }

  async #drain(lane: { queue: Unit[]; running: boolean }): Promise<void> {
    try {
      while (lane.queue.length > 0) await this.#commitGroup(lane.queue.splice(0, MAX_GROUP));
    } finally {
      lane.running = false;
    }
  }

  async #commitGroup(group: Unit[]): Promise<void> {
    const [first] = group;
    if (group.length === 1 && first) return this.#commitAlone(first);
    let reached = 0;
    try {
      await inTransaction(this.#db, async (trx) => {
        for (reached = 0; reached < group.length; reached++) {
          const unit = group[reached] as Unit;
          unit.outcome = { ok: true, value: await unit.fn(trx) };
        }
      });
    } catch {
      // Nothing of the group was stored. When a unit failed, the units before it run again together, it
      // alone (so its caller gets its own answer) and the rest together: one bad report costs its group a
      // second try, not a transaction for every report. When the commit itself failed, each runs alone.
      const failed = group[reached];
      if (!failed) {
        for (const unit of group) await this.#commitAlone(unit);
        return;
      }
      if (reached > 0) await this.#commitGroup(group.slice(0, reached));
      await this.#commitAlone(failed);
      if (reached + 1 < group.length) await this.#commitGroup(group.slice(reached + 1));
      return;
    }
    for (const unit of group) unit.resolve((unit.outcome as { value: unknown }).value);
  }

  async #commitAlone(unit: Unit): Promise<void> {
    try {
      unit.resolve(await inTransaction(this.#db, unit.fn));
    } catch (error) {
      unit.reject(error);
    }
  }
}

/** A lane for `key`: the same key always the same lane. */
export function laneOf(key: string, lanes: number): number {
  let hash = 0;
  for (let i = 0; i < key.length; i++) hash = (hash * 31 + key.charCodeAt(i)) | 0;
  return Math.abs(hash) % lanes;
}

const committers = new WeakMap<Kysely<DB>, GroupCommitter>();
const pgCommitters = new WeakMap<Kysely<DB>, PgGroupCommitter>();

/**
 * Runs `fn` all or nothing and answers once it is committed, possibly together with other units (see
 * above); inside the caller's transaction when `db` is one. `key` keeps units of one key (a device) in
 * order on PostgreSQL.
 */
export function inGroupTransaction<T>(db: Db, fn: (trx: Trx) => Promise<T>, key = ''): Promise<T> {
  if (db.isTransaction) return inTransaction(db, fn);
  const root = db as Kysely<DB>;
  if (isPostgres(root)) {
    let committer = pgCommitters.get(root);
    if (!committer) {
      committer = new PgGroupCommitter(root, PG_LANES);
      pgCommitters.set(root, committer);
    }
    return committer.run(fn, key);
  }
  let committer = committers.get(root);
  if (!committer) {
    committer = new GroupCommitter(root);
    committers.set(root, committer);
  }
  return committer.run(fn);
}
