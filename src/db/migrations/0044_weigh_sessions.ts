/**
 * Weigh sessions (issue 47, docs/records.md "Weights"): one row per imported session file with its summary.
 * The weights themselves are `weight` events in farm_events (one history, whatever brought a weight in), each
 * naming its session; `file_hash` (SHA-256 of the file's text) is unique per farm, so the same file imports
 * nothing twice. Weight events are read per animal by farm_events_subject and per farm by farm_events_type.
 */
import type { Kysely } from 'kysely';
import { T } from './helpers.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('weigh_sessions')
    .addColumn('id', T.id, (c) => c.primaryKey())
    .addColumn('farm_id', T.id, (c) => c.notNull().references('farms.id').onDelete('cascade'))
    .addColumn('name', T.text)
    .addColumn('format', T.text, (c) => c.notNull())
    .addColumn('file_hash', T.text, (c) => c.notNull())
    .addColumn('at', T.time, (c) => c.notNull())
    .addColumn('rows', T.int, (c) => c.notNull())
    .addColumn('head_count', T.int, (c) => c.notNull())
    .addColumn('created_animals', T.int, (c) => c.notNull())
    .addColumn('mean_kg', T.number)
    .addColumn('min_kg', T.number)
    .addColumn('max_kg', T.number)
    .addColumn('adg_kg_per_day', T.number)
    .addColumn('previous_session_id', T.id)
    .addColumn('histogram', T.json, (c) => c.notNull())
    .addColumn('created_at', T.time, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('weigh_sessions_farm_hash')
    .on('weigh_sessions')
    .columns(['farm_id', 'file_hash'])
    .unique()
    .execute();
  await db.schema
    .createIndex('weigh_sessions_farm_at')
    .on('weigh_sessions')
    .columns(['farm_id', 'at', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('weigh_sessions').execute();
}
