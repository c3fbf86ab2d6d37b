/**
 * The notifications' queries, on the tables this module owns only: the VAPID key pair, push subscriptions,
 * settings, channel targets, the notifications queue (a kind of the one delivery queue) and acknowledge
 * tokens; the escalations' are in escalation-repository.ts. What it reads of other modules' tables goes
 * through their owners: people (people/repository.ts), farms (farms/repository.ts), alerts
 * (alerts/repository.ts) and the outbox's notification cursor (db/statements/outbox.ts); see audience.ts.
 */
import type { Insertable, Selectable } from 'kysely';
import { claimDue, type Leased, pruneSettled, type QueueTable } from '../../db/delivery-queue.ts';
import { fetchPage, type PageRequest } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import type {
  NotificationChannel,
  NotificationsTable,
  PushSubscriptionsTable,
} from '../../db/tables/notifications.ts';
import { toIso } from '../../lib/time.ts';

export type NotificationRow = Selectable<NotificationsTable>;
export type SubscriptionRow = Selectable<PushSubscriptionsTable>;

// The key pair ------------------------------------------------------------------------------------------

export async function storedKeys(db: Db) {
  return db
    .selectFrom('notification_keys')
    .select(['public_key', 'private_key'])
    .where('id', '=', 1)
    .executeTakeFirst();
}

/** Stores a key pair unless one is already stored (two processes starting at once keep the first). */
export async function insertKeysOnce(db: Db, keys: { public_key: string; private_key: string }, now: number) {
  await db
    .insertInto('notification_keys')
    .values({ id: 1, ...keys, created_at: now })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
}

// Subscriptions ----------------------------------------------------------------------------------------

