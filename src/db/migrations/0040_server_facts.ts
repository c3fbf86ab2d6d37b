/**
 * Facts a running server records for the other processes on the same database: the public URL it serves
 * at, so `cli people invite` prints links to the address the server really answers (docs/people.md).
 */
import type { Kysely } from 'kysely';
import { T } from './helpers.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('server_facts')
    .addColumn('name', T.text, (c) => c.primaryKey())
    .addColumn('value', T.text, (c) => c.notNull())
    .addColumn('updated_at', T.time, (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('server_facts').execute();
}
