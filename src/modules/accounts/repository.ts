import type { Selectable } from 'kysely';
import { ADVISORY_LOCK, lockForTransaction } from '../../db/locks.ts';
import type { Db } from '../../db/schema.ts';
import type { AccountsTable } from '../../db/tables/foundation.ts';
import { toIso } from '../../lib/time.ts';

export type AccountRow = Selectable<AccountsTable>;

export interface AccountSummary {
  id: string;
  name: string;
  created_at: string;
}

export function toAccountSummary(row: AccountRow): AccountSummary {
  return { id: row.id, name: row.name, created_at: toIso(row.created_at) };
}

export async function insertAccount(db: Db, row: AccountRow): Promise<void> {
  await db.insertInto('accounts').values(row).execute();
}

export function findAccount(db: Db, accountId: string): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').selectAll().where('id', '=', accountId).executeTakeFirst();
}

/** Every account, as a query to page through. */
export function allAccounts(db: Db) {
  return db.selectFrom('accounts').selectAll();
}

export async function anyAccount(db: Db): Promise<boolean> {
  return (await db.selectFrom('accounts').select('id').limit(1).executeTakeFirst()) !== undefined;
}

/**
 * Serialises first-account creation for the transaction: an advisory lock on PostgreSQL; SQLite's
 * IMMEDIATE transaction already holds the write lock.
 */
export async function lockFirstAccount(trx: Db): Promise<void> {
  await lockForTransaction(trx, ADVISORY_LOCK.firstAccount);
}
