/**
 * What a signed-in person does with their notifications: their browsers (push subscriptions), their
 * settings per farm and the set-up of channels that need their own (ntfy's topic), the delivery log and a
 * test notification. These belong to people: an API key is refused (403) by `personOf`.
 */

import type { ApiCaller } from '../../calls/callers.ts';
import type { Page, PageRequest } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import { BUILT_IN_RULE_NAMES } from '../../domain/built-in-rules.ts';
import { ALARM_EVENT_TYPES } from '../../domain/devices.ts';
import { AppError, invalid, notFound } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { NOTIFICATION_CHANNELS, type NotificationChannel } from '../../domain/notification-channels.ts';
import type { RoleName } from '../../domain/permissions.ts';
import { parseJson } from '../../lib/json.ts';
import { customRuleNames, farmById, notifiableFarms, personById } from './audience.ts';
import { emailUnavailableReason } from './channels/email.ts';
import { CHANNELS, channel, TARGET_CHANNELS, type TargetChannel } from './channels/registry.ts';
import { serverSetup } from './channels/types.ts';
import { checkPushEndpoint } from './channels/web-push.ts';
import { DEFAULT_READER, say } from './content.ts';
import { notificationRow } from './plan.ts';
import {
  deleteSubscription,
  heldNotices,
  insertNotifications,
  notificationPage,
  rescheduleNotices,
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
import { effectiveSettings, type PersonFarmSettings, releaseTime } from './settings.ts';

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
  const reader = (await personById(db, person.personId)) ?? DEFAULT_READER;
  const byFarm = new Map(
    stored.map((s) => [s.farm_id, parseJson<Partial<PersonFarmSettings>>(s.settings, {})]),
  );
  return {
    email: {
      available: config.smtpUrl !== null,
      address: person.email,
      unavailable_reason: emailUnavailableReason(config.smtpUrl, reader),
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

/** The PATCH's members that are one farm's settings (the rest, ntfy's topic, hold for every farm). */
const FARM_MEMBERS = [
  'channels',
  'quiet_hours',
  'muted_rules',
  'brief_email_at',
  'resolved_notices',
] as const;

/** The farm a PATCH names: one of the person's account's real farms (the sample farm sends nothing). */
async function farmToChange(db: Db, person: Person, farmId: string): Promise<FarmLite> {
  const farm = (await notifiableFarms(db, person.accountId)).find((f) => f.id === farmId);
  if (farm) return farm;
  const other = await farmById(db, farmId);
  if (other?.account_id === person.accountId && other.sample === 1) {
    throw invalid(
      'farm_id',
      'The sample farm sends no notifications (its alerts are simulated), so it has no notification settings. Leave farm_id out to save only your ntfy topic, which holds for every farm.',
    );
  }
  throw notFound('farm', farmId);
}

/** How many valid names a refused `muted_rules` entry's message lists. */
const SUGGESTED_RULES = 6;

/**
 * Refuses a muted rule that is none of the farm's: the built-in rules (src/domain/built-in-rules.ts), the
 * device alarms (their event type is the alert's rule) and the farm's own rules. A typo would mute nothing.
 */
async function checkMutedRules(db: Db, farmId: string, names: readonly string[]): Promise<void> {
  if (names.length === 0) return;
  const known = [
    ...BUILT_IN_RULE_NAMES,
    ...ALARM_EVENT_TYPES.map((e) => e.type),
    ...(await customRuleNames(db, farmId)),
  ];
  const index = names.findIndex((name) => !known.includes(name));
  const name = names[index];
  if (name === undefined) return;
  // Names of the same family first (`house.amonia` → house.ammonia, house.temperature…).
  const family = name.split('.')[0]?.toLowerCase() ?? '';
  const suggested = [
    ...known.filter((k) => k.startsWith(`${family}.`)),
    ...known.filter((k) => !k.startsWith(`${family}.`)),
  ].slice(0, SUGGESTED_RULES);
  throw invalid(
    `muted_rules[${index}]`,
    `muted_rules[${index}] "${name.slice(0, 100)}" is not one of this farm's rules; a rule's name, e.g. ${suggested.join(', ')} (GET /v1/catalog lists the built-in rules, GET /v1/farms/{farm}/rules the farm's own).`,
  );
}

/**
 * Changes one farm's settings (members left out keep what they were) and the person's own set-up of the
 * channels that need one, which holds for every farm. The topic alone needs no farm_id, and saving it
 * writes no farm's settings (they keep following the role's defaults). Changing quiet hours moves the
 * notices they hold on that farm to the new end (or to now, when they no longer hold them).
 */
export async function updateNotificationSettings(
  db: Db,
  person: Person,
  input: NotificationSettingsPatchInput,
  options: { allowPrivate: boolean; now?: number },
) {
  const now = options.now ?? Date.now();
  const changed = FARM_MEMBERS.filter((name) => input[name] !== undefined);
  if (input.farm_id === undefined) {
    if (changed.length > 0 || !TARGET_CHANNELS.some((name) => input[name] !== undefined)) {
      throw invalid(
        'farm_id',
        changed.length > 0
          ? `farm_id is required with ${changed.join(', ')}: they are one farm's settings (only ntfy holds for every farm).`
          : 'farm_id is required: name the farm whose settings you change, or give ntfy alone (your topic, for every farm).',
      );
    }
    await saveTargets(db, person, input, { allowPrivate: options.allowPrivate, now });
    return targetViews(db, person.personId);
  }
  const farm = await farmToChange(db, person, input.farm_id);
  const [stored] = await storedSettingsOf(db, [person.personId], farm.id);
  const current = effectiveSettings(person.role, stored ? parseJson(stored.settings, {}) : null);
  if (changed.length === 0) {
    await saveTargets(db, person, input, { allowPrivate: options.allowPrivate, now });
    return {
      ...toFarmSettings(farm, current, stored !== undefined),
      ...(await targetViews(db, person.personId)),
    };
  }
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
  if (input.muted_rules) await checkMutedRules(db, farm.id, input.muted_rules);
  // Every check first: a refused topic URL leaves the farm's settings as they were.
  await inTransaction(db, async (trx) => {
    await saveTargets(trx, person, input, { allowPrivate: options.allowPrivate, now });
    await saveSettings(trx, person.personId, farm.id, JSON.stringify(next), now);
    if (input.quiet_hours !== undefined) await releaseHeld(trx, person, farm, next, now);
  });
  return { ...toFarmSettings(farm, next, true), ...(await targetViews(db, person.personId)) };
}

/**
 * Reschedules the person's notices held on this farm by the quiet hours they just changed: each is due when
 * the new settings release it at `now` (at once when they no longer hold it), as if planned now.
 */
async function releaseHeld(
  db: Db,
  person: Person,
  farm: FarmLite,
  settings: PersonFarmSettings,
  now: number,
) {
  const byTime = new Map<number, string[]>();
  for (const row of await heldNotices(db, person.personId, farm.id)) {
    // A resolved notice waits like a non-urgent one (plan.ts).
    const at = releaseTime(settings, row.kind === 'alert' ? row.severity : null, now, farm.timezone);
    if (at === row.next_attempt_at) continue;
    byTime.set(at, [...(byTime.get(at) ?? []), row.id]);
  }
  for (const [at, ids] of byTime) await rescheduleNotices(db, ids, at);
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
 * Queues a test notification on each channel the person can receive (or the one asked for), in their
 * language; the worker sends it like any other, and the delivery log shows what the channel answered.
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
  const reader = await personById(db, person.personId);
  if (!reader) throw notFound('person', person.personId);
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
        title: say(reader, 'test_title'),
        body: say(reader, 'test_body'),
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
