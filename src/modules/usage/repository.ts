import { sql } from 'kysely';
import type { Db } from '../../db/schema.ts';

export interface UsageCountRow {
  account_id: string;
  /** The UTC day, YYYY-MM-DD. */
  day: string;
  surface: string;
  count: number;
}

/** Adds counts to the stored ones (one row per account, day and surface). */
export async function addUsageCounts(db: Db, rows: readonly UsageCountRow[]): Promise<void> {
  await db
    .insertInto('usage_counts')
    .values([...rows])
    .onConflict((oc) =>
      oc
        .columns(['account_id', 'day', 'surface'])
        .doUpdateSet({ count: sql<number>`usage_counts.count + excluded.count` }),
    )
    .execute();
}

/** An account's counts from day `since` (YYYY-MM-DD) on, newest day first. */
export function usageCountsSince(db: Db, accountId: string, since: string) {
  return db
    .selectFrom('usage_counts')
    .select(['day', 'surface', 'count'])
    .where('account_id', '=', accountId)
    .where('day', '>=', since)
    .orderBy('day', 'desc')
    .execute();
}
