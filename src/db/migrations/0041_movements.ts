/**
 * The holding register (issue 46, docs/records.md): the farm's own holding number (`farms.holding`, JSON
 * {number, type}, null until set) and its movements on and off the holding. A movement keeps the animals it
 * moved as a JSON list, with no foreign key: the register outlives a deleted animal, as the medicine record does.
 * Treatments get an (farm_id, at) index: the medicine record's export reads them by when they were given.
 */
import type { Kysely } from 'kysely';
import { T } from './helpers.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('farms').addColumn('holding', T.json).execute();
  await db.schema
    .createTable('movements')
    .addColumn('id', T.id, (c) => c.primaryKey())
    .addColumn('farm_id', T.id, (c) => c.notNull().references('farms.id').onDelete('cascade'))
    .addColumn('direction', T.text, (c) => c.notNull())
    .addColumn('at', T.time, (c) => c.notNull())
    .addColumn('animal_ids', T.json)
    .addColumn('head_count', T.int, (c) => c.notNull())
    .addColumn('species', T.text)
    .addColumn('other_holding', T.text, (c) => c.notNull())
    .addColumn('reason', T.text, (c) => c.notNull())
    .addColumn('transporter', T.text)
    .addColumn('vehicle', T.text)
    .addColumn('override_reason', T.text)
    .addColumn('event_id', T.id)
    .addColumn('created_at', T.time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('movements_farm_at').on('movements').columns(['farm_id', 'at', 'id']).execute();
  // The medicine record's export pages treatments by when they were given.
  await db.schema
    .createIndex('treatments_farm_at')
    .on('treatments')
    .columns(['farm_id', 'at', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('treatments_farm_at').execute();
  await db.schema.dropTable('movements').execute();
  await db.schema.alterTable('farms').dropColumn('holding').execute();
}
