import type { Kysely } from 'kysely';
import { T } from './helpers.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Restricted keys: null means unrestricted (every farm of the mode; every family at write).
  await db.schema.alterTable('api_keys').addColumn('farms', T.json).execute();
  await db.schema.alterTable('api_keys').addColumn('permissions', T.json).execute();

  // Fixed-window rate-limit counters shared by every process on PostgreSQL (SQLite counts in memory).
  await db.schema
    .createTable('rate_limit_counters')
    .addColumn('bucket', T.text, (c) => c.primaryKey())
    .addColumn('window_start', T.time, (c) => c.notNull())
    .addColumn('count', T.int, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('rate_limit_counters_window')
    .on('rate_limit_counters')
    .column('window_start')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('rate_limit_counters').ifExists().execute();
  await db.schema.alterTable('api_keys').dropColumn('permissions').execute();
  await db.schema.alterTable('api_keys').dropColumn('farms').execute();
}
