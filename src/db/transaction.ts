/**
 * Transactions, the one way: `inTransaction` runs a unit of work and retries it when the database gives
 * up on it for concurrency's sake (a deadlock or a serialization failure on PostgreSQL, a busy database on
 * SQLite), and `lockRows` takes the row locks a read-modify-write needs. The lock order every transaction
 * follows is written in ARCHITECTURE.md ("Concurrency").
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { type Kysely, sql } from 'kysely';
import { isPostgres } from './engine.ts';
import { holdNotifications } from './notify.ts';
import type { DB, Db, Trx } from './schema.ts';
import { beginDirect } from './sqlite-direct.ts';

/** Attempts of one transaction before a concurrency failure is passed on to the caller. */
export const TRANSACTION_ATTEMPTS = 5;
/** Base of the randomised back-off between attempts, in ms (doubling each time, full jitter). */
const RETRY_BASE_MS = 10;

// PostgreSQL: 40P01 deadlock_detected, 40001 serialization_failure. SQLite: SQLITE_BUSY (5) and its
// extended codes (e.g. 517, BUSY_SNAPSHOT), which the busy timeout does not wait out on its own.
const RETRYABLE_PG_CODES = new Set(['40P01', '40001']);

/** Whether `err` is a failure that running the whole transaction again can cure. */
export function isRetryableTransactionError(err: unknown): boolean {
  const e = err as { code?: unknown; errcode?: unknown } | null;
  if (!e || typeof e !== 'object') return false;
  if (typeof e.code === 'string' && RETRYABLE_PG_CODES.has(e.code)) return true;
  return typeof e.errcode === 'number' && (e.errcode & 0xff) === 5;
}

/**
 * Runs `fn` in the caller's transaction when `db` is one, else in a new one: service functions compose
 * into larger transactions (ingest, the sample farm) and still stand alone. A new transaction that meets a
 * deadlock or serialization failure is rolled back and run again (up to TRANSACTION_ATTEMPTS times, after a
 * short random pause), so `fn` must keep its side effects inside the transaction: rows, the webhook outbox.
 * Inside a caller's transaction nothing is retried here; the outermost `inTransaction` retries the whole.
 */
export async function inTransaction<T>(db: Db, fn: (trx: Trx) => Promise<T>): Promise<T> {
  if (db.isTransaction) return fn(db as Trx);
  for (let attempt = 1; ; attempt++) {
    try {
      let committed = () => {};
      const result = await db.transaction().execute(async (trx) => {
        committed = holdNotifications(db, trx);
        const end = beginDirect(db, trx);
        try {
          return await fn(trx);
        } finally {
          end();
        }
      });
      // The bus's notifications, once the changes they announce can be read (src/db/notify.ts).
      committed();
      return result;
    } catch (err) {
      if (attempt >= TRANSACTION_ATTEMPTS || !isRetryableTransactionError(err)) throw err;
      await sleep(Math.random() * RETRY_BASE_MS * 2 ** attempt);
    }
  }
}

/** Tables whose rows a read-modify-write locks (each has a text primary key `id`). */
export type LockableTable = keyof Pick<
  DB,
  | 'farms'
  | 'animals'
  | 'animal_groups'
  | 'paddocks'
  | 'devices'
  | 'tasks'
  | 'farm_events'
  | 'webhooks'
  | 'medicines'
  | 'medicine_batches'
>;

/**
 * Locks rows for the rest of the transaction before they are read, changed and written back, so a
 * concurrent writer waits instead of being overwritten. PostgreSQL: SELECT … FOR NO KEY UPDATE, in id order
 * (rows of one table are always locked in the same order). SQLite needs nothing: every transaction begins
 * IMMEDIATE (sqlite-adapter.ts), so it holds the database's write lock from its first statement.
 * Missing ids lock nothing; the caller's own read reports them.
 */
export async function lockRows(
  trx: Trx,
  table: LockableTable,
  ids: string | readonly string[],
): Promise<void> {
  if (!trx.isTransaction) throw new Error('lockRows needs a transaction: a lock outside one ends at once');
  if (!isPostgres(trx)) return;
  const list = typeof ids === 'string' ? [ids] : [...ids];
  if (list.length === 0) return;
  await trx.selectFrom(table).select('id').where('id', 'in', list).orderBy('id').forNoKeyUpdate().execute();
}

/**
 * Runs `fn` while this process holds a PostgreSQL session advisory lock (`key`), on one pooled connection
 * for the whole run, so one process at a time does a long batched job that spans many transactions; when
 * another process holds the lock it returns `{ ran: false }` at once. SQLite (one process) just runs `fn`.
 */
export async function runAlone<T>(
  db: Kysely<DB>,
  key: number,
  fn: (db: Db) => Promise<T>,
): Promise<{ ran: true; value: T } | { ran: false }> {
  if (!isPostgres(db)) return { ran: true, value: await fn(db) };
  return db.connection().execute(async (conn) => {
    const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_lock(${key}) as locked`.execute(
      conn,
    );
    if (!rows[0]?.locked) return { ran: false };
    try {
      return { ran: true, value: await fn(conn) };
    } finally {
      await sql`select pg_advisory_unlock(${key})`.execute(conn);
    }
  });
}
