/**
 * The brief's sections, one builder each: alerts, tasks, houses (with their doors), quiet devices, low
 * batteries and rested paddocks. Each turns rows already read into unranked items; `buildBrief`
 * ranks them in this order.
 */

import { renderAlertWord } from '../../domain/alert-words.ts';
import { DEVICE_QUIET_RULE } from '../../domain/built-in-rules.ts';
import type { LanguageName } from '../../domain/display-units.ts';
import type { HouseState } from '../../domain/house-state.ts';
import type { MetricName } from '../../domain/metrics.ts';
import { type AlertRule, RULE_BY_NAME, type RuleName } from '../../domain/rules.ts';
import { taskDue } from '../../domain/tasks.ts';
import { localClock, localDateText } from '../../lib/local-time.ts';
import { formatMessage, type MessageParams } from '../../lib/message-format.ts';
import { DAY_MS, formatDuration, toIso } from '../../lib/time.ts';
import type { Alert } from '../alerts/service.ts';
import type { Reading } from '../readings/schemas.ts';
import { restDays } from '../stays/service.ts';
import type { TaskRow } from '../tasks/repository.ts';
import { doorTimes, houseConditions, isShut, type Place, type QuietVerdict } from './attention.ts';
import { BRIEF_ES, type BriefKey } from './messages.ts';
import type { BriefDeviceRow, BriefPaddockRow } from './repository.ts';
import type { BriefHouse, BriefItem, BriefItemKind, BriefSeverity } from './schemas.ts';
import { formatValue, localWhen } from './wording.ts';

export type Unranked = Omit<BriefItem, 'rank'>;

/** What every section may need to know of the farm and the moment. */
export interface BriefContext {
  now: number;
  timezone: string;
  place: Place;
  today: { start: number; end: number };
  rules: ReadonlyMap<RuleName, AlertRule>;
  /** Active alerts as `rule subject_id` keys: a condition an alert already reports is not listed twice. */
  alertKeys: ReadonlySet<string>;
  /** The language the brief's sentences are written in (English unless the reader asked otherwise). */
  language?: LanguageName;
}

/** "47 min", "2.5 h", "3 días": lib/time.ts formatDuration's steps, in the language. */
function durationIn(language: LanguageName, ms: number): string {
  if (ms < 2 * DAY_MS) return formatDuration(ms);
  return formatMessage(
    language,
    { one: '{count} día', other: '{count} días' },
    { count: Math.floor(ms / DAY_MS) },
  );
}

/** One sentence of the brief in a language other than English (messages.ts). */
function say(key: BriefKey, params: MessageParams = {}): string {
  return formatMessage('es', BRIEF_ES[key], params);
}

function item(
  kind: BriefItemKind,
  severity: BriefSeverity,
  fields: Omit<Unranked, 'kind' | 'severity'>,
): Unranked {
  return { kind, severity, ...fields };
}

function hasAlert(ctx: BriefContext, rule: RuleName, ...subjects: Array<string | null>): boolean {
  return subjects.some((s) => s !== null && ctx.alertKeys.has(`${rule} ${s}`));
}

/** Alerts as items: urgent and watch (in the query's order) first, info alerts last of all. */
export function alertSection(
  alerts: readonly Alert[],
  language: LanguageName = 'en',
): { items: Unranked[]; info: Unranked[] } {
  const items: Unranked[] = [];
  const info: Unranked[] = [];
  for (const alert of alerts) {
    // Another language writes the alert from its words (src/domain/alert-words.ts), else its English.
    const words = language === 'en' ? null : (alert.words ?? null);
    const title = (words && renderAlertWord(language, words.title)) ?? alert.title;
    const reason = (words && renderAlertWord(language, words.reason)) ?? alert.reason;
    const acknowledged = language === 'en' ? `Acknowledged. ${reason}` : say('item.acknowledged', { reason });
    const entry = item('alert', alert.severity, {
      title,
      detail: alert.status === 'acknowledged' ? acknowledged : reason,
      subject_type: alert.subject_type,
      subject_id: alert.subject_id,
      ref_id: alert.id,
      at: alert.created_at,
    });
    (alert.severity === 'info' ? info : items).push(entry);
  }
  return { items, info };
}

/** "Due today at 08:00", "Overdue: due yesterday 17:00"; a task due on a day shows the day, never a time. */
function dueWording(
  t: TaskRow,
  kind: 'task_overdue' | 'task_due_today',
  now: number,
  tz: string,
  language: LanguageName = 'en',
): string {
  if (language !== 'en') {
    if (t.due_date !== null)
      return kind === 'task_overdue' ? say('task.overdue_day', { date: t.due_date }) : say('task.due_today');
    const when = localWhen(t.due_at ?? 0, now, tz, language);
    return say(kind === 'task_overdue' ? 'task.overdue_at' : 'task.due_today_at', { when });
  }
  if (t.due_date !== null) return kind === 'task_overdue' ? `Overdue: due ${t.due_date}` : 'Due today';
  return `${kind === 'task_overdue' ? 'Overdue: due' : 'Due today at'} ${localWhen(t.due_at ?? 0, now, tz)}`;
}

