/**
 * Group commit for device reports: units of work that arrive while a group is being stored wait in a
 * lane, then run together in the lane's next transaction; a unit's caller is answered only after the
 * transaction that holds it has committed, so nothing acknowledged can be lost. A lone unit runs in a
 * transaction of its own, one event-loop turn later (the turn in which requests that arrived with it are
 * read and join it); groups form only under concurrency and hold at most MAX_GROUP units. Units must be
 * short (device reports): a unit waits for the others of its group. Inside a caller's transaction the unit
 * simply joins it. How a group is stored depends on the engine:
 *
 * - SQLite, where one writer serves every transaction in turn: one lane, its units one after another in
 *   one transaction, without savepoints: a savepoint makes SQLite copy every page the unit then changes
 *   into its statement journal (about 37 for a 100-reading report), and with its release it was two of a
 *   1-reading report's seven statements. When a unit fails, the transaction is rolled back and the group runs again in the
 *   same order with a savepoint per unit: the failing unit is rolled back to its savepoint alone (it stores
 *   nothing) and the others go on, so a failure costs its group one more run at most. One commit then
 *   writes the pages several reports share (the readings table's last page, index pages, the WAL frame
 *   headers) once instead of once per report.
 * - PostgreSQL, where each transaction costs a COMMIT (a round trip that waits for the WAL flush; its BEGIN
 *   travels with its first statement: pg-pipeline.ts) besides its own statements: PG_LANES lanes, chosen by
 *   the unit's key (ingest: the device), so a device's reports stay in order and two groups of one process
 *   never wait on each other's device rows. A group holds one unit per key (a device's next report waits
 *   for the next group), and its units run side by side, their hot statements made once for the whole group
 *   (statement-batch.ts). No savepoints (each would cost two more round trips): when every unit of the group
 *   succeeds, one COMMIT stores them all; when one fails, the whole transaction is rolled back, it runs again
 *   alone (its caller gets the answer it would have got alone), and so does every unit that failed with it in
 *   one batched statement, while the others run again together.
 *
 * A unit may therefore run more than once and must keep its effects inside the transaction (as
 * `inTransaction` already requires for its retries).
 */
import { CompiledQuery, type Kysely, sql } from 'kysely';
import { isPostgres } from './engine.ts';
import { GENERIC_PLANS } from './pg-pipeline.ts';
import type { DB, Db, Trx } from './schema.ts';
import { executeCompiled } from './sqlite-direct.ts';
import { StatementBatch, withStatementBatch } from './statement-batch.ts';
import { inTransaction } from './transaction.ts';

/** Units per transaction at most: bounds how long the first of a group waits for the last. */
export const MAX_GROUP = 64;

/** Lanes per PostgreSQL database and process: each holds a pooled connection while its group runs. */
export const PG_LANES = 2;

interface Unit {
  key: string;
  fn: (trx: Trx) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
  outcome: { ok: true; value: unknown } | { ok: false; error: unknown } | null;
}

type CommitGroup = (db: Kysely<DB>, group: Unit[]) => Promise<void>;

/** Units waiting for their group, stored one group at a time by `commitGroup`. */
class Lane {
  readonly #db: Kysely<DB>;
  readonly #commitGroup: CommitGroup;
  readonly #oneUnitPerKey: boolean;
  #queue: Unit[] = [];
  /** The drain storing the queue's groups, while one runs. */
  #draining: Promise<void> | null = null;
  constructor(db: Kysely<DB>, commitGroup: CommitGroup, oneUnitPerKey: boolean) {
    this.#db = db;
    this.#commitGroup = commitGroup;
    this.#oneUnitPerKey = oneUnitPerKey;
  }

