/**
 * Group commit for SQLite, where one writer serves every transaction in turn: units of work that arrive
 * while a transaction is running wait, and then run together in the next transaction, each inside its
 * own savepoint. A unit that fails is rolled back to its savepoint alone (it stores nothing) and the
 * others go on; a unit's caller is answered only after the transaction that holds it has committed, so
 * nothing acknowledged can be lost. One commit then writes the pages several reports share (the readings
 * table's last page, index pages, the WAL frame headers) once instead of once per report.
 *
 * A lone unit runs in a transaction of its own, as `inTransaction` would, one event-loop turn later (the
 * turn in which requests that arrived with it are read and join it); groups form only under concurrency
 * and hold at most MAX_GROUP units. Units must be short (device reports): a unit waits for the
 * others of its group. PostgreSQL runs transactions side by side on a pool: there each unit is its own
 * transaction. Inside a caller's transaction the unit simply joins it.
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

const committers = new WeakMap<Kysely<DB>, GroupCommitter>();

/**
 * Runs `fn` all or nothing and answers once it is committed: on SQLite possibly together with other units
 * (see above), on PostgreSQL in a transaction of its own, inside the caller's transaction when `db` is one.
 */
export function inGroupTransaction<T>(db: Db, fn: (trx: Trx) => Promise<T>): Promise<T> {
  if (db.isTransaction || isPostgres(db)) return inTransaction(db, fn);
  const root = db as Kysely<DB>;
  let committer = committers.get(root);
  if (!committer) {
    committer = new GroupCommitter(root);
    committers.set(root, committer);
  }
  return committer.run(fn);
}
