/**
 * The morning brief: what needs attention on a farm now, ranked. Urgent alerts, then watch alerts
 * (oldest first within a severity), overdue tasks, tasks due today (farm time), houses with low feed
 * or water or climate off target, pop doors open after dusk, quiet devices, low batteries, paddocks
 * past their rest target, and last any info alerts.
 *
 * Everything is read from current state (active alerts, open tasks, devices, the latest value per
 * device and metric, paddocks), never by scanning readings, so the brief stays fast on large farms.
 */
import type { Db } from '../../db/schema.ts';
import { type AlertRule, farmRules, type RuleName } from '../../domain/rules.ts';
import { isPlainObject, parseJson } from '../../lib/json.ts';
import { localClock, localDayBounds, localParts } from '../../lib/local-time.ts';
import { DAY_MS, toIso } from '../../lib/time.ts';
import { type Alert, toAlert } from '../alerts/service.ts';
import { requireFarm, type Scope } from '../farms/access.ts';
import type { Reading } from '../readings/schemas.ts';
import { latestReadings } from '../readings/service.ts';
import { toTask } from '../tasks/repository.ts';
import type { Task } from '../tasks/schemas.ts';
import {
  doorTimes,
  houseConditions,
  isShut,
  mightBeQuiet,
  type QuietVerdict,
  quietVerdict,
  usualInterval,
} from './attention.ts';
import {
  activeAlertKeys,
  activeAlerts,
  type BriefDeviceRow,
  dueTasks,
  farmDevices,
  latestOfMetrics,
  newestMetrics,
  paddocksPastRest,
  recentReadingSpans,
  spanKey,
} from './repository.ts';
import type { BriefCounts, BriefHouse, BriefItem, BriefItemKind, BriefSeverity } from './schemas.ts';
import { briefHeadline, briefText, formatDuration, formatValue, localWhen } from './wording.ts';

/** Longest lists in a brief; `counts` always has the totals. */
export const BRIEF_ALERT_LIMIT = 50;
export const BRIEF_TASK_LIMIT = 50;
export const BRIEF_ITEM_LIMIT = 100;

export interface BriefResult {
  farm_id: string;
  farm_name: string;
  timezone: string;
  generated_at: string;
  local_date: string;
  headline: string;
  text: string;
  alerts: Alert[];
  tasks: Task[];
  houses: BriefHouse[];
  items: BriefItem[];
  counts: BriefCounts;
}

type Unranked = Omit<BriefItem, 'rank'>;

interface DeviceFacts {
  row: BriefDeviceRow;
  quiet: QuietVerdict | null;
  battery: number | null;
}

function item(
  kind: BriefItemKind,
  severity: BriefSeverity,
  fields: Omit<Unranked, 'kind' | 'severity'>,
): Unranked {
  return { kind, severity, ...fields };
}

function num(reading: Reading | undefined): number | null {
  return reading ? reading.value : null;
}

