/** The brief in words: a one-sentence headline and a short paragraph a farmer reads on a phone. */
import { localClock, localDayBounds, localParts } from '../../lib/local-time.ts';
import type { BriefCounts, BriefHouse, BriefItem } from './schemas.ts';

/** A number as people write it: at most one decimal, no trailing zeros. */
export function formatValue(value: number): string {
  return String(Math.round(value * 10) / 10);
}

/** A time on the farm's clock relative to today: `10:00`, `yesterday 17:00`, `2026-05-01 17:00`. */
export function localWhen(at: number, now: number, timeZone: string): string {
  const today = localDayBounds(now, timeZone);
  const clock = localClock(at, timeZone);
  if (at >= today.start && at < today.end) return clock;
  const yesterday = localDayBounds(today.start - 1, timeZone);
  if (at >= yesterday.start && at < yesterday.end) return `yesterday ${clock}`;
  const tomorrow = localDayBounds(today.end, timeZone);
  if (at >= tomorrow.start && at < tomorrow.end) return `tomorrow ${clock}`;
  const p = localParts(at, timeZone);
  return `${p.year}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')} ${clock}`;
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** "a", "a and b", "a, b and c". */
function joinList(parts: readonly string[]): string {
  if (parts.length <= 1) return parts.join('');
  return `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}

type Group =
  | 'alert.urgent'
  | 'alert.watch'
  | 'alert.info'
  | 'task_overdue'
  | 'task_due_today'
  | 'milk_withheld'
  | 'milk_clear'
  | 'house'
  | 'doors_open'
  | 'device_quiet'
  | 'device_battery'
  | 'paddock_rest'
  | 'batch_expiring'
  | 'medicine_low'
  | 'weight_gain'
  | 'group_not_weighed';

/** Groups in rank order, with how to count them. */
const GROUPS: ReadonlyArray<{ group: Group; count: keyof BriefCounts; one: string; many: string }> = [
  { group: 'alert.urgent', count: 'alerts_urgent', one: 'urgent alert', many: 'urgent alerts' },
  { group: 'alert.watch', count: 'alerts_watch', one: 'watch alert', many: 'watch alerts' },
  { group: 'task_overdue', count: 'tasks_overdue', one: 'overdue task', many: 'overdue tasks' },
  { group: 'task_due_today', count: 'tasks_due_today', one: 'task due today', many: 'tasks due today' },
  {
    group: 'milk_withheld',
    count: 'milk_withheld',
    one: 'animal with milk withheld',
    many: 'animals with milk withheld',
  },
  {
    group: 'milk_clear',
    count: 'milk_clear_today',
    one: 'animal’s milk back in the tank today',
    many: 'animals’ milk back in the tank today',
  },
  {
    group: 'house',
    count: 'houses_attention',
    one: 'house needing attention',
    many: 'houses needing attention',
  },
  {
    group: 'doors_open',
    count: 'doors_open_after_dusk',
    one: 'house with doors open after dusk',
    many: 'houses with doors open after dusk',
  },
  { group: 'device_quiet', count: 'devices_quiet', one: 'quiet device', many: 'quiet devices' },
  {
    group: 'device_battery',
    count: 'devices_low_battery',
    one: 'device with a low battery',
    many: 'devices with low batteries',
  },
  {
    group: 'paddock_rest',
    count: 'paddocks_past_rest',
    one: 'paddock past its rest target',
    many: 'paddocks past their rest target',
  },
  {
    group: 'batch_expiring',
    count: 'batches_expiring',
    one: 'medicine batch expiring within 30 days',
    many: 'medicine batches expiring within 30 days',
  },
  {
    group: 'medicine_low',
    count: 'medicines_low_stock',
    one: 'medicine low on stock',
    many: 'medicines low on stock',
  },
  {
    group: 'weight_gain',
    count: 'animals_gain_low',
    one: 'animal gaining poorly',
    many: 'animals gaining poorly',
  },
  {
    group: 'group_not_weighed',
    count: 'groups_not_weighed',
    one: 'group due a weighing',
    many: 'groups due a weighing',
  },
  { group: 'alert.info', count: 'alerts_info', one: 'info alert', many: 'info alerts' },
];

function groupOf(item: BriefItem): Group {
  return item.kind === 'alert' ? (`alert.${item.severity}` as Group) : (item.kind as Group);
}

/**
 * One sentence: the top item with the size of its group, then the other groups' counts
 * ("2 urgent alerts: High ammonia in House 2 — also 3 watch alerts, 1 overdue task and 2 more items.").
 * A quiet farm gets a calm line.
 */
export function briefHeadline(farmName: string, items: readonly BriefItem[], counts: BriefCounts): string {
  const top = items[0];
  if (!top) return `All quiet on ${farmName}: no alerts, nothing due today and every device reporting.`;
  const topGroup = GROUPS.find((g) => g.group === groupOf(top));
  const topCount = topGroup ? Math.max(1, counts[topGroup.count]) : 1;
  const lead = topGroup ? plural(topCount, topGroup.one, topGroup.many) : '1 item';
  const others = GROUPS.filter((g) => g !== topGroup && counts[g.count] > 0).map((g) =>
    plural(counts[g.count], g.one, g.many),
  );
  const shown = others.slice(0, 3);
  const rest = GROUPS.filter((g) => g !== topGroup && counts[g.count] > 0)
    .slice(3)
    .reduce((sum, g) => sum + counts[g.count], 0);
  if (rest > 0) shown.push(plural(rest, 'more item', 'more items'));
  return `${lead}: ${top.title}${shown.length > 0 ? ` — also ${joinList(shown)}` : ''}.`;
}

/**
 * Up to `max` titles and how many more there are, naming what the more are ("and 4 more watch alerts"): a
 * title may end with a name ("Pop door jammed: House 2"), and "and 4 more" would read as four more houses.
 * Titles are set apart with semicolons when one has a colon or comma of its own.
 */
function titles(
  items: readonly BriefItem[],
  total: number,
  [one, many]: readonly [string, string],
  max = 3,
): string {
  const names = items.slice(0, max).map((i) => i.title);
  const more = total - names.length;
  if (more > 0) names.push(plural(more, `more ${one}`, `more ${many}`));
  if (names.some((n) => /[:,;]/.test(n)) && names.length > 1) {
    return `${names.slice(0, -1).join('; ')}; and ${names.at(-1)}`;
  }
  return joinList(names);
}

function houseLine(house: BriefHouse): string {
  const parts: string[] = [];
  if (house.feed.bin_pct !== null) parts.push(`feed ${formatValue(house.feed.bin_pct)}%`);
  if (house.water.tank_pct !== null) parts.push(`water ${formatValue(house.water.tank_pct)}%`);
  if (house.climate.temp_c !== null) parts.push(`${formatValue(house.climate.temp_c)} °C`);
  if (house.climate.nh3_ppm !== null) parts.push(`ammonia ${formatValue(house.climate.nh3_ppm)} ppm`);
  if (house.power.battery_pct !== null) parts.push(`battery ${formatValue(house.power.battery_pct)}%`);
  const doors = house.doors.open + house.doors.closed;
  if (doors > 0) {
    parts.push(house.doors.open === 0 ? 'doors closed' : `${house.doors.open} of ${doors} doors open`);
  }
  if (house.move.status === 'stepping') parts.push('moving');
  if (house.quiet) parts.push('not reporting');
  return parts.length > 0 ? `${house.name}: ${parts.join(', ')}.` : `${house.name}: no readings yet.`;
}

/** A short paragraph: alerts, tasks, houses, devices and paddocks, most important first. */
export function briefText(input: {
  farmName: string;
  items: readonly BriefItem[];
  counts: BriefCounts;
  houses: readonly BriefHouse[];
  now: number;
  timezone: string;
}): string {
  const { items, counts, houses } = input;
  const of = (group: Group) => items.filter((i) => groupOf(i) === group);
  const sentences: string[] = [];

  if (counts.alerts_urgent + counts.alerts_watch + counts.alerts_info === 0)
    sentences.push('No open alerts.');
  if (counts.alerts_urgent > 0)
    sentences.push(
      `Urgent: ${titles(of('alert.urgent'), counts.alerts_urgent, ['urgent alert', 'urgent alerts'])}.`,
    );
  if (counts.alerts_watch > 0)
    sentences.push(
      `Watch: ${titles(of('alert.watch'), counts.alerts_watch, ['watch alert', 'watch alerts'])}.`,
    );

  if (counts.tasks_overdue > 0) {
    sentences.push(
      `Overdue: ${titles(of('task_overdue'), counts.tasks_overdue, ['overdue task', 'overdue tasks'])}.`,
    );
  }
  if (counts.tasks_due_today > 0) {
    const due = of('task_due_today');
    const named = due
      .slice(0, 3)
      .map((i) => (i.at ? `${i.title} (${localClock(Date.parse(i.at), input.timezone)})` : i.title));
    if (counts.tasks_due_today > named.length)
      named.push(plural(counts.tasks_due_today - named.length, 'more task', 'more tasks'));
    sentences.push(`Due today: ${joinList(named)}.`);
  } else if (counts.tasks_overdue === 0) {
    sentences.push('Nothing due today.');
  }

  if (houses.length > 0 && houses.length <= 3) {
    for (const house of houses) sentences.push(houseLine(house));
  } else if (houses.length > 3) {
    const needing = houses.filter((h) => h.attention.length > 0);
    sentences.push(
      needing.length === 0
        ? `All ${houses.length} houses are fine.`
        : `${plural(needing.length, 'house', 'houses')} of ${houses.length} need attention: ${joinList(
            needing.slice(0, 3).map((h) => `${h.name} (${h.attention.join(', ')})`),
          )}${needing.length > 3 ? ` and ${plural(needing.length - 3, 'more house', 'more houses')}` : ''}.`,
    );
  }
  if (counts.doors_open_after_dusk > 0) {
    sentences.push(
      `After dusk: ${titles(of('doors_open'), counts.doors_open_after_dusk, ['house with doors open', 'houses with doors open'])}.`,
    );
  }

  if (counts.devices_quiet > 0) {
    const quiet = of('device_quiet');
    const named = quiet.slice(0, 3).map((i) => i.title.replace(/ has gone quiet$/, ''));
    if (counts.devices_quiet > named.length)
      named.push(plural(counts.devices_quiet - named.length, 'more device', 'more devices'));
    sentences.push(`Not reporting: ${joinList(named)}.`);
  } else {
    sentences.push('Every device is reporting.');
  }
  if (counts.devices_low_battery > 0) {
    const low = of('device_battery');
    const named = low.slice(0, 3).map((i) => i.title.replace(/^Low battery: /, ''));
    if (counts.devices_low_battery > named.length)
      named.push(plural(counts.devices_low_battery - named.length, 'more device', 'more devices'));
    sentences.push(`Low battery: ${joinList(named)}.`);
  }
  if (counts.paddocks_past_rest > 0) {
    const paddocks = of('paddock_rest');
    const named = paddocks.slice(0, 3).map((i) => i.title.replace(/ is past its rest target$/, ''));
    if (counts.paddocks_past_rest > named.length)
      named.push(plural(counts.paddocks_past_rest - named.length, 'more paddock', 'more paddocks'));
    sentences.push(`Rested and ready to graze: ${joinList(named)}.`);
  }
  if (counts.animals_gain_low > 0) {
    sentences.push(`Weights: ${titles(of('weight_gain'), counts.animals_gain_low, ['animal', 'animals'])}.`);
  }
  if (counts.groups_not_weighed > 0) {
    sentences.push(
      `Due a weighing: ${titles(of('group_not_weighed'), counts.groups_not_weighed, ['group', 'groups'])}.`,
    );
  }
  return sentences.join(' ');
}
