/**
 * LoRaWAN integrations (modules/integrations): a farm's network servers (ChirpStack, The Things Stack), the
 * devices they carry, the DevEUIs heard but not yet adopted, the uplinks already stored (a unique key, so a
 * retried or duplicated uplink is stored once whatever the number of processes), and the downlinks that carry
 * commands out.
 */
import type { Kysely } from 'kysely';
import { T } from './helpers.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('integrations')
    .addColumn('id', T.id, (c) => c.primaryKey())
    .addColumn('farm_id', T.id, (c) => c.notNull().references('farms.id').onDelete('cascade'))
    .addColumn('type', T.text, (c) => c.notNull())
    .addColumn('name', T.text, (c) => c.notNull())
    .addColumn('secret_hash', T.text, (c) => c.notNull())
    .addColumn('secret_prefix', T.text, (c) => c.notNull())
    .addColumn('api_url', T.text)
    .addColumn('api_key', T.text)
    .addColumn('application_id', T.text)
    .addColumn('webhook_id', T.text)
    .addColumn('defaults', T.json, (c) => c.notNull())
    .addColumn('created_at', T.time, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('integrations_farm')
    .on('integrations')
    .columns(['farm_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('integration_devices')
    .addColumn('device_id', T.id, (c) => c.primaryKey().references('devices.id').onDelete('cascade'))
    .addColumn('integration_id', T.id, (c) => c.notNull().references('integrations.id').onDelete('cascade'))
    .addColumn('dev_eui', T.text, (c) => c.notNull())
    .addColumn('remote_id', T.text)
    .addColumn('preset', T.text)
    .addColumn('mapping', T.json)
    .addColumn('encoder', T.json)
    .addColumn('last_uplink', T.json)
    .addColumn('last_uplink_at', T.time)
    .addColumn('created_at', T.time, (c) => c.notNull())
    .execute();
  // One device per DevEUI on an integration; the uplink path finds it by this key.
  await db.schema
    .createIndex('integration_devices_eui')
    .on('integration_devices')
    .columns(['integration_id', 'dev_eui'])
    .unique()
    .execute();

  await db.schema
    .createTable('integration_unmatched')
    .addColumn('integration_id', T.id, (c) => c.notNull().references('integrations.id').onDelete('cascade'))
    .addColumn('dev_eui', T.text, (c) => c.notNull())
    .addColumn('device_name', T.text)
    .addColumn('remote_id', T.text)
    .addColumn('profile', T.text)
    .addColumn('decoded', T.json)
    .addColumn('f_port', T.int)
    .addColumn('uplinks', T.int, (c) => c.notNull())
    .addColumn('first_seen_at', T.time, (c) => c.notNull())
    .addColumn('last_seen_at', T.time, (c) => c.notNull())
    .addPrimaryKeyConstraint('integration_unmatched_pk', ['integration_id', 'dev_eui'])
    .execute();

  await db.schema
    .createTable('integration_uplinks')
    .addColumn('integration_id', T.id, (c) => c.notNull().references('integrations.id').onDelete('cascade'))
    .addColumn('dedup_key', T.text, (c) => c.notNull())
    .addColumn('received_at', T.time, (c) => c.notNull())
    .addPrimaryKeyConstraint('integration_uplinks_pk', ['integration_id', 'dedup_key'])
    .execute();
  await db.schema
    .createIndex('integration_uplinks_received')
    .on('integration_uplinks')
    .column('received_at')
    .execute();

  await db.schema
    .createTable('integration_downlinks')
    .addColumn('command_id', T.id, (c) => c.primaryKey().references('commands.id').onDelete('cascade'))
    .addColumn('integration_id', T.id, (c) => c.notNull().references('integrations.id').onDelete('cascade'))
    .addColumn('device_id', T.id, (c) => c.notNull())
    .addColumn('farm_id', T.id, (c) => c.notNull())
    .addColumn('status', T.text, (c) => c.notNull())
    .addColumn('confirmed', T.bool, (c) => c.notNull())
    .addColumn('attempts', T.int, (c) => c.notNull())
    .addColumn('next_attempt_at', T.time)
    .addColumn('locked_until', T.time)
    .addColumn('remote_id', T.text)
    .addColumn('last_error', T.text)
    .addColumn('created_at', T.time, (c) => c.notNull())
    .addColumn('sent_at', T.time)
    .execute();
  await db.schema
    .createIndex('integration_downlinks_due')
    .on('integration_downlinks')
    .columns(['status', 'next_attempt_at'])
    .execute();
  await db.schema
    .createIndex('integration_downlinks_device')
    .on('integration_downlinks')
    .columns(['device_id', 'status'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'integration_downlinks',
    'integration_uplinks',
    'integration_unmatched',
    'integration_devices',
    'integrations',
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
