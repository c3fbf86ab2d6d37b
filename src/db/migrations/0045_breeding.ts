/**
 * Breeding and lineage (issue 47, docs/records.md "Breeding", "Lineage"): an animal's dam and sire (animals of
 * the account, or an outside sire by name and registration number, as AI sires are), and its breeding state as
 * its breeding records leave it (`breeding`, JSON; `due_at` beside it for the calving calendar and the brief).
 * No foreign keys on dam_id and sire_id: a deleted parent leaves its offspring's record as it was.
 */
import type { Kysely } from 'kysely';
import { T } from './helpers.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('animals').addColumn('dam_id', T.id).execute();
  await db.schema.alterTable('animals').addColumn('sire_id', T.id).execute();
  await db.schema.alterTable('animals').addColumn('sire_name', T.text).execute();
  await db.schema.alterTable('animals').addColumn('sire_registration', T.text).execute();
  await db.schema.alterTable('animals').addColumn('breeding', T.json).execute();
  await db.schema.alterTable('animals').addColumn('due_at', T.time).execute();
  // Descendants are found by parent; the calendar reads a farm's due dates in order.
  await db.schema.createIndex('animals_dam').on('animals').columns(['dam_id']).execute();
  await db.schema.createIndex('animals_sire').on('animals').columns(['sire_id']).execute();
  await db.schema.createIndex('animals_farm_due').on('animals').columns(['farm_id', 'due_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('animals_farm_due').execute();
  await db.schema.dropIndex('animals_sire').execute();
  await db.schema.dropIndex('animals_dam').execute();
  for (const column of ['due_at', 'breeding', 'sire_registration', 'sire_name', 'sire_id', 'dam_id']) {
    await db.schema.alterTable('animals').dropColumn(column).execute();
  }
}
