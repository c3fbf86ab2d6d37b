/**
 * Notification delivery, step 1: planning. Alert events are read from the same outbox the webhooks are
 * dispatched from, through a second cursor (`outbox.notified_at`), and become one notification row per
 * person, alert, channel and step (the row's unique `dedupe_key`), in the transaction that marks the events
 * read. PostgreSQL workers skip the events another worker holds (FOR UPDATE SKIP LOCKED), and the unique
 * key keeps a second planning of the same event (after a crash) from adding anything.
 *  - `alert.created`: everyone of the farm's account whose settings take that severity on a channel, and the
 *    rule is not muted; held until their quiet hours end unless urgent breaks through; an urgent alert also
 *    starts the farm's escalation (escalation.ts).
 *  - `event.created` of type `alert.escalated` (a watch alert crossed the urgent line: the same alert, now
 *    urgent): planned as an urgent alert opening, under keys of their own (`…:0:urgent`), so people told of the
 *    watch alert are told again that it is urgent, and the escalation starts. Other farm events are only read.
 *  - `alert.resolved`: the escalation ends, and whoever was told the alert opened gets a "resolved" notice on
 *    the same channels (unless they turned those off).
 */
import type { Insertable } from 'kysely';
import type { Db } from '../../db/schema.ts';
import { markNotified, unnotifiedEvents } from '../../db/statements/outbox.ts';
import type { AlertSeverity } from '../../db/tables/alerts.ts';
import type {
  NotificationChannel,
  NotificationKind,
  NotificationsTable,
} from '../../db/tables/notifications.ts';
import { inTransaction } from '../../db/transaction.ts';
import { alertWordsOf } from '../../domain/alert-words.ts';
import { escalationOf } from '../../domain/escalation.ts';
import { newId } from '../../domain/ids.ts';
import { NOTIFICATION_CHANNELS } from '../../domain/notification-channels.ts';
import { parseJson } from '../../lib/json.ts';
import { HOUR_MS, MINUTE_MS } from '../../lib/time.ts';
import { alertById, farmById, type PersonRow, peopleOfAccount } from './audience.ts';
import { channel } from './channels/registry.ts';
import type { ServerSetup } from './channels/types.ts';
import { type AlertFacts, alertNotice, alertUrl, DEFAULT_READER, resolvedNotice } from './content.ts';
import { endEscalations, startEscalation } from './escalation-repository.ts';
import { insertNotifications, storedSettingsOf, toldAbout } from './repository.ts';
import { effectiveSettings, type PersonFarmSettings, releaseTime } from './settings.ts';

/** An alert event older than this when read wakes nobody (a worker that was down for long, a bulk import). */
export const STALE_EVENT_MS = 6 * HOUR_MS;

export interface PlanOptions extends ServerSetup {
  now: number;
  publicUrl: string;
  limit?: number;
}

/** Who of these people each channel can reach now, on this server (email: only with SMTP configured). */
export async function reachOf(
  db: Db,
  personIds: readonly string[],
  options: ServerSetup,
): Promise<Map<NotificationChannel, Set<string>>> {
  const reach = new Map<NotificationChannel, Set<string>>();
  for (const name of NOTIFICATION_CHANNELS) {
    const offered = channel(name).unavailable(options) === null;
    reach.set(name, offered ? await channel(name).reachable(db, personIds) : new Set());
  }
  return reach;
}

type Farm = NonNullable<Awaited<ReturnType<typeof farmById>>>;

/** A farm's people, their settings for it and who each channel reaches: what planning an alert reads. */
interface Audience {
  people: PersonRow[];
  settings: Map<string, PersonFarmSettings>;
  reach: Map<NotificationChannel, Set<string>>;
}

/**
 * What the events of one batch share, read once per batch (its transaction) rather than once per event: a
 * farm and its audience, and who was told of each resolved alert. A burst of alerts on one farm read all of
 * them again for every event (62 statements for 24 events, 17 for 6: plan-batch.test.ts), in the worker
 * beside ingest.
 */
interface BatchReads {
  farm(id: string): Promise<Farm | undefined>;
  audience(farm: Farm): Promise<Audience>;
  /** Who was sent each resolved alert's opening notice, on which channel (one query for the batch). */
  told: Map<string, { person_id: string; channel: NotificationChannel }[]>;
}

