/**
 * Every device report stamps a new random token on its device row and keeps the one it replaced, in the
 * same UPDATE. A process that kept a device's recent readings under the token of the report that left
 * them can tell, from the replaced token the next report reads, whether any other report stored readings
 * in between (src/modules/alerts/recent-readings.ts).
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('devices').addColumn('report_token', 'text').execute();
  await db.schema.alterTable('devices').addColumn('report_token_prev', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('devices').dropColumn('report_token_prev').execute();
  await db.schema.alterTable('devices').dropColumn('report_token').execute();
}
