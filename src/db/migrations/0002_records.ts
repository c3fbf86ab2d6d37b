import { type Kysely, sql } from 'kysely';
import { T } from './helpers.ts';

/** Farm records: paddocks, groups, animals, tasks and the farm event log. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('paddocks')
    .addColumn('id', T.id, (c) => c.primaryKey())
    .addColumn('farm_id', T.id, (c) => c.notNull().references('farms.id').onDelete('cascade'))
    .addColumn('name', T.text, (c) => c.notNull())
    .addColumn('acres', T.number)
    .addColumn('geometry', T.json)
    .addColumn('rest_days_target', T.number)
    .addColumn('last_grazed_at', T.time)
    .addColumn('created_at', T.time, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('paddocks_farm')
    .on('paddocks')
    .columns(['farm_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('animal_groups')
    .addColumn('id', T.id, (c) => c.primaryKey())
    .addColumn('farm_id', T.id, (c) => c.notNull().references('farms.id').onDelete('cascade'))
    .addColumn('name', T.text, (c) => c.notNull())
    .addColumn('species', T.text, (c) => c.notNull())
    .addColumn('kind', T.text, (c) => c.notNull())
    .addColumn('head_count', T.number)
    .addColumn('hatch_date', T.time)
    // The service clears references (and logs moves) before a delete; the FK is the safety net.
    .addColumn('paddock_id', T.id, (c) => c.references('paddocks.id').onDelete('set null'))
    .addColumn('created_at', T.time, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('animal_groups_farm')
    .on('animal_groups')
    .columns(['farm_id', 'created_at', 'id'])
    .execute();
  await db.schema.createIndex('animal_groups_paddock').on('animal_groups').columns(['paddock_id']).execute();

  await db.schema
    .createTable('animals')
    .addColumn('id', T.id, (c) => c.primaryKey())
    .addColumn('farm_id', T.id, (c) => c.notNull().references('farms.id').onDelete('cascade'))
    // Copied from the farm (which never changes account or mode) so EID uniqueness is one index.
    .addColumn('account_id', T.id, (c) => c.notNull())
    .addColumn('mode', T.text, (c) => c.notNull())
    .addColumn('species', T.text, (c) => c.notNull())
    .addColumn('name', T.text)
    .addColumn('tag', T.text)
    .addColumn('eid', T.text)
    .addColumn('sex', T.text)
    .addColumn('breed', T.text)
    .addColumn('birth_date', T.time)
    .addColumn('group_id', T.id, (c) => c.references('animal_groups.id').onDelete('set null'))
    .addColumn('paddock_id', T.id, (c) => c.references('paddocks.id').onDelete('set null'))
    .addColumn('status', T.text, (c) => c.notNull())
    .addColumn('notes', T.text)
    .addColumn('fields', T.json, (c) => c.notNull())
    // Lower-cased name, tag, EID and breed for `q`: one case rule on both engines.
    .addColumn('search_text', T.text, (c) => c.notNull())
    .addColumn('created_at', T.time, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('animals_farm')
    .on('animals')
    .columns(['farm_id', 'created_at', 'id'])
    .execute();
  await db.schema.createIndex('animals_farm_eid').on('animals').columns(['farm_id', 'eid']).execute();
  await db.schema.createIndex('animals_group').on('animals').columns(['group_id']).execute();
  await db.schema.createIndex('animals_paddock').on('animals').columns(['paddock_id']).execute();
  await db.schema
    .createIndex('animals_account_eid')
    .on('animals')
    .columns(['account_id', 'mode', 'eid'])
    .unique()
    .where(sql.ref('eid'), 'is not', null)
    .execute();

  await db.schema
    .createTable('tasks')
    .addColumn('id', T.id, (c) => c.primaryKey())
    .addColumn('farm_id', T.id, (c) => c.notNull().references('farms.id').onDelete('cascade'))
    .addColumn('title', T.text, (c) => c.notNull())
    .addColumn('notes', T.text)
    .addColumn('due_at', T.time)
    .addColumn('assignee', T.text)
    .addColumn('status', T.text, (c) => c.notNull())
    .addColumn('subject_type', T.text)
    .addColumn('subject_id', T.id)
    .addColumn('alert_id', T.id)
    .addColumn('done_at', T.time)
    .addColumn('created_at', T.time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('tasks_farm').on('tasks').columns(['farm_id', 'created_at', 'id']).execute();
  await db.schema
    .createIndex('tasks_farm_status')
    .on('tasks')
    .columns(['farm_id', 'status', 'created_at', 'id'])
    .execute();
  await db.schema.createIndex('tasks_subject').on('tasks').columns(['farm_id', 'subject_id']).execute();

  await db.schema
    .createTable('farm_events')
    .addColumn('id', T.id, (c) => c.primaryKey())
    .addColumn('farm_id', T.id, (c) => c.notNull().references('farms.id').onDelete('cascade'))
    .addColumn('type', T.text, (c) => c.notNull())
    .addColumn('subject_type', T.text)
    .addColumn('subject_id', T.id)
    .addColumn('data', T.json, (c) => c.notNull())
    .addColumn('at', T.time, (c) => c.notNull())
    .addColumn('created_at', T.time, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('farm_events_farm_at')
    .on('farm_events')
    .columns(['farm_id', 'at', 'id'])
    .execute();
  await db.schema
    .createIndex('farm_events_subject')
    .on('farm_events')
    .columns(['farm_id', 'subject_id', 'at', 'id'])
    .execute();
  await db.schema
    .createIndex('farm_events_type')
    .on('farm_events')
    .columns(['farm_id', 'type', 'at', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['farm_events', 'tasks', 'animals', 'animal_groups', 'paddocks']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