  run<T>(key: string, fn: (trx: Trx) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ key, fn, resolve: resolve as (value: unknown) => void, reject, outcome: null });
      if (this.#draining) return;
      // node:sqlite runs a whole transaction without giving the event loop a turn, so no request can
      // arrive while one runs: groups would never form. Starting after the loop's I/O phase instead lets
      // every report whose request was read in this turn join the group.
      this.#draining = new Promise<void>((started) => setImmediate(started)).then(() => this.#drain());
    });
  }

  /** Resolves once every unit given so far (and any given meanwhile) has been stored or refused. */
  async settled(): Promise<void> {
    while (this.#draining) await this.#draining;
  }

  async #drain(): Promise<void> {
    try {
      while (this.#queue.length > 0) await this.#commitGroup(this.#db, this.#nextGroup());
    } finally {
      this.#draining = null;
    }
  }

  /** The next group: the first MAX_GROUP units, or (one unit per key) the first unit of each key. */
  #nextGroup(): Unit[] {
    if (!this.#oneUnitPerKey) return this.#queue.splice(0, MAX_GROUP);
    const group: Unit[] = [];
    const later: Unit[] = [];
    const keys = new Set<string>();
    let i = 0;
    for (; i < this.#queue.length && group.length < MAX_GROUP; i++) {
      const unit = this.#queue[i] as Unit;
      if (keys.has(unit.key)) later.push(unit);
      else {
        keys.add(unit.key);
        group.push(unit);
      }
    }
    this.#queue = i < this.#queue.length ? later.concat(this.#queue.slice(i)) : later;
    return group;
  }
}

const SAVEPOINT = CompiledQuery.raw('savepoint group_unit');
const RELEASE = CompiledQuery.raw('release group_unit');
const ROLLBACK_TO = CompiledQuery.raw('rollback to group_unit');

/**
 * SQLite: the units in turn in one transaction, no savepoints; when one fails, everything is rolled back and
 * the group runs again with savepoints (commitWithSavepoints).
 */
async function commitInTurn(db: Kysely<DB>, group: Unit[]): Promise<void> {
  const [first] = group;
  if (group.length === 1 && first) return commitAlone(db, first);
  let unitFailed = false;
  try {
    await inTransaction(db, async (trx) => {
      unitFailed = false;
      for (const unit of group) {
        try {
          unit.outcome = { ok: true, value: await unit.fn(trx) };
        } catch (error) {
          unitFailed = true;
          throw error;
        }
      }
    });
  } catch (error) {
    if (unitFailed) return commitWithSavepoints(db, group);
    // BEGIN or COMMIT failed: nothing of the group was stored.
    for (const unit of group) unit.reject(error);
    return;
  }
  for (const unit of group) unit.resolve((unit.outcome as { value: unknown }).value);
}

