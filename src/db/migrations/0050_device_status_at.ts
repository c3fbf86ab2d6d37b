/**
 * When a device's battery, position and firmware were read (`devices.status_at`): the newest report's `at`
 * that carried any of them. A report older than that (a LoRaWAN uplink handed over late, an MQTT message
 * queued behind newer ones, a report with an earlier `at`) no longer overwrites them with older values; its
 * position still goes into the track, at its own time (docs/devices.md, "A report's time"). Null until a
 * report sets it: rows stored before take the next report's values, as they did.
 */
import type { Kysely } from 'kysely';
import { T } from './helpers.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('devices').addColumn('status_at', T.time).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('devices').dropColumn('status_at').execute();
}
