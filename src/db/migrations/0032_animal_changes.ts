/**
 * The field app's incremental refresh of a farm's animals (docs/offline.md): `animals.changed_at` is the
 * last write of each animal (its creation, an update, a group or paddock cleared under it), and
 * `animal_removals` keeps the ids of deleted animals, so `GET /v1/farms/{farm}/animals/changes?since=`
 * answers what changed and what went since the phone last asked.
 */
import { type Kysely, sql } from 'kysely';
import { T } from './helpers.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('animals')
    .addColumn('changed_at', T.time, (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`update animals set changed_at = created_at`.execute(db);
  await db.schema
    .createIndex('animals_farm_changed')
    .on('animals')
    .columns(['farm_id', 'changed_at', 'id'])
    .execute();
  await db.schema
    .createTable('animal_removals')
    .addColumn('farm_id', T.id, (c) => c.notNull().references('farms.id').onDelete('cascade'))
    .addColumn('animal_id', T.id, (c) => c.notNull())
    .addColumn('removed_at', T.time, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('animal_removals_farm')
    .on('animal_removals')
    .columns(['farm_id', 'removed_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('animal_removals').execute();
  await db.schema.dropIndex('animals_farm_changed').execute();
  await db.schema.alterTable('animals').dropColumn('changed_at').execute();
}
