/**
 * A farm's rules version: every change to its custom rules bumps it in the same transaction, so each
 * process can keep a farm's rules as the alert engine runs them and reuse them while the farm row it
 * reads with every report shows the same version (src/modules/alerts/rule-cache.ts).
 */
import { type Kysely, sql } from 'kysely';
import { T } from './helpers.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('farms')
    .addColumn('rules_version', T.int, (c) => c.notNull().defaultTo(sql`0`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('farms').dropColumn('rules_version').execute();
}
