/**
 * The CSV import matches each batch of rows to the farm's animals by EID and by tag with one indexed read
 * each (modules/dataio/import.ts): an index on (farm_id, tag) beside the one on (farm_id, eid), so a batch
 * on a farm of 100,000 animals reads the few animals it names instead of every animal of the farm. The
 * animals list's `tag` filter uses it too.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('animals_farm_tag').on('animals').columns(['farm_id', 'tag']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('animals_farm_tag').execute();
}
