/**
 * What a signed-in person does with their notifications: their browsers (push subscriptions), their
 * settings per farm and the set-up of channels that need their own (ntfy's topic), the delivery log and a
 * test notification. These belong to people: an API key is refused (403) by `personOf`.
 */

import type { ApiCaller } from '../../calls/callers.ts';
import type { Page, PageRequest } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import { AppError, invalid, notFound } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { NOTIFICATION_CHANNELS, type NotificationChannel } from '../../domain/notification-channels.ts';
import type { RoleName } from '../../domain/permissions.ts';
import { parseJson } from '../../lib/json.ts';
import { notifiableFarms, personById } from './audience.ts';
import { emailUnavailableReason } from './channels/email.ts';
import { CHANNELS, channel, TARGET_CHANNELS, type TargetChannel } from './channels/registry.ts';
import { serverSetup } from './channels/types.ts';
import { checkPushEndpoint } from './channels/web-push.ts';
import { notificationRow } from './plan.ts';
import {
  deleteSubscription,
  insertNotifications,
  notificationPage,
  saveSettings,
  saveTarget,
  storedSettingsOf,
  subscriptionPage,
  targetOf,
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

/** What the person set up on each channel that needs it, as shown (a token never in full); null: nothing. */
async function targetViews(db: Db, personId: string) {
  const views = {} as { [C in TargetChannel]: ReturnType<(typeof CHANNELS)[C]['target']['show']> | null };
  for (const name of TARGET_CHANNELS) {
    const stored = await targetOf(db, personId, name);
    views[name] = stored ? CHANNELS[name].target.show(JSON.parse(stored)) : null;
  }
  return views;
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
    ...(await targetViews(db, person.personId)),
    farms: farms.map((farm) =>
      toFarmSettings(farm, effectiveSettings(person.role, byFarm.get(farm.id) ?? null), byFarm.has(farm.id)),
    ),
  };
}

/** Saves (or, with null, removes) the person's set-up of each channel the PATCH names (ntfy's topic). */
async function saveTargets(
  db: Db,
  person: Person,
  input: NotificationSettingsPatchInput,
  options: { allowPrivate: boolean; now: number },
) {
  for (const name of TARGET_CHANNELS) {
    const given = input[name];
    if (given === undefined) continue;
    if (given === null) {
      await saveTarget(db, person.personId, name, null, options.now);
      continue;
    }
    const adapter = CHANNELS[name];
    const previous = await targetOf(db, person.personId, name);
    const stored = await adapter.target.check(given, previous ? JSON.parse(previous) : null, options);
    await saveTarget(db, person.personId, name, JSON.stringify(stored), options.now);
  }
}

/**
 * Changes one farm's settings (members left out keep what they were) and the person's own set-up of the
 * channels that need one, which holds for every farm.
 */
export async function updateNotificationSettings(
  db: Db,
  person: Person,
  input: NotificationSettingsPatchInput,
  options: { allowPrivate: boolean; now?: number },
) {
  const now = options.now ?? Date.now();
  const farm = (await notifiableFarms(db, person.accountId)).find((f) => f.id === input.farm_id);
  if (!farm) throw notFound('farm', input.farm_id);
  const [stored] = await storedSettingsOf(db, [person.personId], farm.id);
  const current = effectiveSettings(person.role, stored ? parseJson(stored.settings, {}) : null);
  const channels = { ...current.channels };
  for (const name of NOTIFICATION_CHANNELS) channels[name] = input.channels?.[name] ?? channels[name];
  const next: PersonFarmSettings = {
    channels,
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
  // Every check first: a refused topic URL leaves the farm's settings as they were.
  await inTransaction(db, async (trx) => {
    await saveTargets(trx, person, input, { allowPrivate: options.allowPrivate, now });
    await saveSettings(trx, person.personId, farm.id, JSON.stringify(next), now);
  });
  return { ...toFarmSettings(farm, next, true), ...(await targetViews(db, person.personId)) };
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
  input: { channel?: NotificationChannel },
  config: { smtpUrl: string | null; publicUrl: string },
  now: number = Date.now(),
) {
  const asked = input.channel ? [input.channel] : NOTIFICATION_CHANNELS;
  const channels: NotificationChannel[] = [];
  const why: string[] = [];
  for (const name of asked) {
    const adapter = channel(name);
    const unavailable = adapter.unavailable(serverSetup(config));
    if (unavailable) why.push(unavailable);
    else if (!(await adapter.reachable(db, [person.personId])).has(person.personId))
      why.push(adapter.unreachable);
    else channels.push(name);
  }
  if (channels.length === 0) {
    const message = input.channel
      ? (why[0] ?? 'Nothing to send to.')
      : 'You have nowhere to receive notifications: allow them in a browser or add an ntfy topic on your Account page (and email needs FARMSTEAD_SMTP_URL).';
    throw new AppError('conflict', message, { param: 'channel' });
  }
  if (!(await personById(db, person.personId))) throw notFound('person', person.personId);
  const rows = channels.map((name) => {
    const id = newId('notification', now);
    return {
      ...notificationRow({
        person: person.personId,
        farm: null,
        alert: null,
        kind: 'test',
        channel: name,
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
