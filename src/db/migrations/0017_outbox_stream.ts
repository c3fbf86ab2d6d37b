/**
 * The live stream's order (modules/stream): each outbox row gets `seq`, a number given in commit order by
 * the stream's sequencer (null until then; 0 for rows never streamed, such as the sample farm's seed). The
 * one-row `outbox_sequence` holds the last number handed out: its row lock serialises the sequencers of
 * every process, and it never goes back when rows are deleted. Outbox ids are time-sortable but made before
 * their transaction commits, so "id > last" could skip a row committed late; "seq > last" cannot.
 */
import { type Kysely, sql } from 'kysely';
import { T } from './helpers.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('outbox').addColumn('seq', T.bigint).execute();
  // A farm's stream reads `farm_id = ? and seq > ?` and sequences `farm_id in (…) and seq is null`.
  await db.schema.createIndex('outbox_farm_seq').on('outbox').columns(['farm_id', 'seq']).execute();
  await db.schema
    .createTable('outbox_sequence')
    .addColumn('id', T.int, (c) => c.primaryKey())
    .addColumn('value', T.bigint, (c) => c.notNull())
    .execute();
  await sql`insert into outbox_sequence (id, value) values (1, 0)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('outbox_sequence').ifExists().execute();
  await db.schema.dropIndex('outbox_farm_seq').ifExists().execute();
  await db.schema.alterTable('outbox').dropColumn('seq').execute();
}