function once<T>(cache: Map<string, Promise<T>>, key: string, read: () => Promise<T>): Promise<T> {
  let pending = cache.get(key);
  if (!pending) {
    pending = read();
    cache.set(key, pending);
  }
  return pending;
}

function batchReads(db: Db, options: ServerSetup, told: BatchReads['told']): BatchReads {
  const farms = new Map<string, Promise<Farm | undefined>>();
  const audiences = new Map<string, Promise<Audience>>();
  return {
    told,
    farm: (id) => once(farms, id, () => farmById(db, id)),
    audience: (farm) =>
      once(audiences, farm.id, async () => {
        const people = await peopleOfAccount(db, farm.account_id);
        const settings = await settingsFor(db, people, farm.id);
        const reach = await reachOf(
          db,
          people.map((p) => p.id),
          options,
        );
        return { people, settings, reach };
      }),
  };
}

/** One notification row. */
export function notificationRow(input: {
  person: string;
  farm: string | null;
  alert: string | null;
  kind: NotificationKind;
  channel: NotificationChannel;
  step: number;
  dedupe: string;
  severity: AlertSeverity | null;
  title: string;
  body: string;
  url: string;
  due: number;
  now: number;
}): Insertable<NotificationsTable> {
  return {
    id: newId('notification', input.now),
    person_id: input.person,
    farm_id: input.farm,
    alert_id: input.alert,
    kind: input.kind,
    channel: input.channel,
    step: input.step,
    dedupe_key: input.dedupe,
    severity: input.severity,
    title: input.title,
    body: input.body,
    url: input.url,
    status: 'pending',
    attempt_count: 0,
    next_attempt_at: input.due,
    locked_until: null,
    answer: null,
    created_at: input.now,
    sent_at: null,
  };
}

/** Each person's effective settings for one farm. */
export async function settingsFor(
  db: Db,
  people: readonly PersonRow[],
  farmId: string,
): Promise<Map<string, PersonFarmSettings>> {
  const stored = await storedSettingsOf(
    db,
    people.map((p) => p.id),
    farmId,
  );
  const byPerson = new Map(
    stored.map((s) => [s.person_id, parseJson<Partial<PersonFarmSettings>>(s.settings, {})]),
  );
  return new Map(people.map((p) => [p.id, effectiveSettings(p.role, byPerson.get(p.id) ?? null)]));
}

function factsOf(data: Record<string, unknown>, fallbackAt: number): AlertFacts {
  const created = Date.parse(String(data.created_at ?? ''));
  return {
    id: String(data.id),
    severity: (data.severity as AlertSeverity) ?? 'info',
    title: String(data.title ?? ''),
    reason: String(data.reason ?? ''),
    rule: String(data.rule ?? ''),
    created_at: Number.isFinite(created) ? created : fallbackAt,
    words: alertWordsOf(data.words),
  };
}

async function planCreated(
  db: Db,
  reads: BatchReads,
  farm: Farm,
  alert: AlertFacts,
  options: PlanOptions,
  variant = '',
) {
  const { people, settings, reach } = await reads.audience(farm);
  const rows: Insertable<NotificationsTable>[] = [];
  for (const person of people) {
    const notice = alertNotice(alert, farm, 0, person);
    const s = settings.get(person.id);
    if (!s || s.muted_rules.includes(alert.rule)) continue;
    const due = releaseTime(s, alert.severity, options.now, farm.timezone);
    for (const channel of NOTIFICATION_CHANNELS) {
      if (!s.channels[channel].includes(alert.severity)) continue;
      if (!reach.get(channel)?.has(person.id)) continue;
      rows.push(
        notificationRow({
          person: person.id,
          farm: farm.id,
          alert: alert.id,
          kind: 'alert',
          channel,
          step: 0,
          dedupe: `alert:${alert.id}:${person.id}:${channel}:0${variant}`,
          severity: alert.severity,
          ...notice,
          url: alertUrl(options.publicUrl, alert.id),
          due,
          now: options.now,
        }),
      );
    }
  }
  await insertNotifications(db, rows);
  if (alert.severity === 'urgent') {
    const chain = escalationOf(parseJson<Record<string, unknown>>(farm.settings, {}));
    if (chain && chain.steps.length > 0) {
      await startEscalation(db, {
        alert_id: alert.id,
        farm_id: farm.id,
        next_at: alert.created_at + chain.after_minutes * MINUTE_MS,
      });
    }
  }
  return rows.length;
}

