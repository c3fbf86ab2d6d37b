/**
 * Notifications to people (modules/notifications): the server's VAPID key pair, each person's browsers
 * (push subscriptions), their settings per farm, the notifications themselves (one row per person, alert,
 * channel and step, under a unique key: the exactly-once promise), acknowledge tokens (hashes only), the
 * escalation state of urgent alerts, and the outbox's second cursor, `notified_at`: alert events (and farm
 * events, which carry `alert.escalated`) the notification planner has not read yet (a partial index holds
 * just those). Rows already in the outbox are
 * marked read, so an upgrade does not notify anyone of old alerts.
 */
import { type Kysely, sql } from 'kysely';
import { T } from './helpers.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('notification_keys')
    .addColumn('id', T.int, (c) => c.primaryKey())
    .addColumn('public_key', T.text, (c) => c.notNull())
    .addColumn('private_key', T.text, (c) => c.notNull())
    .addColumn('created_at', T.time, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('push_subscriptions')
    .addColumn('id', T.id, (c) => c.primaryKey())
    .addColumn('person_id', T.id, (c) => c.notNull().references('people.id').onDelete('cascade'))
    // A browser's endpoint belongs to whoever subscribed last on it.
    .addColumn('endpoint', T.text, (c) => c.notNull().unique())
    .addColumn('p256dh', T.text, (c) => c.notNull())
    .addColumn('auth', T.text, (c) => c.notNull())
    .addColumn('user_agent', T.text)
    .addColumn('created_at', T.time, (c) => c.notNull())
    .addColumn('last_sent_at', T.time)
    .execute();
  await db.schema
    .createIndex('push_subscriptions_person')
    .on('push_subscriptions')
    .column('person_id')
    .execute();

  await db.schema
    .createTable('notification_settings')
    .addColumn('person_id', T.id, (c) => c.notNull().references('people.id').onDelete('cascade'))
    .addColumn('farm_id', T.id, (c) => c.notNull().references('farms.id').onDelete('cascade'))
    .addColumn('settings', T.json, (c) => c.notNull())
    .addColumn('updated_at', T.time, (c) => c.notNull())
    .addPrimaryKeyConstraint('notification_settings_pk', ['person_id', 'farm_id'])
    .execute();

  await db.schema
    .createTable('notifications')
    .addColumn('id', T.id, (c) => c.primaryKey())
    .addColumn('person_id', T.id, (c) => c.notNull().references('people.id').onDelete('cascade'))
    .addColumn('farm_id', T.id, (c) => c.references('farms.id').onDelete('cascade'))
    .addColumn('alert_id', T.id)
    // alert | resolved | test | brief
    .addColumn('kind', T.text, (c) => c.notNull())
    // push | email
    .addColumn('channel', T.text, (c) => c.notNull())
    // 0: the alert's first notice; 1, 2, …: escalation steps.
    .addColumn('step', T.int, (c) => c.notNull())
    // person, alert (or test / brief day), channel and step: at most one row, whatever runs twice.
    .addColumn('dedupe_key', T.text, (c) => c.notNull().unique())
    .addColumn('severity', T.text)
    .addColumn('title', T.text, (c) => c.notNull())
    .addColumn('body', T.text, (c) => c.notNull())
    .addColumn('url', T.text, (c) => c.notNull())
    // pending | sent | failed | skipped
    .addColumn('status', T.text, (c) => c.notNull())
    .addColumn('attempt_count', T.int, (c) => c.notNull())
    .addColumn('next_attempt_at', T.time)
    .addColumn('locked_until', T.time)
    // What the channel answered last (or why nothing was sent).
    .addColumn('answer', T.text)
    .addColumn('created_at', T.time, (c) => c.notNull())
    .addColumn('sent_at', T.time)
    .execute();
  await db.schema
    .createIndex('notifications_person')
    .on('notifications')
    .columns(['person_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('notifications_due')
    .on('notifications')
    .column('next_attempt_at')
    .where(sql.ref('status'), '=', 'pending')
    .execute();
  await db.schema.createIndex('notifications_alert').on('notifications').column('alert_id').execute();

  await db.schema
    .createTable('notification_ack_tokens')
    .addColumn('token_hash', T.text, (c) => c.primaryKey())
    .addColumn('alert_id', T.id, (c) => c.notNull())
    .addColumn('person_id', T.id, (c) => c.notNull().references('people.id').onDelete('cascade'))
    .addColumn('created_at', T.time, (c) => c.notNull())
    .addColumn('expires_at', T.time, (c) => c.notNull())
    .addColumn('used_at', T.time)
    .execute();

  await db.schema
    .createTable('alert_escalations')
    .addColumn('alert_id', T.id, (c) => c.primaryKey().references('alerts.id').onDelete('cascade'))
    .addColumn('farm_id', T.id, (c) => c.notNull())
    // The last step notified (0: the first notice).
    .addColumn('step', T.int, (c) => c.notNull())
    .addColumn('next_at', T.time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('alert_escalations_next').on('alert_escalations').column('next_at').execute();

  await db.schema.alterTable('outbox').addColumn('notified_at', T.time).execute();
  await sql`update outbox set notified_at = created_at`.execute(db);
  await db.schema
    .createIndex('outbox_unnotified')
    .on('outbox')
    .column('id')
    // event.created: an alert escalated from watch to urgent is logged as a farm event (alert.escalated).
    .where(sql<boolean>`notified_at is null and type in ('alert.created', 'alert.resolved', 'event.created')`)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('outbox_unnotified').ifExists().execute();
  await db.schema.alterTable('outbox').dropColumn('notified_at').execute();
  for (const table of [
    'alert_escalations',
    'notification_ack_tokens',
    'notifications',
    'notification_settings',
    'push_subscriptions',
    'notification_keys',
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
