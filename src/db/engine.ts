/**
 * Which engine a database handle talks to, asked of the handle itself (Kysely's adapter), so code
 * holding only a transaction knows as much as code holding the `Database`; and the engine-specific
 * error that both engines raise differently.
 */
import { type Kysely, PostgresAdapter, type Transaction } from 'kysely';

export type Engine = 'sqlite' | 'postgres';

/** The engine behind a Kysely instance or transaction, of any schema. */
export function engineOf<T>(db: Kysely<T> | Transaction<T>): Engine {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

export function isPostgres<T>(db: Kysely<T> | Transaction<T>): boolean {
  return engineOf(db) === 'postgres';
}

/** A unique-index violation on either engine (PostgreSQL 23505, SQLite SQLITE_CONSTRAINT_UNIQUE). */
export function isUniqueViolation(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { code?: unknown; errcode?: unknown; message?: unknown };
  return e.code === '23505' || e.errcode === 2067 || /UNIQUE constraint failed/.test(String(e.message));
}