/** SQLite: one transaction, a savepoint per unit; a failed unit is rolled back alone. */
async function commitWithSavepoints(db: Kysely<DB>, group: Unit[]): Promise<void> {
  try {
    // A retried transaction (SQLite busy at BEGIN) runs every unit again from the start.
    await inTransaction(db, async (trx) => {
      for (const unit of group) {
        await executeCompiled(trx, SAVEPOINT);
        try {
          unit.outcome = { ok: true, value: await unit.fn(trx) };
          await executeCompiled(trx, RELEASE);
        } catch (error) {
          unit.outcome = { ok: false, error };
          await executeCompiled(trx, ROLLBACK_TO);
          await executeCompiled(trx, RELEASE);
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

/**
 * PostgreSQL: one transaction without savepoints, the units side by side with their statements batched; a
 * failed unit costs its group a second try (see above).
 */
async function commitOptimistically(db: Kysely<DB>, group: Unit[]): Promise<void> {
  const [first] = group;
  if (group.length === 1 && first) return commitAlone(db, first);
  // The first failure in time: the units failing after it may only have met its aborted transaction.
  const earliest: { failure: { error: unknown } | null } = { failure: null };
  try {
    await inTransaction(db, async (trx) => {
      earliest.failure = null;
      await genericPlans(trx);
      const batch = new StatementBatch(trx, group.length);
      await withStatementBatch(trx, batch, () =>
        Promise.all(
          group.map(async (unit) => {
            try {
              unit.outcome = { ok: true, value: await unit.fn(trx) };
            } catch (error) {
              unit.outcome = { ok: false, error };
              earliest.failure ??= { error };
            } finally {
              batch.unitDone();
            }
          }),
        ),
      );
      // Every unit has settled: nothing runs on the connection once the transaction is rolled back.
      const failure = earliest.failure as { error: unknown } | null;
      if (failure) throw failure.error;
    });
  } catch {
    // Nothing of the group was stored. When the commit itself failed, each unit runs alone.
    const failed = earliest.failure as { error: unknown } | null;
    if (!failed) {
      for (const unit of group) await commitAlone(db, unit);
      return;
    }
    // The units that failed with the first error (several, when it was a batched statement's) run alone.
    const alone = group.filter((u) => u.outcome?.ok === false && u.outcome.error === failed.error);
    const rest = group.filter((u) => !alone.includes(u));
    if (rest.length > 0) await commitOptimistically(db, rest);
    for (const unit of alone) await commitAlone(db, unit);
    return;
  }
  for (const unit of group) unit.resolve((unit.outcome as { value: unknown }).value);
}

async function commitAlone(db: Kysely<DB>, unit: Unit): Promise<void> {
  try {
    unit.resolve(
      await inTransaction(db, async (trx) => {
        await genericPlans(trx);
        return unit.fn(trx);
      }),
    );
  } catch (error) {
    unit.reject(error);
  }
}

/**
 * PostgreSQL: the group's statements run on their generic plans, planned once per connection. A named
 * statement (db/named-statements.ts) is otherwise planned afresh on every run for as long as PostgreSQL
 * judges a plan made for the run's values cheaper than the generic one, and for the report statements it
 * always does: a custom plan sees that an array holds one row where the generic plan assumes ten. Planning
 * those statements took about a quarter of PostgreSQL's time for 1-reading reports (BENCHMARKS.md). The
 * setting holds for this transaction only; every other transaction keeps PostgreSQL's own choice.
 */
async function genericPlans(trx: Trx): Promise<void> {
  if (isPostgres(trx)) await sql.raw(GENERIC_PLANS).execute(trx);
}

/** A lane for `key`: the same key always the same lane. */
export function laneOf(key: string, lanes: number): number {
  let hash = 0;
  for (let i = 0; i < key.length; i++) hash = (hash * 31 + key.charCodeAt(i)) | 0;
  return Math.abs(hash) % lanes;
}

/** Each database's lanes: one on SQLite, PG_LANES on PostgreSQL. */
const lanesOf = new WeakMap<Kysely<DB>, Lane[]>();

/**
 * Runs `fn` all or nothing and answers once it is committed, possibly together with other units (see
 * above); inside the caller's transaction when `db` is one. Units of one `key` (a device) run in the order
 * they were given.
 */
export function inGroupTransaction<T>(db: Db, key: string, fn: (trx: Trx) => Promise<T>): Promise<T> {
  if (db.isTransaction) return inTransaction(db, fn);
  const root = db as Kysely<DB>;
  let lanes = lanesOf.get(root);
  if (!lanes) {
    lanes = isPostgres(root)
      ? Array.from({ length: PG_LANES }, () => new Lane(root, commitOptimistically, true))
      : [new Lane(root, commitInTurn, false)];
    lanesOf.set(root, lanes);
  }
  return (lanes[laneOf(key, lanes.length)] as Lane).run(key, fn);
}

/**
 * Resolves once every unit given to `db`'s lanes has been stored or refused: the database's close waits for
 * it. A request whose client went away is no longer in flight for the HTTP server, which may then finish
 * closing while the request's report still waits in a lane; destroying the driver under it made that
 * report fail with "driver has already been destroyed" (seen at the end of a bench load).
 */
export async function groupCommitsSettled(db: Kysely<DB>): Promise<void> {
  await Promise.all((lanesOf.get(db) ?? []).map((lane) => lane.settled()));
}
