/**
 * An alert's words as message keys and parameters (issue 45): `alerts.words` holds JSON text
 * `{"title": {"key", "params"}, "reason": {"key", "params"}}` naming sentences of src/domain/alert-words.ts,
 * so notifications and the console can write the alert in each person's language. The English `title` and
 * `reason` stay as they were; rows opened before this migration keep null and are shown in English.
 */
import type { Kysely } from 'kysely';
import { T } from './helpers.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('alerts').addColumn('words', T.text).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('alerts').dropColumn('words').execute();
}
