/**
 * Silent devices (rule device.quiet). Ingest keeps each device's usual report interval on its row
 * (`report_gap_ms`, the mean gap between its reports, smoothed), so the quiet pass finds the devices
 * past max(3 × interval, 15 min) with one indexed query instead of a scan of readings. `quiet_level`
 * is the severity of the device's active quiet alert (null: none), set by the pass and read by
 * ingest, which resolves the alert on the device's next report without an extra query.
 */
import type { Kysely } from 'kysely';
import { T } from './helpers.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('devices').addColumn('report_gap_ms', T.number).execute();
  await db.schema.alterTable('devices').addColumn('quiet_level', T.text).execute();
  await db.schema.createIndex('devices_last_seen').on('devices').column('last_seen_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('devices_last_seen').ifExists().execute();
  await db.schema.alterTable('devices').dropColumn('quiet_level').execute();
  await db.schema.alterTable('devices').dropColumn('report_gap_ms').execute();
}