function str(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function numOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** Quiet verdicts for the devices that have been silent a while (the rest cannot be quiet). */
async function quietVerdicts(
  db: Db,
  devices: readonly BriefDeviceRow[],
  now: number,
): Promise<Map<string, QuietVerdict>> {
  const candidates = devices.filter((d) => mightBeQuiet(d, now));
  const out = new Map<string, QuietVerdict>();
  if (candidates.length === 0) return out;
  const reported = candidates.filter((d) => d.last_seen_at !== null).map((d) => d.id);
  const newest = await newestMetrics(db, reported);
  const spans = await recentReadingSpans(
    db,
    [...newest.entries()].flatMap(([deviceId, metrics]) => metrics.map((metric) => ({ deviceId, metric }))),
  );
  for (const device of candidates) {
    // A report often carries several metrics; the most frequent of them sets the device's pace.
    const intervals = (newest.get(device.id) ?? [])
      .map((metric) => usualInterval(spans.get(spanKey(device.id, metric))))
      .filter((i): i is number => i !== null);
    const interval = intervals.length > 0 ? Math.min(...intervals) : null;
    out.set(device.id, quietVerdict(device, interval, now));
  }
  return out;
}

function rulesOf(settingsText: string): Map<RuleName, AlertRule> {
  return new Map(farmRules(settingsText).map((r) => [r.name, r]));
}

function doorCounts(doors: unknown): { open: number; closed: number; openDoors: string[] } {
  const openDoors: string[] = [];
  let closed = 0;
  if (isPlainObject(doors)) {
    for (const [door, position] of Object.entries(doors)) {
      if (position === 'open') openDoors.push(door);
      else if (position === 'closed') closed++;
    }
  }
  openDoors.sort((a, b) => Number(a) - Number(b));
  return { open: openDoors.length, closed, openDoors };
}

/** The morning brief of a farm the scope can see (404 otherwise). */
export async function buildBrief(
  db: Db,
  scope: Scope,
  farmId: string,
  now: number = Date.now(),
): Promise<BriefResult> {
  const farm = await requireFarm(db, scope, farmId);
  const tz = farm.timezone;
  const today = localDayBounds(now, tz);
  const rules = rulesOf(farm.settings);
  const place = { timezone: tz, lat: farm.lat, lon: farm.lon };

  const [alerts, alertKeys, tasks, devices, batteries, paddocks] = await Promise.all([
    activeAlerts(db, farm.id, BRIEF_ALERT_LIMIT),
    activeAlertKeys(db, farm.id),
    dueTasks(db, farm.id, today, BRIEF_TASK_LIMIT),
    farmDevices(db, farm.id),
    latestOfMetrics(db, farm.id, ['device.battery_pct']),
    paddocksPastRest(db, farm.id, now),
  ]);
  const houses = devices.filter((d) => d.type === 'house');
  const [houseLatest, quiet] = await Promise.all([
    latestReadings(
      db,
      houses.map((h) => h.id),
    ),
    quietVerdicts(db, devices, now),
  ]);

  const hasAlert = (rule: string, ...subjects: Array<string | null>) =>
    subjects.some((s) => s !== null && alertKeys.has(`${rule} ${s}`));
  const alertsBySubject = new Map<string, number>();
  for (const key of alertKeys) {
    const subject = key.slice(key.indexOf(' ') + 1);
    alertsBySubject.set(subject, (alertsBySubject.get(subject) ?? 0) + 1);
  }

  // Alerts: urgent, watch (oldest first within each, from the query), info last.
  const alertItems: Unranked[] = [];
  const infoItems: Unranked[] = [];
  const alertRecords = alerts.rows.map(toAlert);
  for (const alert of alertRecords) {
    const entry = item('alert', alert.severity, {
      title: alert.title,
      detail: alert.status === 'acknowledged' ? `Acknowledged. ${alert.reason}` : alert.reason,
      subject_type: alert.subject_type,
      subject_id: alert.subject_id,
      ref_id: alert.id,
      at: alert.created_at,
    });
    (alert.severity === 'info' ? infoItems : alertItems).push(entry);
  }

  // Tasks: overdue (due before today, farm time), then due today; earliest due first.
  const overdue = tasks.rows.filter((t) => (t.due_at ?? 0) < today.start);
  const dueToday = tasks.rows.filter((t) => (t.due_at ?? 0) >= today.start);
  const taskItems: Unranked[] = [
    ...overdue.map((t) =>
      item('task_overdue', 'watch', {
        title: t.title,
        detail: `Overdue: due ${localWhen(t.due_at ?? 0, now, tz)}${t.assignee ? `; ${t.assignee}` : ''}`,
        subject_type: t.subject_type,
        subject_id: t.subject_id,
        ref_id: t.id,
        at: toIso(t.due_at),
      }),
    ),
    ...dueToday.map((t) =>
      item('task_due_today', 'info', {
        title: t.title,
        detail: `Due today at ${localWhen(t.due_at ?? 0, now, tz)}${t.assignee ? `; ${t.assignee}` : ''}`,
        subject_type: t.subject_type,
        subject_id: t.subject_id,
        ref_id: t.id,
        at: toIso(t.due_at),
      }),
    ),
  ];

  // Devices: quiet ones and low batteries.
  const batteryReading = new Map(batteries.map((b) => [b.device_id, b.value]));
  const facts: DeviceFacts[] = devices.map((row) => {
    const houseBattery = row.type === 'house' ? num(houseLatest[row.id]?.['power.battery_pct']) : null;
    return {
      row,
      quiet: quiet.get(row.id) ?? null,
      battery: row.battery ?? batteryReading.get(row.id) ?? houseBattery,
    };
  });

  // Houses mostly share a schedule (dawn/dusk); work the times out once per schedule.
  const doorTimesMemo = new Map<string, ReturnType<typeof doorTimes>>();
  const doorTimesOf = (schedule: { open: string; close: string }) => {
    const key = `${schedule.open} ${schedule.close}`;
    let times = doorTimesMemo.get(key);
    if (!times) {
      times = doorTimes(now, schedule, place);
      doorTimesMemo.set(key, times);
    }
    return times;
  };
  const houseItems: Unranked[] = [];
  const doorItems: Unranked[] = [];
  const briefHouses: BriefHouse[] = houses.map((row) => {
    const state = parseJson<Record<string, unknown>>(row.state, {});
    const latest = houseLatest[row.id] ?? {};
    const climate = isPlainObject(state.climate) ? state.climate : {};
    const feedState = isPlainObject(state.feed) ? state.feed : {};
    const move = isPlainObject(state.move) ? state.move : {};
    const schedule = isPlainObject(state.door_schedule) ? state.door_schedule : {};
    const doorSchedule = { open: str(schedule.open) ?? 'dawn', close: str(schedule.close) ?? 'dusk' };
    const doors = doorCounts(state.doors);
    const times = doorTimesOf(doorSchedule);
    const afterDusk = isShut(now, times);
    const values = {
      feed: num(latest['feed.bin_pct']),
      water: num(latest['water.tank_pct']),
      temp: num(latest['climate.temp_c']),
      nh3: num(latest['climate.nh3_ppm']),
      target: numOrNull(climate.target_temp_c),
    };
    const conditions = houseConditions(values, rules);
    const verdict = quiet.get(row.id) ?? null;
    const attention = conditions.map((c) => c.phrase);
    if (afterDusk && doors.open > 0) {
      attention.push(`${doors.open} ${doors.open === 1 ? 'door' : 'doors'} open after dusk`);
    }
    if (verdict?.quiet) attention.push(`quiet for ${formatDuration(verdict.silentMs)}`);

    // Conditions an active alert already reports are not listed twice.
    const fresh = conditions.filter((c) => c.rule === null || !hasAlert(c.rule, row.id));
    if (fresh.length > 0) {
      houseItems.push(
        item('house', fresh.some((c) => c.severity === 'urgent') ? 'urgent' : 'watch', {
          title: `${row.name}: ${fresh.map((c) => c.phrase).join(', ')}`,
          detail: `${fresh.map((c) => c.detail).join('; ')}.`,
          subject_type: 'device',
          subject_id: row.id,
          ref_id: null,
          at: toIso(row.last_seen_at),
        }),
      );
    }
    if (afterDusk && doors.open > 0) {
      const when = (word: string, at: number) =>
        word === 'dawn' || word === 'dusk' ? `${word} (${localClock(at, tz)})` : word;
      doorItems.push(
        item('doors_open', 'watch', {
          title: `${doors.open} pop ${doors.open === 1 ? 'door' : 'doors'} open after dusk in ${row.name}`,
          detail: `Open: ${doors.openDoors.length > 6 ? `${doors.open} of ${doors.open + doors.closed} doors` : `door ${doors.openDoors.join(', ')}`}. The doors close at ${when(doorSchedule.close, times.close)} and open at ${when(doorSchedule.open, times.open)}.`,
          subject_type: 'device',
          subject_id: row.id,
          ref_id: null,
          at: toIso(row.last_seen_at),
        }),
      );
    }
    return {
      id: row.id,
      name: row.name,
      group_id: row.group_id,
      last_reported_at: toIso(row.last_seen_at),
      quiet: verdict?.quiet ?? false,
      active_alerts: alertsBySubject.get(row.id) ?? 0,
      feed: {
        bin_pct: values.feed,
        schedule: Array.isArray(feedState.schedule)
          ? feedState.schedule.filter((s): s is string => typeof s === 'string')
          : [],
        last_dispensed_kg: numOrNull(feedState.last_dispensed_kg),
      },
      water: { tank_pct: values.water },
      climate: {
        temp_c: values.temp,
        humidity_pct: num(latest['climate.humidity_pct']),
        nh3_ppm: values.nh3,
        co2_ppm: num(latest['climate.co2_ppm']),
        mode: str(climate.mode),
        target_temp_c: values.target,
      },
      power: {
        battery_pct: num(latest['power.battery_pct']),
        solar_w: num(latest['power.solar_w']),
        load_w: num(latest['power.load_w']),
      },
      doors: { open: doors.open, closed: doors.closed, schedule: doorSchedule, after_dusk: afterDusk },
      move: {
        status: str(move.status),
        meters_per_day: numOrNull(move.meters_per_day),
        heading_deg: numOrNull(move.heading_deg),
        target_paddock_id: str(move.target_paddock_id),
      },
      floor: str(state.floor),
      birds_inside: num(latest['birds.inside']),
      attention,
    };
  });

  const quietItems = facts
    .filter((f) => f.quiet?.quiet)
    .sort((a, b) => (b.quiet?.silentMs ?? 0) - (a.quiet?.silentMs ?? 0))
    .map(({ row, quiet: v }) => {
      const verdict = v as QuietVerdict;
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

  const batteryItems = facts
    .map((f) => {
      const rule = rules.get(f.row.type === 'house' ? 'house.battery' : 'device.battery');
      return { f, rule };
    })
    .filter(
      ({ f, rule }) =>
        rule !== undefined &&
        f.battery !== null &&
        f.battery <= rule.watch &&
        !hasAlert(rule.name, f.row.id, f.row.animal_id),
    )
    .sort((a, b) => (a.f.battery ?? 0) - (b.f.battery ?? 0))
    .map(({ f, rule }) =>
      item('device_battery', 'watch', {
        title: `Low battery: ${f.row.name} (${formatValue(f.battery ?? 0)}%)`,
        detail: `Battery at ${formatValue(f.battery ?? 0)}%, at or below the ${formatValue(rule?.watch ?? 0)}% line.`,
        subject_type: 'device',
        subject_id: f.row.id,
        ref_id: null,
        at: toIso(f.row.last_seen_at),
      }),
    );

  const paddockItems = paddocks
    .filter((p) => p.occupied === 0)
    .map((p) => ({ p, rested: (now - p.last_grazed_at) / DAY_MS }))
    // Longest past its target first.
    .sort((a, b) => b.rested - b.p.rest_days_target - (a.rested - a.p.rest_days_target))
    .map(({ p, rested }) =>
      item('paddock_rest', 'info', {
        title: `${p.name} is past its rest target`,
        detail: `Rested ${Math.floor(rested)} days; target ${formatValue(p.rest_days_target)} days. Ready to graze.`,
        subject_type: 'paddock',
        subject_id: p.id,
        ref_id: null,
        at: toIso(p.last_grazed_at),
      }),
    );

  const ranked: BriefItem[] = [
    ...alertItems,
    ...taskItems,
    ...houseItems,
    ...doorItems,
    ...quietItems,
    ...batteryItems,
    ...paddockItems,
    ...infoItems,
  ]
    .slice(0, BRIEF_ITEM_LIMIT)
    .map((entry, i) => ({ rank: i + 1, ...entry }));

  const counts: BriefCounts = {
    alerts_urgent: alerts.counts.urgent,
    alerts_watch: alerts.counts.watch,
    alerts_info: alerts.counts.info,
    tasks_overdue: tasks.overdue,
    tasks_due_today: tasks.dueToday,
    houses_attention: houseItems.length,
    doors_open_after_dusk: doorItems.length,
    devices_quiet: quietItems.length,
    devices_low_battery: batteryItems.length,
    paddocks_past_rest: paddockItems.length,
  };
  const p = localParts(now, tz);
  const localDate = `${p.year}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')}`;
  const taskRecords = tasks.rows.map(toTask);
  return {
    farm_id: farm.id,
    farm_name: farm.name,
    timezone: tz,
    generated_at: toIso(now),
    local_date: localDate,
    headline: briefHeadline(farm.name, ranked, counts),
    text: briefText({ farmName: farm.name, items: ranked, counts, houses: briefHouses, now, timezone: tz }),
    alerts: alertRecords,
    tasks: taskRecords,
    houses: briefHouses,
    items: ranked,
    counts,
  };
}
