import type { Kysely } from 'kysely';
import { T } from './helpers.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('accounts')
    .addColumn('id', T.id, (c) => c.primaryKey())
    .addColumn('name', T.text, (c) => c.notNull())
    .addColumn('created_at', T.time, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', T.id, (c) => c.primaryKey())
    .addColumn('account_id', T.id, (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', T.text, (c) => c.notNull())
    .addColumn('mode', T.text, (c) => c.notNull())
    .addColumn('prefix', T.text, (c) => c.notNull())
    .addColumn('key_hash', T.text, (c) => c.notNull().unique())
    .addColumn('created_at', T.time, (c) => c.notNull())
    .addColumn('last_used_at', T.time)
    .addColumn('revoked_at', T.time)
    .execute();
  await db.schema.createIndex('api_keys_account').on('api_keys').columns(['account_id', 'id']).execute();

  await db.schema
    .createTable('farms')
    .addColumn('id', T.id, (c) => c.primaryKey())
    .addColumn('account_id', T.id, (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', T.text, (c) => c.notNull())
    .addColumn('mode', T.text, (c) => c.notNull())
    .addColumn('timezone', T.text, (c) => c.notNull())
    .addColumn('lat', T.number)
    .addColumn('lon', T.number)
    .addColumn('acres', T.number)
    .addColumn('sample', T.bool, (c) => c.notNull().defaultTo(0))
    .addColumn('settings', T.json, (c) => c.notNull())
    .addColumn('created_at', T.time, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('farms_account_mode')
    .on('farms')
    .columns(['account_id', 'mode', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('usage_counts')
    .addColumn('account_id', T.id, (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('day', T.text, (c) => c.notNull())
    .addColumn('surface', T.text, (c) => c.notNull())
    .addColumn('count', T.bigint, (c) => c.notNull())
    .addPrimaryKeyConstraint('usage_counts_pk', ['account_id', 'day', 'surface'])
    .execute();

  // The durable outbox: every webhook-worthy change writes a row here in the same transaction.
  await db.schema
    .createTable('outbox')
    .addColumn('id', T.id, (c) => c.primaryKey())
    .addColumn('farm_id', T.id, (c) => c.notNull().references('farms.id').onDelete('cascade'))
    .addColumn('type', T.text, (c) => c.notNull())
    .addColumn('data', T.json, (c) => c.notNull())
    .addColumn('created_at', T.time, (c) => c.notNull())
    .addColumn('dispatched_at', T.time)
    .execute();
  await db.schema.createIndex('outbox_pending').on('outbox').columns(['dispatched_at', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['outbox', 'usage_counts', 'farms', 'api_keys', 'accounts']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
