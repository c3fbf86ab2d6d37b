/**
 * What a signed-in person does with their notifications: their browsers (push subscriptions), their
 * settings per farm, the delivery log and a test notification. These belong to people: an API key is
 * refused (403) by `personOf`.
 */

import type { ApiCaller } from '../../calls/callers.ts';
import type { Page, PageRequest } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import { AppError, invalid, notFound } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import type { RoleName } from '../../domain/permissions.ts';
import { parseJson } from '../../lib/json.ts';
import { emailUnavailableReason } from './channels/email.ts';
import { checkPushEndpoint } from './channels/web-push.ts';
import { notificationRow } from './plan.ts';
import {
  deleteSubscription,
  insertNotifications,
  notifiableFarms,
  notificationPage,
  peopleWithSubscriptions,
  personById,
  saveSettings,
  storedSettingsOf,
  subscriptionPage,
  toNotification,
  toSubscription,
  upsertSubscription,
} from './repository.ts';
import type { NotificationSettingsPatchInput, PushSubscriptionInput } from './schemas.ts';
import { effectiveSettings, type PersonFarmSettings } from './settings.ts';

export interface Person {
  personId: string;
  accountId: string;
  email: string;
  role: RoleName;
}

/** The signed-in person behind a request, or 403: notifications are for people, not keys. */
export function personOf(caller: ApiCaller): Person {
  if (!caller.session) {
    throw new AppError(
      'forbidden',
      'Notifications belong to people: sign in to the console (a session cookie) to manage yours. API keys have none.',
    );
  }
  return {
    personId: caller.session.personId,
    accountId: caller.accountId,
    email: caller.session.email,
    role: caller.session.role,
  };
}

export async function addPushSubscription(
  db: Db,
  person: Person,
  input: PushSubscriptionInput,
  options: { allowPrivate: boolean; now?: number },
) {
  const now = options.now ?? Date.now();
  const endpoint = await checkPushEndpoint(input.endpoint, options);
  // The keys RFC 8291 encrypts with: an uncompressed P-256 point and a 16-byte secret.
  const p256dh = Buffer.from(input.keys.p256dh, 'base64url');
  if (p256dh.length !== 65 || p256dh[0] !== 4) {
    throw invalid('keys.p256dh', 'keys.p256dh must be the browser’s P-256 public key (65 bytes, base64url).');
  }
  if (Buffer.from(input.keys.auth, 'base64url').length !== 16) {
    throw invalid('keys.auth', 'keys.auth must be the browser’s 16-byte authentication secret (base64url).');
  }
  const row = await upsertSubscription(db, {
    id: newId('push_subscription', now),
    person_id: person.personId,
    endpoint,
    p256dh: input.keys.p256dh,
    auth: input.keys.auth,
    user_agent: input.user_agent ?? null,
    created_at: now,
    last_sent_at: null,
  });
  return toSubscription(row);
}

export async function listPushSubscriptions(db: Db, person: Person, page: PageRequest) {
  const rows = await subscriptionPage(db, person.personId, page);
  return { ...rows, data: rows.data.map(toSubscription) };
}

export async function removePushSubscription(db: Db, person: Person, id: string) {
  if (!(await deleteSubscription(db, person.personId, id))) throw notFound('push_subscription', id);
  return { id, deleted: true };
}

type FarmLite = Awaited<ReturnType<typeof notifiableFarms>>[number];

function toFarmSettings(farm: FarmLite, settings: PersonFarmSettings, customized: boolean) {
  return { farm_id: farm.id, farm_name: farm.name, mode: farm.mode, ...settings, customized };
}

export async function getNotificationSettings(db: Db, person: Person, config: { smtpUrl: string | null }) {
  const farms = await notifiableFarms(db, person.accountId);
  const stored = await storedSettingsOf(db, [person.personId]);
  const byFarm = new Map(
    stored.map((s) => [s.farm_id, parseJson<Partial<PersonFarmSettings>>(s.settings, {})]),
  );
  return {
    email: {
      available: config.smtpUrl !== null,
      address: person.email,
      unavailable_reason: emailUnavailableReason(config.smtpUrl),
    },
    farms: farms.map((farm) =>
      toFarmSettings(farm, effectiveSettings(person.role, byFarm.get(farm.id) ?? null), byFarm.has(farm.id)),
    ),
  };
}

