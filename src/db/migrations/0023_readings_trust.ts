/**
 * Readings a device sent in another unit than the catalog's are stored converted, with what was sent kept
 * beside them (`raw_value`, `raw_unit`; null when nothing was converted). A device whose report carried
 * times too far ahead of the server's clock is marked (`clock_skewed`, 0/1) while its device.clock alert
 * may be active, so a later report with sane times resolves it without a look-up on every report.
 */
import type { Kysely } from 'kysely';
import { T } from './helpers.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('readings').addColumn('raw_value', T.number).execute();
  await db.schema.alterTable('readings').addColumn('raw_unit', T.text).execute();
  await db.schema
    .alterTable('devices')
    .addColumn('clock_skewed', T.bool, (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('devices').dropColumn('clock_skewed').execute();
  await db.schema.alterTable('readings').dropColumn('raw_unit').execute();
  await db.schema.alterTable('readings').dropColumn('raw_value').execute();
}