/**
 * Tasks: overdue (due before today, farm time), then due today; earliest due first. Which is which is
 * domain/tasks.ts `taskDue`, the Tasks page's rule too: a task is due today all that day, even past its time.
 */
export function taskSection(tasks: readonly TaskRow[], ctx: BriefContext): Unranked[] {
  const { now, timezone: tz } = ctx;
  const language = ctx.language ?? 'en';
  const detail = (t: TaskRow, kind: 'task_overdue' | 'task_due_today') => {
    const due = dueWording(t, kind, now, tz, language);
    if (language === 'en') return `${due}${t.assignee ? `; ${t.assignee}` : ''}`;
    return t.assignee ? say('task.detail_assignee', { due, assignee: t.assignee }) : due;
  };
  const taskItem = (t: TaskRow, kind: 'task_overdue' | 'task_due_today') =>
    item(kind, kind === 'task_overdue' ? 'watch' : 'info', {
      title: t.title,
      detail: detail(t, kind),
      subject_type: t.subject_type,
      subject_id: t.subject_id,
      ref_id: t.id,
      at: toIso(t.due_at),
    });
  const due = (t: TaskRow) => taskDue(t, now, (at) => localDateText(at, tz));
  return [
    ...tasks.filter((t) => due(t) === 'overdue').map((t) => taskItem(t, 'task_overdue')),
    ...tasks.filter((t) => due(t) === 'today').map((t) => taskItem(t, 'task_due_today')),
  ];
}

function openDoors(doors: HouseState['doors']): { open: number; closed: number; openDoors: string[] } {
  const entries = Object.entries(doors);
  const openList = entries.filter(([, position]) => position === 'open').map(([door]) => door);
  openList.sort((a, b) => Number(a) - Number(b));
  return { open: openList.length, closed: entries.length - openList.length, openDoors: openList };
}

/** One house: its summary for `houses`, plus its items (conditions, doors open after dusk). */
export interface HouseFacts {
  row: BriefDeviceRow;
  state: HouseState;
  latest: Readonly<Record<string, Reading>>;
  quiet: QuietVerdict | null;
  activeAlerts: number;
}

export function houseSection(
  houses: readonly HouseFacts[],
  ctx: BriefContext,
): { houses: BriefHouse[]; items: Unranked[]; doorItems: Unranked[] } {
  // Houses mostly share a schedule (dawn/dusk); work the times out once per schedule.
  const memo = new Map<string, ReturnType<typeof doorTimes>>();
  const doorTimesOf = (schedule: { open: string; close: string }) => {
    const key = `${schedule.open} ${schedule.close}`;
    let times = memo.get(key);
    if (!times) {
      times = doorTimes(ctx.now, schedule, ctx.place);
      memo.set(key, times);
    }
    return times;
  };
  const items: Unranked[] = [];
  const doorItems: Unranked[] = [];
  const summaries = houses.map((house) => {
    const { summary, condition, doors } = oneHouse(house, doorTimesOf(house.state.door_schedule), ctx);
    if (condition) items.push(condition);
    if (doors) doorItems.push(doors);
    return summary;
  });
  return { houses: summaries, items, doorItems };
}

