/**
 * Notification channels as adapters (modules/notifications/channels/): `notification_targets` holds where a
 * person is reached on a channel that needs set-up of its own, for every farm (ntfy: the topic's URL and an
 * optional access token, JSON text); and `alerts.acknowledged_by` names the person who acknowledged an alert
 * (from the console or with a notification's acknowledge token; null: an API key, an agent, or before this).
 */
import type { Kysely } from 'kysely';
import { T } from './helpers.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('notification_targets')
    .addColumn('person_id', T.id, (c) => c.notNull().references('people.id').onDelete('cascade'))
    .addColumn('channel', T.text, (c) => c.notNull())
    .addColumn('target', T.json, (c) => c.notNull())
    .addColumn('updated_at', T.time, (c) => c.notNull())
    .addPrimaryKeyConstraint('notification_targets_pk', ['person_id', 'channel'])
    .execute();
  // No foreign key: the name stays on the alert's history when the person is removed.
  await db.schema.alterTable('alerts').addColumn('acknowledged_by', T.id).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('alerts').dropColumn('acknowledged_by').execute();
  await db.schema.dropTable('notification_targets').execute();
}
