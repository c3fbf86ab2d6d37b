/**
 * A task due on a day rather than at a time keeps that day as given (`due_date`, `YYYY-MM-DD`), while
 * `due_at` holds the start of that day in the farm's time zone, so lists, the brief and "overdue" (its
 * local day has ended) order and compare every task by one column (docs/records.md, Dates without a time).
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('tasks').addColumn('due_date', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('tasks').dropColumn('due_date').execute();
}