function oneHouse(
  house: HouseFacts,
  times: ReturnType<typeof doorTimes>,
  ctx: BriefContext,
): { summary: BriefHouse; condition: Unranked | null; doors: Unranked | null } {
  const { row, state, latest, quiet } = house;
  const value = (metric: MetricName): number | null => latest[metric]?.value ?? null;
  const schedule = { open: state.door_schedule.open, close: state.door_schedule.close };
  const doors = openDoors(state.doors);
  const afterDusk = isShut(ctx.now, times);
  const doorsOpenAfterDusk = afterDusk && doors.open > 0;
  const values = {
    feed: value('feed.bin_pct'),
    water: value('water.tank_pct'),
    temp: value('climate.temp_c'),
    nh3: value('climate.nh3_ppm'),
    target: state.climate.target_temp_c,
  };
  const language = ctx.language ?? 'en';
  const es = language !== 'en';
  const conditions = houseConditions(values, ctx.rules, language);
  const attention = conditions.map((c) => c.phrase);
  if (doorsOpenAfterDusk)
    attention.push(
      es
        ? say('house.attention_doors', { count: doors.open })
        : `${doors.open} ${doors.open === 1 ? 'door' : 'doors'} open after dusk`,
    );
  if (quiet?.quiet)
    attention.push(
      es
        ? say('house.attention_quiet', { silent: durationIn(language, quiet.silentMs) })
        : `quiet for ${formatDuration(quiet.silentMs)}`,
    );

  const fresh = conditions.filter((c) => c.rule === null || !hasAlert(ctx, c.rule, row.id));
  const at = toIso(row.last_seen_at);
  const condition =
    fresh.length === 0
      ? null
      : item('house', fresh.some((c) => c.severity === 'urgent') ? 'urgent' : 'watch', {
          title: es
            ? say('house.item', { house: row.name, phrases: fresh.map((c) => c.phrase).join(', ') })
            : `${row.name}: ${fresh.map((c) => c.phrase).join(', ')}`,
          detail: `${fresh.map((c) => c.detail).join('; ')}.`,
          subject_type: 'device',
          subject_id: row.id,
          ref_id: null,
          at,
        });
  const when = (word: string, time: number) =>
    word === 'dawn' || word === 'dusk' ? `${word} (${localClock(time, ctx.timezone)})` : word;
  const whenEs = (word: string, time: number) =>
    word === 'dawn' || word === 'dusk'
      ? say(word === 'dawn' ? 'doors.at_dawn' : 'doors.at_dusk', { time: localClock(time, ctx.timezone) })
      : say('doors.at_time', { time: word });
  const doorsEs = () =>
    say('doors.detail', {
      open:
        doors.openDoors.length > 6
          ? say('doors.many', { count: doors.open, total: doors.open + doors.closed })
          : say('doors.some', { doors: doors.openDoors.join(', ') }),
      close: whenEs(schedule.close, times.close),
      reopen: whenEs(schedule.open, times.open),
    });
  const doorItem = !doorsOpenAfterDusk
    ? null
    : item('doors_open', 'watch', {
        title: es
          ? say('doors.title', { count: doors.open, house: row.name })
          : `${doors.open} pop ${doors.open === 1 ? 'door' : 'doors'} open after dusk in ${row.name}`,
        detail: es
          ? doorsEs()
          : `Open: ${doors.openDoors.length > 6 ? `${doors.open} of ${doors.open + doors.closed} doors` : `door ${doors.openDoors.join(', ')}`}. The doors close at ${when(schedule.close, times.close)} and open at ${when(schedule.open, times.open)}.`,
        subject_type: 'device',
        subject_id: row.id,
        ref_id: null,
        at,
      });
  const summary = houseSummary({ house, value, values, doors, afterDusk, attention });
  return { summary, condition, doors: doorItem };
}

/** A house as the brief's `houses` lists it. */
function houseSummary(parts: {
  house: HouseFacts;
  value: (metric: MetricName) => number | null;
  values: {
    feed: number | null;
    water: number | null;
    temp: number | null;
    nh3: number | null;
    target: number;
  };
  doors: { open: number; closed: number };
  afterDusk: boolean;
  attention: string[];
}): BriefHouse {
  const { house, value, values, doors, afterDusk, attention } = parts;
  const { row, state, quiet } = house;
  return {
    id: row.id,
    name: row.name,
    group_id: row.group_id,
    last_reported_at: toIso(row.last_seen_at),
    quiet: quiet?.quiet ?? false,
    active_alerts: house.activeAlerts,
    feed: {
      bin_pct: values.feed,
      schedule: state.feed.schedule,
      last_dispensed_kg: state.feed.last_dispensed_kg,
    },
    water: { tank_pct: values.water },
    climate: {
      temp_c: values.temp,
      humidity_pct: value('climate.humidity_pct'),
      nh3_ppm: values.nh3,
      co2_ppm: value('climate.co2_ppm'),
      mode: state.climate.mode,
      target_temp_c: values.target,
    },
    power: {
      battery_pct: value('power.battery_pct'),
      solar_w: value('power.solar_w'),
      load_w: value('power.load_w'),
    },
    doors: {
      open: doors.open,
      closed: doors.closed,
      schedule: { open: state.door_schedule.open, close: state.door_schedule.close },
      after_dusk: afterDusk,
    },
    move: {
      status: state.move.status,
      meters_per_day: state.move.meters_per_day,
      heading_deg: state.move.heading_deg,
      target_paddock_id: state.move.target_paddock_id,
    },
    floor: state.floor,
    birds_inside: value('birds.inside'),
    attention,
  };
}

