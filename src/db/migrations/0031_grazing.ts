/**
 * Grazing (issue 39, docs/grazing.md): where each device is (`devices.paddock_id`, derived from its last
 * position by point in polygon, with the position it was derived from, so a report whose position has not
 * changed derives nothing), a task's destination paddock (`tasks.paddock_id`: marking the task done moves
 * its animal or group there), and the grazing record: who was in which paddock from when to when
 * (`grazing_stays`, rebuilt from a subject's moves in the order of their `at`).
 */
import type { Kysely } from 'kysely';
import { T } from './helpers.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('devices')
    .addColumn('paddock_id', T.id, (c) => c.references('paddocks.id').onDelete('set null'))
    .execute();
  await db.schema.alterTable('devices').addColumn('placed_lat', T.number).execute();
  await db.schema.alterTable('devices').addColumn('placed_lon', T.number).execute();
  await db.schema
    .alterTable('tasks')
    .addColumn('paddock_id', T.id, (c) => c.references('paddocks.id').onDelete('set null'))
    .execute();
  await db.schema
    .createTable('grazing_stays')
    .addColumn('id', T.id, (c) => c.primaryKey())
    .addColumn('farm_id', T.id, (c) => c.notNull().references('farms.id').onDelete('cascade'))
    .addColumn('paddock_id', T.id, (c) => c.notNull().references('paddocks.id').onDelete('cascade'))
    .addColumn('subject_type', T.text, (c) => c.notNull())
    .addColumn('subject_id', T.id, (c) => c.notNull())
    .addColumn('name', T.text, (c) => c.notNull())
    .addColumn('from_at', T.time, (c) => c.notNull())
    .addColumn('until_at', T.time)
    .addColumn('move_id', T.id)
    .execute();
  // A paddock's history, newest first (its last `until` for rest comes from the same index).
  await db.schema
    .createIndex('grazing_stays_paddock')
    .on('grazing_stays')
    .columns(['paddock_id', 'from_at', 'id'])
    .execute();
  // A subject's stays, rebuilt on each of its moves.
  await db.schema
    .createIndex('grazing_stays_subject')
    .on('grazing_stays')
    .columns(['subject_id', 'from_at'])
    .execute();
  // The houses in a paddock (occupied_by); a subject's moves come from farm_events_subject.
  await db.schema.createIndex('devices_paddock').on('devices').columns(['paddock_id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('devices_paddock').execute();
  await db.schema.dropTable('grazing_stays').execute();
  await db.schema.alterTable('tasks').dropColumn('paddock_id').execute();
  await db.schema.alterTable('devices').dropColumn('placed_lon').execute();
  await db.schema.alterTable('devices').dropColumn('placed_lat').execute();
  await db.schema.alterTable('devices').dropColumn('paddock_id').execute();
}
