import type { Kysely } from 'kysely';
import { T } from './helpers.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('devices')
    .addColumn('id', T.id, (c) => c.primaryKey())
    .addColumn('farm_id', T.id, (c) => c.notNull().references('farms.id').onDelete('cascade'))
    .addColumn('type', T.text, (c) => c.notNull())
    .addColumn('name', T.text, (c) => c.notNull())
    .addColumn('serial', T.text)
    .addColumn('animal_id', T.id, (c) => c.references('animals.id').onDelete('set null'))
    .addColumn('group_id', T.id, (c) => c.references('animal_groups.id').onDelete('set null'))
    .addColumn('firmware', T.text)
    .addColumn('lat', T.number)
    .addColumn('lon', T.number)
    .addColumn('battery', T.number)
    .addColumn('state', T.json, (c) => c.notNull())
    .addColumn('key_hash', T.text, (c) => c.notNull().unique())
    .addColumn('key_prefix', T.text, (c) => c.notNull())
    .addColumn('last_seen_at', T.time)
    .addColumn('created_at', T.time, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('devices_farm')
    .on('devices')
    .columns(['farm_id', 'created_at', 'id'])
    .execute();
  await db.schema.createIndex('devices_animal').on('devices').columns(['animal_id']).execute();
  await db.schema.createIndex('devices_group').on('devices').columns(['group_id']).execute();

  // Readings go with their device (and so with its farm); farm_id is carried for farm-wide queries
  // without a second foreign key, which would cost a lookup per inserted reading and an index on
  // farm_id for cascading farm deletes.
  await db.schema
    .createTable('readings')
    .addColumn('device_id', T.id, (c) => c.notNull().references('devices.id').onDelete('cascade'))
    .addColumn('farm_id', T.id, (c) => c.notNull())
    .addColumn('metric', T.text, (c) => c.notNull())
    .addColumn('value', T.number, (c) => c.notNull())
    .addColumn('unit', T.text)
    .addColumn('at', T.time, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('readings_device_metric_at')
    .on('readings')
    .columns(['device_id', 'metric', 'at'])
    .execute();
  await db.schema.createIndex('readings_device_at').on('readings').columns(['device_id', 'at']).execute();

  await db.schema
    .createTable('device_latest')
    .addColumn('device_id', T.id, (c) => c.notNull().references('devices.id').onDelete('cascade'))
    .addColumn('metric', T.text, (c) => c.notNull())
    .addColumn('value', T.number, (c) => c.notNull())
    .addColumn('unit', T.text)
    .addColumn('at', T.time, (c) => c.notNull())
    .addPrimaryKeyConstraint('device_latest_pk', ['device_id', 'metric'])
    .execute();

  await db.schema
    .createTable('commands')
    .addColumn('id', T.id, (c) => c.primaryKey())
    .addColumn('farm_id', T.id, (c) => c.notNull().references('farms.id').onDelete('cascade'))
    .addColumn('device_id', T.id, (c) => c.notNull().references('devices.id').onDelete('cascade'))
    .addColumn('command', T.text, (c) => c.notNull())
    .addColumn('params', T.json, (c) => c.notNull())
    .addColumn('status', T.text, (c) => c.notNull())
    .addColumn('result', T.json)
    .addColumn('created_at', T.time, (c) => c.notNull())
    .addColumn('delivered_at', T.time)
    .addColumn('done_at', T.time)
    .addColumn('expires_at', T.time, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('commands_device')
    .on('commands')
    .columns(['device_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('commands_device_status')
    .on('commands')
    .columns(['device_id', 'status', 'created_at'])
    .execute();
  await db.schema.createIndex('commands_due').on('commands').columns(['status', 'expires_at']).execute();
  await db.schema.createIndex('commands_farm').on('commands').columns(['farm_id', 'created_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['commands', 'device_latest', 'readings', 'devices']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
