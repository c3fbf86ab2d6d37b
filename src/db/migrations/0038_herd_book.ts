/**
 * The herd book's medicine records (issue 46, docs/records.md): a farm's medicines (the label's withdrawal
 * periods, per species where they differ, the species it is licensed for), their batches (stock, expiry,
 * supplier), and treatments, one per animal, each with the withdrawal it set. The animal carries its current
 * withdrawal (`animals.withdrawal`, JSON), with the ends as columns: `meat_withdrawal_until` for the check
 * that stops a sale, `withdrawal_until` (the latest of meat, milk and eggs) for `?withdrawal=active`.
 * Treatments keep no foreign key to their animal: the medicine record outlives a deleted animal (five years).
 */
import type { Kysely } from 'kysely';
import { T } from './helpers.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('medicines')
    .addColumn('id', T.id, (c) => c.primaryKey())
    .addColumn('farm_id', T.id, (c) => c.notNull().references('farms.id').onDelete('cascade'))
    .addColumn('name', T.text, (c) => c.notNull())
    .addColumn('unit', T.text, (c) => c.notNull())
    .addColumn('active_ingredient', T.text)
    .addColumn('form', T.text)
    .addColumn('withdrawal', T.json, (c) => c.notNull())
    .addColumn('species_withdrawal', T.json)
    .addColumn('licensed_species', T.json)
    .addColumn('created_at', T.time, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('medicines_farm')
    .on('medicines')
    .columns(['farm_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('medicine_batches')
    .addColumn('id', T.id, (c) => c.primaryKey())
    .addColumn('farm_id', T.id, (c) => c.notNull().references('farms.id').onDelete('cascade'))
    .addColumn('medicine_id', T.id, (c) => c.notNull().references('medicines.id').onDelete('cascade'))
    .addColumn('batch', T.text, (c) => c.notNull())
    .addColumn('expiry', T.time, (c) => c.notNull())
    .addColumn('quantity', T.number, (c) => c.notNull())
    .addColumn('used', T.number, (c) => c.notNull().defaultTo(0))
    .addColumn('supplier', T.text)
    .addColumn('purchased_at', T.time)
    .addColumn('proof_of_purchase', T.text)
    .addColumn('created_at', T.time, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('medicine_batches_medicine')
    .on('medicine_batches')
    .columns(['medicine_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('treatments')
    .addColumn('id', T.id, (c) => c.primaryKey())
    .addColumn('farm_id', T.id, (c) => c.notNull().references('farms.id').onDelete('cascade'))
    .addColumn('animal_id', T.id, (c) => c.notNull())
    .addColumn('medicine_id', T.id, (c) => c.notNull().references('medicines.id'))
    .addColumn('batch_id', T.id, (c) => c.references('medicine_batches.id'))
    .addColumn('dose', T.number, (c) => c.notNull())
    .addColumn('dose_unit', T.text, (c) => c.notNull())
    .addColumn('route', T.text, (c) => c.notNull())
    .addColumn('site', T.text)
    .addColumn('at', T.time, (c) => c.notNull())
    .addColumn('course_doses', T.int, (c) => c.notNull())
    .addColumn('course_every_hours', T.number, (c) => c.notNull())
    .addColumn('reason', T.text)
    .addColumn('given_by', T.text)
    .addColumn('vet', T.text)
    .addColumn('override_reason', T.text)
    .addColumn('withdrawal', T.json, (c) => c.notNull())
    .addColumn('event_id', T.id)
    .addColumn('created_at', T.time, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('treatments_farm')
    .on('treatments')
    .columns(['farm_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('treatments_animal')
    .on('treatments')
    .columns(['animal_id', 'created_at', 'id'])
    .execute();

  await db.schema.alterTable('animals').addColumn('withdrawal', T.json).execute();
  await db.schema.alterTable('animals').addColumn('meat_withdrawal_until', T.time).execute();
  await db.schema.alterTable('animals').addColumn('withdrawal_until', T.time).execute();
  await db.schema
    .createIndex('animals_farm_withdrawal')
    .on('animals')
    .columns(['farm_id', 'withdrawal_until'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('animals_farm_withdrawal').execute();
  await db.schema.alterTable('animals').dropColumn('withdrawal_until').execute();
  await db.schema.alterTable('animals').dropColumn('meat_withdrawal_until').execute();
  await db.schema.alterTable('animals').dropColumn('withdrawal').execute();
  await db.schema.dropTable('treatments').execute();
  await db.schema.dropTable('medicine_batches').execute();
  await db.schema.dropTable('medicines').execute();
}