async function planResolved(db: Db, reads: BatchReads, farm: Farm, alert: AlertFacts, options: PlanOptions) {
  const told = reads.told.get(alert.id) ?? [];
  if (told.length === 0) return 0;
  const audience = await reads.audience(farm);
  const people = audience.people.filter((p) => told.some((t) => t.person_id === p.id));
  const settings = audience.settings;
  const readers = new Map(people.map((p) => [p.id, p]));
  const rows = told
    .filter((t) => settings.get(t.person_id)?.resolved_notices)
    .filter((t) => channel(t.channel).unavailable(options) === null)
    .map((t) =>
      notificationRow({
        person: t.person_id,
        farm: farm.id,
        alert: alert.id,
        kind: 'resolved',
        channel: t.channel,
        step: 0,
        dedupe: `resolved:${alert.id}:${t.person_id}:${t.channel}`,
        severity: alert.severity,
        ...resolvedNotice(alert, farm, options.now, readers.get(t.person_id) ?? DEFAULT_READER),
        url: alertUrl(options.publicUrl, alert.id),
        // A resolved notice waits for the quiet hours like a non-urgent one.
        due: releaseTime(settings.get(t.person_id) as PersonFarmSettings, null, options.now, farm.timezone),
        now: options.now,
      }),
    );
  await insertNotifications(db, rows);
  return rows.length;
}

/** A farm event: only `alert.escalated` (watch → urgent) is planned, as the urgent alert it now is. */
async function planEscalated(
  db: Db,
  reads: BatchReads,
  farm: Farm,
  event: Record<string, unknown>,
  options: PlanOptions,
) {
  if (event.type !== 'alert.escalated') return 0;
  const alertId = (event.data as { alert_id?: unknown } | undefined)?.alert_id;
  if (typeof alertId !== 'string') return 0;
  const row = await alertById(db, alertId);
  if (row?.status !== 'open' || row.severity !== 'urgent') return 0;
  // The escalation chain runs from the moment it became urgent.
  return planCreated(
    db,
    reads,
    farm,
    { ...row, created_at: options.now, words: alertWordsOf(row.words) },
    options,
    ':urgent',
  );
}

/**
 * Reads up to `limit` unread alert events and plans their notifications, in one transaction. Returns how
 * many events were read and how many notifications planned.
 */
export async function planFromOutbox(
  db: Db,
  options: PlanOptions,
): Promise<{ events: number; planned: number }> {
  const limit = options.limit ?? 100;
  return inTransaction(db, async (trx) => {
    const read = await unnotifiedEvents(trx, limit);
    // Every event read is marked read below, the stale ones too; only the fresh ones are planned.
    const events = read
      .filter((event) => options.now - event.created_at <= STALE_EVENT_MS)
      .map((event) => ({ ...event, facts: parseJson<Record<string, unknown>>(event.data, {}) }));
    const resolvedIds = events.filter((e) => e.type === 'alert.resolved').map((e) => String(e.facts.id));
    const reads = batchReads(trx, options, await toldAbout(trx, resolvedIds));
    const ended: string[] = [];
    let planned = 0;
    for (const event of events) {
      const farm = await reads.farm(event.farm_id);
      if (!farm || farm.sample === 1) continue;
      const data = event.facts;
      if (event.type === 'event.created') {
        planned += await planEscalated(trx, reads, farm, data, options);
        continue;
      }
      const alert = factsOf(data, event.created_at);
      if (event.type === 'alert.created') {
        planned += await planCreated(trx, reads, farm, alert, options);
      } else {
        // The escalation ends with the alert: all the batch's at once, after the batch (an urgent alert
        // opened and resolved within it started its escalation above).
        ended.push(alert.id);
        planned += await planResolved(trx, reads, farm, alert, options);
      }
    }
    await endEscalations(trx, ended);
    await markNotified(
      trx,
      read.map((e) => e.id),
      options.now,
    );
    return { events: read.length, planned };
  });
}