/** Saves a browser's subscription for a person; the same endpoint again replaces the old row's keys and owner. */
export async function upsertSubscription(
  db: Db,
  row: Insertable<PushSubscriptionsTable>,
): Promise<SubscriptionRow> {
  return db
    .insertInto('push_subscriptions')
    .values(row)
    .onConflict((oc) =>
      oc.column('endpoint').doUpdateSet({
        person_id: row.person_id,
        p256dh: row.p256dh,
        auth: row.auth,
        user_agent: row.user_agent ?? null,
      }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function subscriptionsOf(db: Db, personId: string): Promise<SubscriptionRow[]> {
  return db
    .selectFrom('push_subscriptions')
    .selectAll()
    .where('person_id', '=', personId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/** A person's browsers, newest first, as a keyset page (db/pagination.ts). */
export function subscriptionPage(db: Db, personId: string, page: PageRequest) {
  return fetchPage(
    db.selectFrom('push_subscriptions').selectAll().where('person_id', '=', personId),
    page,
    (r) => r,
  );
}

export async function deleteSubscription(db: Db, personId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('push_subscriptions')
    .where('id', '=', id)
    .where('person_id', '=', personId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** A push service said the subscription is gone (404/410). */
export async function deleteSubscriptionById(db: Db, id: string): Promise<void> {
  await db.deleteFrom('push_subscriptions').where('id', '=', id).execute();
}

export async function touchSubscription(db: Db, id: string, at: number): Promise<void> {
  await db.updateTable('push_subscriptions').set({ last_sent_at: at }).where('id', '=', id).execute();
}

/** Which of these people have at least one browser subscribed. */
export async function peopleWithSubscriptions(db: Db, personIds: readonly string[]): Promise<Set<string>> {
  if (personIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('push_subscriptions')
    .select('person_id')
    .distinct()
    .where('person_id', 'in', personIds)
    .execute();
  return new Set(rows.map((r) => r.person_id));
}

// Settings ---------------------------------------------------------------------------------------------

export function storedSettingsOf(db: Db, personIds: readonly string[], farmId?: string) {
  if (personIds.length === 0) return Promise.resolve([]);
  let q = db
    .selectFrom('notification_settings')
    .select(['person_id', 'farm_id', 'settings'])
    .where('person_id', 'in', personIds);
  if (farmId !== undefined) q = q.where('farm_id', '=', farmId);
  return q.execute();
}

export async function saveSettings(db: Db, personId: string, farmId: string, settings: string, now: number) {
  await db
    .insertInto('notification_settings')
    .values({ person_id: personId, farm_id: farmId, settings, updated_at: now })
    .onConflict((oc) => oc.columns(['person_id', 'farm_id']).doUpdateSet({ settings, updated_at: now }))
    .execute();
}

// Channel targets (where a person is reached on a channel that needs set-up: ntfy's topic) ---------------

/** A person's stored target on a channel (JSON text), if any. */
export async function targetOf(db: Db, personId: string, channel: NotificationChannel) {
  const row = await db
    .selectFrom('notification_targets')
    .select('target')
    .where('person_id', '=', personId)
    .where('channel', '=', channel)
    .executeTakeFirst();
  return row?.target;
}

/** Which of these people have a target saved on a channel. */
export async function peopleWithTarget(
  db: Db,
  personIds: readonly string[],
  channel: NotificationChannel,
): Promise<Set<string>> {
  if (personIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('notification_targets')
    .select('person_id')
    .where('person_id', 'in', personIds)
    .where('channel', '=', channel)
    .execute();
  return new Set(rows.map((r) => r.person_id));
}

/** Saves (a JSON text) or, with null, removes a person's target on a channel. */
export async function saveTarget(
  db: Db,
  personId: string,
  channel: NotificationChannel,
  target: string | null,
  now: number,
): Promise<void> {
  if (target === null) {
    await db
      .deleteFrom('notification_targets')
      .where('person_id', '=', personId)
      .where('channel', '=', channel)
      .execute();
    return;
  }
  await db
    .insertInto('notification_targets')
    .values({ person_id: personId, channel, target, updated_at: now })
    .onConflict((oc) => oc.columns(['person_id', 'channel']).doUpdateSet({ target, updated_at: now }))
    .execute();
}

// The queue --------------------------------------------------------------------------------------------

/** Inserts notifications, at most one per dedupe key whatever ran before (the unique index). */
export async function insertNotifications(
  db: Db,
  rows: readonly Insertable<NotificationsTable>[],
): Promise<void> {
  for (let i = 0; i < rows.length; i += 200) {
    await db
      .insertInto('notifications')
      .values(rows.slice(i, i + 200))
      .onConflict((oc) => oc.column('dedupe_key').doNothing())
      .execute();
  }
}

/** A person's delivery log, newest first, as a keyset page (db/pagination.ts). */
export function notificationPage(db: Db, personId: string, page: PageRequest) {
  return fetchPage(
    db.selectFrom('notifications').selectAll().where('person_id', '=', personId),
    page,
    (r) => r,
  );
}

/**
 * Notifications as a kind of the one delivery queue (db/delivery-queue.ts): `sent` once a channel accepted
 * one, `skipped` when there was nothing to send it to, else retried, then `failed`.
 */
export const NOTIFICATION_QUEUE: QueueTable<'notifications'> = {
  name: 'notifications',
  table: 'notifications',
  key: 'id',
  attempts: 'attempt_count',
  statuses: {
    pending: 'pending',
    succeeded: 'sent',
    failed: 'failed',
    expired: 'failed',
    skipped: 'skipped',
  },
  open: ['pending'],
};

/** A claimed notification: its row as the claim left it (the attempt counted) and its lease. */
export type ClaimedNotification = NotificationRow & Leased;

/** Leases up to `limit` due notifications for `leaseMs` (oldest due first), each with its row. */
export async function claimDueNotifications(
  db: Db,
  now: number,
  limit: number,
  leaseMs: number,
): Promise<ClaimedNotification[]> {
  const leased = await claimDue(db, NOTIFICATION_QUEUE, { now, limit, leaseMs });
  if (leased.length === 0) return [];
  const rows = await db
    .selectFrom('notifications')
    .selectAll()
    .where(
      'id',
      'in',
      leased.map((l) => l.key),
    )
    .execute();
  const byId = new Map(rows.map((r) => [r.id, r]));
  return leased.flatMap((l) => {
    const row = byId.get(l.key);
    return row ? [{ ...row, ...l }] : [];
  });
}

/**
 * Whether a notice about the same alert made after this one (a later id: ids are time-sortable) reached the
 * same person on the same channel: then this one is out of date. Read through `notifications_alert`.
 */
export async function laterNoticeSent(
  db: Db,
  row: Pick<NotificationRow, 'id' | 'alert_id' | 'person_id' | 'channel'>,
): Promise<boolean> {
  if (!row.alert_id) return false;
  const later = await db
    .selectFrom('notifications')
    .select('id')
    .where('alert_id', '=', row.alert_id)
    .where('person_id', '=', row.person_id)
    .where('channel', '=', row.channel)
    .where('kind', '=', 'alert')
    .where('status', '=', 'sent')
    .where('id', '>', row.id)
    .limit(1)
    .executeTakeFirst();
  return later !== undefined;
}

/**
 * A person's notices on a farm held back and never tried (pending, no attempt yet): the first notices of
 * alerts and the resolved notices, the ones quiet hours hold. Escalation steps (step > 0) are left alone:
 * they ignore quiet hours; briefs keep the time chosen for them.
 */
export function heldNotices(db: Db, personId: string, farmId: string) {
  return db
    .selectFrom('notifications')
    .select(['id', 'kind', 'severity', 'next_attempt_at'])
    .where('person_id', '=', personId)
    .where('farm_id', '=', farmId)
    .where('status', '=', 'pending')
    .where('attempt_count', '=', 0)
    .where('step', '=', 0)
    .where('kind', 'in', ['alert', 'resolved'])
    .execute();
}

/** Moves held notices (still pending and untried) to a new due time. */
export async function rescheduleNotices(db: Db, ids: readonly string[], at: number): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('notifications')
    .set({ next_attempt_at: at })
    .where('id', 'in', ids)
    .where('status', '=', 'pending')
    .where('attempt_count', '=', 0)
    .execute();
}

/** Who was sent each of these alerts' opening notice, and on which channel, by alert (one query). */
export async function toldAbout(
  db: Db,
  alertIds: readonly string[],
): Promise<Map<string, { person_id: string; channel: NotificationChannel }[]>> {
  const told = new Map<string, { person_id: string; channel: NotificationChannel }[]>();
  if (alertIds.length === 0) return told;
  const rows = await db
    .selectFrom('notifications')
    .select(['alert_id', 'person_id', 'channel'])
    .distinct()
    .where('alert_id', 'in', alertIds)
    .where('kind', '=', 'alert')
    .where('status', '=', 'sent')
    .execute();
  for (const row of rows) {
    if (!row.alert_id) continue;
    const list = told.get(row.alert_id) ?? [];
    list.push({ person_id: row.person_id, channel: row.channel });
    told.set(row.alert_id, list);
  }
  return told;
}

// Acknowledge tokens -----------------------------------------------------------------------------------

export async function insertAckToken(
  db: Db,
  row: { token_hash: string; alert_id: string; person_id: string; created_at: number; expires_at: number },
) {
  await db
    .insertInto('notification_ack_tokens')
    .values({ ...row, used_at: null })
    .execute();
}

/** Uses a token up, once: returns it when it was unused and unexpired at `now`. */
export function useAckToken(db: Db, tokenHash: string, now: number) {
  return db
    .updateTable('notification_ack_tokens')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['alert_id', 'person_id'])
    .executeTakeFirst();
}

export function ackTokenByHash(db: Db, tokenHash: string) {
  return db
    .selectFrom('notification_ack_tokens')
    .select(['alert_id', 'person_id', 'expires_at', 'used_at'])
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
}

export async function pruneAckTokens(db: Db, before: number): Promise<number> {
  const result = await db
    .deleteFrom('notification_ack_tokens')
    .where('expires_at', '<', before)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

// API objects ------------------------------------------------------------------------------------------

export function toSubscription(row: SubscriptionRow) {
  return {
    id: row.id,
    endpoint_origin: new URL(row.endpoint).origin,
    user_agent: row.user_agent,
    created_at: toIso(row.created_at),
    last_sent_at: row.last_sent_at === null ? null : toIso(row.last_sent_at),
  };
}

export function toNotification(row: NotificationRow) {
  return {
    id: row.id,
    kind: row.kind,
    channel: row.channel,
    step: row.step,
    farm_id: row.farm_id,
    alert_id: row.alert_id,
    severity: row.severity,
    title: row.title,
    body: row.body,
    url: row.url,
    status: row.status,
    attempts: row.attempt_count,
    answer: row.answer,
    created_at: toIso(row.created_at),
    next_attempt_at: row.next_attempt_at === null ? null : toIso(row.next_attempt_at),
    sent_at: row.sent_at === null ? null : toIso(row.sent_at),
  };
}

/** Deletes settled notifications created before `before` (never a pending one); returns how many. */
export function pruneNotifications(db: Db, before: number): Promise<number> {
  return pruneSettled(db, NOTIFICATION_QUEUE, { before });
}