/** Changes one farm's settings; members left out keep what they were. */
export async function updateNotificationSettings(
  db: Db,
  person: Person,
  input: NotificationSettingsPatchInput,
  now: number = Date.now(),
) {
  const farm = (await notifiableFarms(db, person.accountId)).find((f) => f.id === input.farm_id);
  if (!farm) throw notFound('farm', input.farm_id);
  const [stored] = await storedSettingsOf(db, [person.personId], farm.id);
  const current = effectiveSettings(person.role, stored ? parseJson(stored.settings, {}) : null);
  const next: PersonFarmSettings = {
    channels: { ...current.channels, ...(input.channels ?? {}) },
    quiet_hours:
      input.quiet_hours === undefined
        ? current.quiet_hours
        : input.quiet_hours === null
          ? null
          : { urgent_breaks_through: true, ...input.quiet_hours },
    muted_rules: input.muted_rules ?? current.muted_rules,
    brief_email_at: input.brief_email_at === undefined ? current.brief_email_at : input.brief_email_at,
    resolved_notices: input.resolved_notices ?? current.resolved_notices,
  };
  if (next.quiet_hours && next.quiet_hours.start === next.quiet_hours.end) {
    throw invalid('quiet_hours.end', 'quiet_hours.end must differ from quiet_hours.start.');
  }
  await saveSettings(db, person.personId, farm.id, JSON.stringify(next), now);
  return toFarmSettings(farm, next, true);
}

export async function listNotifications(
  db: Db,
  person: Person,
  page: PageRequest,
): Promise<Page<ReturnType<typeof toNotification>>> {
  const rows = await notificationPage(db, person.personId, page);
  return { ...rows, data: rows.data.map(toNotification) };
}

/**
 * Queues a test notification on each channel the person can receive (or the one asked for); the worker
 * sends it like any other, and the delivery log shows what the channel answered.
 */
export async function sendTestNotification(
  db: Db,
  person: Person,
  input: { channel?: 'push' | 'email' },
  config: { smtpUrl: string | null; publicUrl: string },
  now: number = Date.now(),
) {
  const channels: ('push' | 'email')[] = [];
  const subscribed = (await peopleWithSubscriptions(db, [person.personId])).has(person.personId);
  if ((input.channel ?? 'push') === 'push' && subscribed) channels.push('push');
  if ((input.channel ?? 'email') === 'email' && config.smtpUrl) channels.push('email');
  if (channels.length === 0) {
    const why =
      input.channel === 'email'
        ? emailUnavailableReason(config.smtpUrl)
        : input.channel === 'push'
          ? 'No browser of yours allows notifications yet: allow them on your Account page first.'
          : 'You have nowhere to receive notifications: allow them in a browser on your Account page (and email needs FARMSTEAD_SMTP_URL).';
    throw new AppError('conflict', why ?? 'Nothing to send to.', { param: 'channel' });
  }
  if (!(await personById(db, person.personId))) throw notFound('person', person.personId);
  const rows = channels.map((channel) => {
    const id = newId('notification', now);
    return {
      ...notificationRow({
        person: person.personId,
        farm: null,
        alert: null,
        kind: 'test',
        channel,
        step: 0,
        dedupe: `test:${id}`,
        severity: null,
        title: 'Farmstead test notification',
        body: 'Notifications reach you here. Alerts will look like this.',
        url: `${config.publicUrl}/account`,
        due: now,
        now,
      }),
      id,
    };
  });
  await insertNotifications(db, rows);
  return {
    data: rows.map((r) =>
      toNotification({ ...r, locked_until: null } as Parameters<typeof toNotification>[0]),
    ),
  };
}
