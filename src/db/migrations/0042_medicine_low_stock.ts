/**
 * A medicine's low-stock line (issue 46, docs/records.md): `medicines.low_stock_at`, in the medicine's unit; the
 * brief lists the medicine as low once the stock left in its batches not yet expired is at or below it. Null:
 * the default line, a fifth of what those batches held when bought.
 */
import type { Kysely } from 'kysely';
import { T } from './helpers.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('medicines').addColumn('low_stock_at', T.number).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('medicines').dropColumn('low_stock_at').execute();
}
