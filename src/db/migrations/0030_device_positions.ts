/**
 * Every position a device reports (docs/map.md, "Positions and tracks"): one row per report carrying lat and
 * lon, at the time the report arrived. Keyed by (device_id, at): a track pages by time alone, and a second
 * report of one device in the same millisecond replaces the first. Removed with the device; pruned with the
 * readings (FARMSTEAD_READINGS_RETENTION_DAYS).
 */
import type { Kysely } from 'kysely';
import { T } from './helpers.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('device_positions')
    .addColumn('device_id', T.id, (c) => c.notNull().references('devices.id').onDelete('cascade'))
    .addColumn('farm_id', T.id, (c) => c.notNull())
    .addColumn('lat', T.number, (c) => c.notNull())
    .addColumn('lon', T.number, (c) => c.notNull())
    .addColumn('at', T.time, (c) => c.notNull())
    .addPrimaryKeyConstraint('device_positions_pkey', ['device_id', 'at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('device_positions').execute();
}
