/**
 * Each person's units and language (issue 45, docs/console.md): `people.units` ('metric' or 'us') and
 * `people.language` ('en' or 'es'), chosen with PATCH /v1/me and proposed from the browser's locale when the
 * person sets up their sign-in. Storage and the API stay in the catalog's units; these only say how the
 * console and the notifications speak to the person.
 */
import type { Kysely } from 'kysely';
import { T } from './helpers.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('people')
    .addColumn('units', T.text, (c) => c.notNull().defaultTo('metric'))
    .execute();
  await db.schema
    .alterTable('people')
    .addColumn('language', T.text, (c) => c.notNull().defaultTo('en'))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('people').dropColumn('language').execute();
  await db.schema.alterTable('people').dropColumn('units').execute();
}
