import type { Kysely } from 'kysely';
import { T } from './helpers.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhooks')
    .addColumn('id', T.id, (c) => c.primaryKey())
    .addColumn('farm_id', T.id, (c) => c.notNull().references('farms.id').onDelete('cascade'))
    .addColumn('url', T.text, (c) => c.notNull())
    .addColumn('events', T.json, (c) => c.notNull())
    .addColumn('secret', T.text, (c) => c.notNull())
    .addColumn('status', T.text, (c) => c.notNull())
    .addColumn('disabled_reason', T.text)
    .addColumn('created_at', T.time, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhooks_farm')
    .on('webhooks')
    .columns(['farm_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', T.id, (c) => c.primaryKey())
    .addColumn('webhook_id', T.id, (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
    .addColumn('farm_id', T.id, (c) => c.notNull().references('farms.id').onDelete('cascade'))
    .addColumn('event_id', T.id, (c) => c.notNull().references('outbox.id').onDelete('cascade'))
    .addColumn('event_type', T.text, (c) => c.notNull())
    .addColumn('status', T.text, (c) => c.notNull())
    .addColumn('attempt_count', T.int, (c) => c.notNull())
    .addColumn('next_attempt_at', T.time)
    .addColumn('locked_until', T.time)
    .addColumn('last_attempt_at', T.time)
    .addColumn('last_status_code', T.int)
    .addColumn('last_error', T.text)
    .addColumn('created_at', T.time, (c) => c.notNull())
    .addColumn('completed_at', T.time)
    .execute();
  // One delivery per (webhook, event), whatever the number of dispatchers.
  await db.schema
    .createIndex('webhook_deliveries_event')
    .on('webhook_deliveries')
    .columns(['webhook_id', 'event_id'])
    .unique()
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .columns(['status', 'next_attempt_at'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_list')
    .on('webhook_deliveries')
    .columns(['webhook_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_outbox')
    .on('webhook_deliveries')
    .column('event_id')
    .execute();
  await db.schema.createIndex('webhook_deliveries_farm').on('webhook_deliveries').column('farm_id').execute();

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('delivery_id', T.id, (c) =>
      c.notNull().references('webhook_deliveries.id').onDelete('cascade'),
    )
    .addColumn('number', T.int, (c) => c.notNull())
    .addColumn('farm_id', T.id, (c) => c.notNull().references('farms.id').onDelete('cascade'))
    .addColumn('trigger', T.text, (c) => c.notNull())
    .addColumn('at', T.time, (c) => c.notNull())
    .addColumn('duration_ms', T.int, (c) => c.notNull())
    .addColumn('status_code', T.int)
    .addColumn('error', T.text)
    .addPrimaryKeyConstraint('webhook_attempts_pk', ['delivery_id', 'number'])
    .execute();
  await db.schema.createIndex('webhook_attempts_farm').on('webhook_attempts').column('farm_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['webhook_attempts', 'webhook_deliveries', 'webhooks']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
