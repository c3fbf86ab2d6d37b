/**
 * Statement batching inside a PostgreSQL group transaction (group-commit.ts): the units of a group run
 * side by side, and when every unit still running waits on a batchable call, each kind of call waiting is
 * made as one statement for all of them (ingest's report statement, the alert engine's watermark and state
 * statement, the alerts opened, the events emitted), so a group of N reports costs a few round trips
 * instead of a few per report. Outside a group (a lone unit, SQLite, a caller's own transaction) a call is
 * the kind's statement for one, or the cheaper statement of its own the caller gives (a group statement's
 * arrays and joins cost a lone report more than a statement written for one: BENCHMARKS.md, round 7).
 *
 * What a batch needs of its units: they are of different keys (devices), so no two calls of one batch
 * touch the same device's rows; a kind whose calls can meet on another row (an alert about an animal two
 * of the group's devices share) orders them itself, as one unit after the other would (alerts/repository.ts:
 * INSERT_ACTIVE_BATCH, TRANSITION_BATCH); and their calls are independent of each other (a unit's call never waits on another
 * unit's). A failed batch statement fails every unit in it, and the group is then stored again without
 * batching the failure in (group-commit.ts).
 *
 * A kind's statement is either built once (`prepared`: the report statement and the state statement, whose
 * arguments are array literals, one per column whatever the number of calls; the alerts opened; the events
 * emitted) or raw SQL with one text whatever the number of calls (the alert transitions, which run seldom),
 * which runs as a named statement by construction (`runNamed`, named-statements.ts). Either takes its
 * columns from the table's statement module (db/statements), and a kind whose answer comes back as JSON reads
 * it with a typed reader (db/decode.ts), never a positional row cast to a type.
 */
import type { Db, Trx } from './schema.ts';

/** One kind of batchable call: `run` makes N calls' work one statement and answers them in order. */
export interface BatchKind<A, R> {
  run(db: Db, args: readonly A[]): Promise<R[]>;
}

interface Waiting {
  args: unknown[];
  settle: Array<{ resolve: (value: unknown) => void; reject: (err: unknown) => void }>;
}

/** The calls of one group transaction's units, gathered until every running unit waits. */
export class StatementBatch {
  readonly #trx: Trx;
  #running: number;
  #waiting = 0;
  #calls = new Map<BatchKind<unknown, unknown>, Waiting>();

  constructor(trx: Trx, units: number) {
    this.#trx = trx;
    this.#running = units;
  }

  call<A, R>(kind: BatchKind<A, R>, arg: A): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const key = kind as BatchKind<unknown, unknown>;
      let waiting = this.#calls.get(key);
      if (!waiting) {
        waiting = { args: [], settle: [] };
        this.#calls.set(key, waiting);
      }
      waiting.args.push(arg);
      waiting.settle.push({ resolve: resolve as (value: unknown) => void, reject });
      this.#waiting++;
      this.#flushWhenAllWait();
    });
  }

  /** A unit has finished (either way): it will make no more calls. */
  unitDone(): void {
    this.#running--;
    this.#flushWhenAllWait();
  }

  #flushWhenAllWait(): void {
    if (this.#waiting === 0 || this.#waiting < this.#running) return;
    const calls = this.#calls;
    this.#calls = new Map();
    this.#waiting = 0;
    for (const [kind, { args, settle }] of calls) {
      kind.run(this.#trx, args).then(
        (results) => {
          for (const [i, s] of settle.entries()) s.resolve(results[i]);
        },
        (err: unknown) => {
          for (const s of settle) s.reject(err);
        },
      );
    }
  }
}

const batches = new WeakMap<Db, StatementBatch>();

/** Makes `trx`'s batchable calls go through `batch` while `fn` runs. */
export async function withStatementBatch<T>(
  trx: Trx,
  batch: StatementBatch,
  fn: () => Promise<T>,
): Promise<T> {
  batches.set(trx, batch);
  try {
    return await fn();
  } finally {
    batches.delete(trx);
  }
}

/**
 * Makes the call as part of the group's batch when `db` is a batching group transaction, else alone: with
 * `alone` when given, else as the kind's statement for one call.
 */
export async function batchedCall<A, R>(
  db: Db,
  kind: BatchKind<A, R>,
  arg: A,
  alone?: (db: Db, arg: A) => Promise<R>,
): Promise<R> {
  const batch = batches.get(db);
  if (batch) return batch.call(kind, arg);
  if (alone) return alone(db, arg);
  const [result] = await kind.run(db, [arg]);
  return result as R;
}
