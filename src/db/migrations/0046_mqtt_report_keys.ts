/**
 * MQTT reports' own idempotence keys (issue 48): on an external broker a report the broker hands over again
 * (a process killed before its PUBACK left) must be stored once. The key is the device and the SHA-256 of
 * the payload's bytes, written in the report's transaction; an hour of them is kept (`mqtt.prune`).
 * docs/devices.md says why that key.
 */
import type { Kysely } from 'kysely';
import { T } from './helpers.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('mqtt_report_keys')
    .addColumn('device_id', T.id, (c) => c.notNull())
    .addColumn('digest', T.text, (c) => c.notNull())
    .addColumn('received_at', T.time, (c) => c.notNull())
    .addPrimaryKeyConstraint('mqtt_report_keys_pk', ['device_id', 'digest'])
    .execute();
  await db.schema
    .createIndex('mqtt_report_keys_received')
    .on('mqtt_report_keys')
    .column('received_at')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('mqtt_report_keys').execute();
}
