/** The brief in words: a one-sentence headline and a short paragraph a farmer reads on a phone. */
import type { LanguageName } from '../../domain/display-units.ts';
import { localClock, localDateText, localDayBounds } from '../../lib/local-time.ts';
import { formatMessage, type MessageParams } from '../../lib/message-format.ts';
import { BRIEF_ES, type BriefKey } from './messages.ts';
import type { BriefCounts, BriefHouse, BriefItem } from './schemas.ts';

/** One sentence of the brief in a language other than English (messages.ts). */
function say(key: BriefKey, params: MessageParams = {}): string {
  return formatMessage('es', BRIEF_ES[key], params);
}

/** "a", "a y b", "a, b y c": the language's own list (English keeps joinList below, unchanged). */
function listOf(language: LanguageName, parts: readonly string[]): string {
  return new Intl.ListFormat(language, { type: 'conjunction' }).format(parts);
}

/** A number as people write it: at most one decimal, no trailing zeros. */
export function formatValue(value: number): string {
  return String(Math.round(value * 10) / 10);
}

/** A time on the farm's clock relative to today: `10:00`, `yesterday 17:00`, `2026-05-01 17:00`. */
export function localWhen(at: number, now: number, timeZone: string, language: LanguageName = 'en'): string {
  const today = localDayBounds(now, timeZone);
  const clock = localClock(at, timeZone);
  const en = language === 'en';
  if (at >= today.start && at < today.end) return clock;
  const yesterday = localDayBounds(today.start - 1, timeZone);
  if (at >= yesterday.start && at < yesterday.end)
    return en ? `yesterday ${clock}` : say('when.yesterday', { time: clock });
  const tomorrow = localDayBounds(today.end, timeZone);
  if (at >= tomorrow.start && at < tomorrow.end)
    return en ? `tomorrow ${clock}` : say('when.tomorrow', { time: clock });
  const date = localDateText(at, timeZone);
  return en ? `${date} ${clock}` : say('when.date', { date, time: clock });
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
export function briefHeadline(
  farmName: string,
  items: readonly BriefItem[],
  counts: BriefCounts,
  language: LanguageName = 'en',
): string {
  if (language !== 'en') return headlineIn(language, farmName, items, counts);
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
  language?: LanguageName;
}): string {
  if (input.language && input.language !== 'en') return textIn(input.language, input);
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

// The same headline and paragraph in another language (today Spanish): the same facts in the same order,
// each sentence whole from messages.ts. English above stays exactly as it was.

function headlineIn(
  language: LanguageName,
  farmName: string,
  items: readonly BriefItem[],
  counts: BriefCounts,
): string {
  const top = items[0];
  if (!top) return say('headline.quiet', { farm: farmName });
  const topGroup = GROUPS.find((g) => g.group === groupOf(top));
  const topCount = topGroup ? Math.max(1, counts[topGroup.count]) : 1;
  const lead = say(topGroup ? `group.${topGroup.group}` : 'group.item', { count: topCount });
  const groups = GROUPS.filter((g) => g !== topGroup && counts[g.count] > 0);
  const shown = groups.slice(0, 3).map((g) => say(`group.${g.group}`, { count: counts[g.count] }));
  const rest = groups.slice(3).reduce((sum, g) => sum + counts[g.count], 0);
  if (rest > 0) shown.push(say('group.more_items', { count: rest }));
  if (shown.length === 0) return say('headline.top', { lead, top: top.title });
  return say('headline.top_also', { lead, top: top.title, others: listOf(language, shown) });
}

/** Up to `max` titles, then how many more (set apart with semicolons when a title has its own commas). */
function titlesIn(
  language: LanguageName,
  items: readonly BriefItem[],
  total: number,
  more: BriefKey,
  max = 3,
): string {
  const names = items.slice(0, max).map((i) => i.title);
  if (total > names.length) names.push(say(more, { count: total - names.length }));
  if (names.some((n) => /[:,;]/.test(n)) && names.length > 1) {
    // The language's own list, with semicolons where it puts commas between the titles.
    return new Intl.ListFormat(language, { type: 'conjunction' })
      .formatToParts(names)
      .map((part) => (part.type === 'literal' ? part.value.replace(/^,/, ';') : part.value))
      .join('');
  }
  return listOf(language, names);
}

function houseLineIn(house: BriefHouse): string {
  const parts: string[] = [];
  const v = formatValue;
  if (house.feed.bin_pct !== null) parts.push(say('house.feed', { value: v(house.feed.bin_pct) }));
  if (house.water.tank_pct !== null) parts.push(say('house.water', { value: v(house.water.tank_pct) }));
  if (house.climate.temp_c !== null) parts.push(say('house.temp', { value: v(house.climate.temp_c) }));
  if (house.climate.nh3_ppm !== null) parts.push(say('house.ammonia', { value: v(house.climate.nh3_ppm) }));
  if (house.power.battery_pct !== null)
    parts.push(say('house.battery', { value: v(house.power.battery_pct) }));
  const doors = house.doors.open + house.doors.closed;
  if (doors > 0) {
    parts.push(
      house.doors.open === 0
        ? say('house.doors_closed')
        : say('house.doors_open', { count: String(house.doors.open), total: String(doors) }),
    );
  }
  if (house.move.status === 'stepping') parts.push(say('house.moving'));
  if (house.quiet) parts.push(say('house.not_reporting'));
  return parts.length > 0
    ? say('house.line', { house: house.name, parts: parts.join(', ') })
    : say('house.no_readings', { house: house.name });
}

/** A name out of an item title the brief wrote ("North trough has gone quiet" → "North trough"). */
function nameOf(item: BriefItem, english: RegExp): string {
  return item.title.replace(english, '');
}

function textIn(
  language: LanguageName,
  input: {
    items: readonly BriefItem[];
    counts: BriefCounts;
    houses: readonly BriefHouse[];
    timezone: string;
  },
): string {
  const { items, counts, houses } = input;
  const of = (group: Group) => items.filter((i) => groupOf(i) === group);
  const sentences: string[] = [];
  const named = (list: string[], total: number, more: BriefKey) => {
    if (total > list.length) list.push(say(more, { count: total - list.length }));
    return listOf(language, list);
  };

  if (counts.alerts_urgent + counts.alerts_watch + counts.alerts_info === 0)
    sentences.push(say('text.no_alerts'));
  if (counts.alerts_urgent > 0)
    sentences.push(
      say('text.urgent', {
        list: titlesIn(language, of('alert.urgent'), counts.alerts_urgent, 'more.urgent_alert'),
      }),
    );
  if (counts.alerts_watch > 0)
    sentences.push(
      say('text.watch', {
        list: titlesIn(language, of('alert.watch'), counts.alerts_watch, 'more.watch_alert'),
      }),
    );
  if (counts.tasks_overdue > 0)
    sentences.push(
      say('text.overdue', {
        list: titlesIn(language, of('task_overdue'), counts.tasks_overdue, 'more.overdue_task'),
      }),
    );
  if (counts.tasks_due_today > 0) {
    const due = of('task_due_today')
      .slice(0, 3)
      .map((i) =>
        i.at
          ? say('text.task_at', { title: i.title, time: localClock(Date.parse(i.at), input.timezone) })
          : i.title,
      );
    sentences.push(say('text.due_today', { list: named(due, counts.tasks_due_today, 'more.task') }));
  } else if (counts.tasks_overdue === 0) {
    sentences.push(say('text.nothing_due'));
  }

  if (houses.length > 0 && houses.length <= 3) {
    for (const house of houses) sentences.push(houseLineIn(house));
  } else if (houses.length > 3) {
    const needing = houses.filter((h) => h.attention.length > 0);
    if (needing.length === 0) {
      sentences.push(say('text.houses_fine', { count: houses.length }));
    } else {
      const list = needing
        .slice(0, 3)
        .map((h) => say('text.house_attention', { house: h.name, reasons: h.attention.join(', ') }));
      sentences.push(
        say('text.houses_attention', {
          count: needing.length,
          total: houses.length,
          list: named(list, needing.length, 'more.house'),
        }),
      );
    }
  }
  if (counts.doors_open_after_dusk > 0)
    sentences.push(
      say('text.after_dusk', {
        list: titlesIn(language, of('doors_open'), counts.doors_open_after_dusk, 'more.house_doors'),
      }),
    );

  if (counts.devices_quiet > 0) {
    const quiet = of('device_quiet')
      .slice(0, 3)
      .map((i) => nameOf(i, / (has gone quiet|dejó de reportar)$/));
    sentences.push(say('text.not_reporting', { list: named(quiet, counts.devices_quiet, 'more.device') }));
  } else {
    sentences.push(say('text.all_reporting'));
  }
  if (counts.devices_low_battery > 0) {
    const low = of('device_battery')
      .slice(0, 3)
      .map((i) => nameOf(i, /^(Low battery|Batería baja): /));
    sentences.push(say('text.low_battery', { list: named(low, counts.devices_low_battery, 'more.device') }));
  }
  if (counts.paddocks_past_rest > 0) {
    const paddocks = of('paddock_rest')
      .slice(0, 3)
      .map((i) => nameOf(i, / (is past its rest target|superó su descanso objetivo)$/));
    sentences.push(say('text.rested', { list: named(paddocks, counts.paddocks_past_rest, 'more.paddock') }));
  }
  if (counts.animals_gain_low > 0)
    sentences.push(
      say('text.weights', {
        list: titlesIn(language, of('weight_gain'), counts.animals_gain_low, 'more.animal'),
      }),
    );
  if (counts.groups_not_weighed > 0)
    sentences.push(
      say('text.due_weighing', {
        list: titlesIn(language, of('group_not_weighed'), counts.groups_not_weighed, 'more.group'),
      }),
    );
  return sentences.join(' ');
}
