import type { Db, Trx } from './schema.ts';

/**
 * Runs `fn` in the caller's transaction when `db` is one, else in a new one: service functions compose
 * into larger transactions (ingest, the sample farm) and still stand alone.
 */
export function inTransaction<T>(db: Db, fn: (trx: Trx) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db as Trx) : db.transaction().execute(fn);
}