/** Devices that have gone quiet, the longest silent first. */
export function quietSection(
  devices: readonly BriefDeviceRow[],
  quiet: ReadonlyMap<string, QuietVerdict>,
  alertKeys: ReadonlySet<string> = new Set(),
  language: LanguageName = 'en',
): Unranked[] {
  return devices
    .flatMap((row) => {
      const verdict = quiet.get(row.id);
      // A device.quiet alert already tells of it (among the alerts, ranked by severity).
      if (alertKeys.has(`${DEVICE_QUIET_RULE.name} ${row.id}`)) return [];
      return verdict?.quiet ? [{ row, verdict }] : [];
    })
    .sort((a, b) => b.verdict.silentMs - a.verdict.silentMs)
    .map(({ row, verdict }) => {
      if (language !== 'en') {
        const silent = durationIn(language, verdict.silentMs);
        return item('device_quiet', 'watch', {
          title: say('quiet.title', { device: row.name }),
          detail: verdict.neverReported
            ? say('quiet.never', { silent })
            : verdict.interval === null
              ? say('quiet.unknown', { silent })
              : say('quiet.usual', { silent, interval: durationIn(language, verdict.interval) }),
          subject_type: 'device',
          subject_id: row.id,
          ref_id: null,
          at: toIso(row.last_seen_at ?? row.created_at),
        });
      }
      const detail = verdict.neverReported
        ? `Never reported since it was added ${formatDuration(verdict.silentMs)} ago.`
        : `No report for ${formatDuration(verdict.silentMs)} (${
            verdict.interval === null
              ? 'usual interval unknown; quiet after 6 h'
              : `usually every ${formatDuration(verdict.interval)}`
          }).`;
      return item('device_quiet', 'watch', {
        title: `${row.name} has gone quiet`,
        detail,
        subject_type: 'device',
        subject_id: row.id,
        ref_id: null,
        at: toIso(row.last_seen_at ?? row.created_at),
      });
    });
}

/** The battery rule of a device: houses have their own. */
const batteryRuleOf = (type: string): RuleName => (type === 'house' ? 'house.battery' : 'device.battery');

/** The metric a device's battery reading arrives in, when it is not on the device row. */
export const DEVICE_BATTERY_METRIC = RULE_BY_NAME.get('device.battery')?.metric ?? 'device.battery_pct';
export const HOUSE_BATTERY_METRIC = RULE_BY_NAME.get('house.battery')?.metric ?? 'power.battery_pct';

/** Devices at or below their battery rule's watch line that no alert reports yet, lowest first. */
export function batterySection(
  devices: ReadonlyArray<{ row: BriefDeviceRow; battery: number | null }>,
  ctx: BriefContext,
): Unranked[] {
  return devices
    .flatMap(({ row, battery }) => {
      const rule = ctx.rules.get(batteryRuleOf(row.type));
      if (!rule || battery === null || battery > rule.watch) return [];
      if (hasAlert(ctx, rule.name, row.id, row.animal_id)) return [];
      return [{ row, battery, rule }];
    })
    .sort((a, b) => a.battery - b.battery)
    .map(({ row, battery, rule }) =>
      item('device_battery', 'watch', {
        title:
          ctx.language && ctx.language !== 'en'
            ? say('battery.title', { device: row.name, value: formatValue(battery) })
            : `Low battery: ${row.name} (${formatValue(battery)}%)`,
        detail:
          ctx.language && ctx.language !== 'en'
            ? say('battery.detail', { value: formatValue(battery), line: formatValue(rule.watch) })
            : `Battery at ${formatValue(battery)}%, at or below the ${formatValue(rule.watch)}% line.`,
        subject_type: 'device',
        subject_id: row.id,
        ref_id: null,
        at: toIso(row.last_seen_at),
      }),
    );
}

/**
 * Paddocks past their rest target with nothing grazing them (nobody in `occupied_by`), the longest past it
 * first; the days rested are the paddock's `rest_days`.
 */
export function paddockSection(
  paddocks: readonly BriefPaddockRow[],
  now: number,
  language: LanguageName = 'en',
): Unranked[] {
  return paddocks
    .filter((p) => p.occupied === 0)
    .map((p) => ({ p, rested: (now - p.last_grazed_at) / DAY_MS }))
    .sort((a, b) => b.rested - b.p.rest_days_target - (a.rested - a.p.rest_days_target))
    .map(({ p }) =>
      item('paddock_rest', 'info', {
        title:
          language === 'en' ? `${p.name} is past its rest target` : say('paddock.title', { paddock: p.name }),
        detail:
          language === 'en'
            ? `Rested ${restDays(p.last_grazed_at, false, now)} days; target ${formatValue(p.rest_days_target)} days. Ready to graze.`
            : say('paddock.detail', {
                count: restDays(p.last_grazed_at, false, now),
                target: formatValue(p.rest_days_target),
              }),
        subject_type: 'paddock',
        subject_id: p.id,
        ref_id: null,
        at: toIso(p.last_grazed_at),
      }),
    );
}
