/**
 * The alert engine locks and moves a device's watermarks forward in one upsert per report. RETURNING
 * gives the row as written, so the row keeps the watermark it replaced (`prev_at`): the upsert sets it
 * from the row it locked, which on PostgreSQL is the latest committed one even when it waited for
 * another report of the device, and returns it to decide which of the report's readings are late.
 */
import type { Kysely } from 'kysely';
import { T } from './helpers.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('alert_watermarks').addColumn('prev_at', T.time).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('alert_watermarks').dropColumn('prev_at').execute();
}
