/**
 * Commands are handed out again until answered: each hand-out counts in `delivery_attempts` and sets
 * `redeliver_at` (now + `redeliver_after_s`); a delivered command past `redeliver_at` is handed out again.
 * Commands delivered before this migration count one attempt and fall due a minute after their delivery.
 */
import { type Kysely, sql } from 'kysely';
import { T } from './helpers.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('commands')
    .addColumn('delivery_attempts', T.int, (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('commands')
    .addColumn('redeliver_after_s', T.int, (c) => c.notNull().defaultTo(60))
    .execute();
  await db.schema.alterTable('commands').addColumn('redeliver_at', T.time).execute();
  await sql`update commands set delivery_attempts = 1 where delivered_at is not null`.execute(db);
  await sql`update commands set redeliver_at = delivered_at + 60000 where status = 'delivered'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of ['redeliver_at', 'redeliver_after_s', 'delivery_attempts']) {
    await db.schema.alterTable('commands').dropColumn(column).execute();
  }
}
