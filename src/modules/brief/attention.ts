/**
 * The brief's conditions, as pure functions of time and values: when a device counts as quiet, when
 * it is "after dusk" for a house's pop doors, and what at a house is off (feed, water, climate).
 */
import { DEVICE_QUIET_RULE } from '../../domain/built-in-rules.ts';
import type { LanguageName } from '../../domain/display-units.ts';
import { type AlertRule, classifyReading, type RuleName } from '../../domain/rules.ts';
import { type LocalDateTime, localParts, zonedTimeToUtc } from '../../lib/local-time.ts';
import { formatMessage, type MessageParams } from '../../lib/message-format.ts';
import { sunTimes } from '../../lib/solar.ts';
import { DAY_MS, MINUTE_MS } from '../../lib/time.ts';
import { BRIEF_ES, type BriefKey } from './messages.ts';
import type { ReadingSpan } from './repository.ts';

/** Silence after which a device with no known reporting interval counts as quiet. */
export const QUIET_UNKNOWN_MS = DEVICE_QUIET_RULE.unknown_after_s * 1000;
/** A device is quiet after this many of its usual intervals without a report… */
export const QUIET_FACTOR = DEVICE_QUIET_RULE.factor;
/**
 * …but never before this much silence: devices send readings in batches, so a sensor that samples
 * every minute may well report every quarter hour.
 */
export const QUIET_MIN_MS = 30 * MINUTE_MS;

/**
 * A metric's usual interval: the mean gap between a device's last readings of it, or null when there
 * are too few (fewer than 3) to tell. A device's interval is the shortest among the metrics of its
 * latest report.
 */
export function usualInterval(span: ReadingSpan | undefined): number | null {
  if (!span || span.n < 3 || span.oldest === null || span.newest === null) return null;
  const gap = (span.newest - span.oldest) / (span.n - 1);
  return gap > 0 ? gap : null;
}

/** How long a device may be silent before it counts as quiet. */
export function quietAfter(interval: number | null): number {
  return interval === null ? QUIET_UNKNOWN_MS : Math.max(QUIET_FACTOR * interval, QUIET_MIN_MS);
}

export interface QuietVerdict {
  quiet: boolean;
  /** Silence so far in ms (since creation for a device that never reported). */
  silentMs: number;
  interval: number | null;
  neverReported: boolean;
}

/** Whether a device has gone quiet: silent longer than 3× its usual interval, or 6 h when unknown. */
export function quietVerdict(
  device: { last_seen_at: number | null; created_at: number },
  interval: number | null,
  now: number,
): QuietVerdict {
  const neverReported = device.last_seen_at === null;
  const since = device.last_seen_at ?? device.created_at;
  const silentMs = Math.max(0, now - since);
  // A device that never reported has no interval of its own.
  const limit = neverReported ? QUIET_UNKNOWN_MS : quietAfter(interval);
  return { quiet: silentMs > limit, silentMs, interval: neverReported ? null : interval, neverReported };
}

/** Whether a device might be quiet at all, before its interval is known (cheap filter). */
export function mightBeQuiet(
  device: { last_seen_at: number | null; created_at: number },
  now: number,
): boolean {
  return now - (device.last_seen_at ?? device.created_at) > QUIET_MIN_MS;
}

/** Door times of a farm without coordinates, where dusk and dawn cannot be worked out. */
export const FALLBACK_DUSK = '20:00';
export const FALLBACK_DAWN = '06:00';

export interface Place {
  timezone: string;
  lat: number | null;
  lon: number | null;
}

function localDay(at: number, tz: string): { year: number; month: number; day: number } {
  const p = localParts(at, tz);
  return { year: p.year, month: p.month, day: p.day };
}

function atClock(day: { year: number; month: number; day: number }, hhmm: string, tz: string): number {
  const [h, m] = hhmm.split(':').map(Number) as [number, number];
  const local: LocalDateTime = { ...day, hour: h, minute: m };
  return zonedTimeToUtc(local, tz);
}

/**
 * The close and open times of a house's pop doors on the local day of `now`: `HH:MM` on the farm's
 * clock, or `dusk`/`dawn` as the day's sunset/sunrise at the farm (20:00/06:00 without coordinates).
 */
export function doorTimes(
  now: number,
  schedule: { open: string; close: string },
  place: Place,
): { open: number; close: number; sun: 'normal' | 'polar_night' | 'midnight_sun' | 'unknown' } {
  const day = localDay(now, place.timezone);
  const start = zonedTimeToUtc({ ...day, hour: 0, minute: 0 }, place.timezone);
  let sunrise: number | null = null;
  let sunset: number | null = null;
  let sun: 'normal' | 'polar_night' | 'midnight_sun' | 'unknown' = 'unknown';
  if (place.lat !== null && place.lon !== null) {
    const times = sunTimes(day, place.lat, place.lon);
    sun = times.kind;
    if (times.kind === 'normal') {
      sunrise = times.sunrise;
      sunset = times.sunset;
    } else if (times.kind === 'polar_night') {
      // Dark all day: dawn never comes, dusk is already here.
      sunrise = start + DAY_MS;
      sunset = start;
    } else {
      sunrise = start;
      sunset = start + DAY_MS;
    }
  }
  const resolve = (value: string, word: 'dawn' | 'dusk'): number => {
    if (value === word || !/^\d{2}:\d{2}$/.test(value)) {
      const sunTime = word === 'dawn' ? sunrise : sunset;
      return sunTime ?? atClock(day, word === 'dawn' ? FALLBACK_DAWN : FALLBACK_DUSK, place.timezone);
    }
    return atClock(day, value, place.timezone);
  };
  return { open: resolve(schedule.open, 'dawn'), close: resolve(schedule.close, 'dusk'), sun };
}

/** Whether `now` falls in the shut part of a day with these door times. */
export function isShut(now: number, { open, close }: { open: number; close: number }): boolean {
  if (open < close) return now >= close || now < open;
  // A schedule that closes before it opens (close 02:00, open 06:00) is shut only in between.
  return now >= close && now < open;
}

/** How far from its target a house's air may drift before the brief lists it. */
export const CLIMATE_TOLERANCE_C = 5;

export interface HouseCondition {
  /** The alert rule that covers the same condition, when there is one. */
  rule: RuleName | null;
  severity: 'urgent' | 'watch';
  /** Short phrase: "feed bin 12%". */
  phrase: string;
  /** Explanation with the line crossed. */
  detail: string;
}

function fmt(value: number): string {
  return String(Math.round(value * 10) / 10);
}

type HouseValues = {
  feed: number | null;
  water: number | null;
  temp: number | null;
  nh3: number | null;
  target: number | null;
};

/** The rules the brief checks at each house, in the order it lists them, with their words. */
const HOUSE_RULES: ReadonlyArray<{
  rule: RuleName & ('house.feed' | 'water.level' | 'house.ammonia' | 'house.heat');
  value: keyof HouseValues;
  phrase: (v: string) => string;
  detail: (v: string, level: string, line: string) => string;
}> = [
  {
    rule: 'house.feed',
    value: 'feed',
    phrase: (v) => `feed bin ${v}%`,
    detail: (v, level, line) => `Feed bin at ${v}% (${level} line ${line}%)`,
  },
  {
    rule: 'water.level',
    value: 'water',
    phrase: (v) => `water ${v}%`,
    detail: (v, level, line) => `Header tank at ${v}% (${level} line ${line}%)`,
  },
  {
    rule: 'house.ammonia',
    value: 'nh3',
    phrase: (v) => `ammonia ${v} ppm`,
    detail: (v, level, line) => `Ammonia at ${v} ppm (${level} line ${line} ppm)`,
  },
  {
    rule: 'house.heat',
    value: 'temp',
    phrase: (v) => `${v} °C`,
    detail: (v, level, line) => `Air at ${v} °C (${level} line ${line} °C)`,
  },
];

/** Whether a value is at or past a rule's urgent or watch line, on the rule's side. */
function level(rule: AlertRule, value: number | null): 'urgent' | 'watch' | null {
  if (value === null) return null;
  const where = classifyReading(rule, value);
  return where === 'urgent' || where === 'watch' ? where : null;
}

/**
 * What is off at a house, by the farm's alert lines: feed or water at or below the watch line,
 * ammonia or heat at or above it, or (heat not past its line) air more than 5 °C from the target.
 */
export function houseConditions(
  values: HouseValues,
  rules: ReadonlyMap<string, AlertRule>,
  language: LanguageName = 'en',
): HouseCondition[] {
  const es = language !== 'en';
  const say = (key: BriefKey, params: MessageParams) => formatMessage(language, BRIEF_ES[key], params);
  const out: HouseCondition[] = [];
  let heatListed = false;
  for (const words of HOUSE_RULES) {
    const rule = rules.get(words.rule);
    const value = values[words.value];
    const severity = rule ? level(rule, value) : null;
    if (!rule || !severity || value === null) continue;
    const line = severity === 'urgent' ? (rule.urgent ?? 0) : rule.watch;
    out.push({
      rule: rule.name,
      severity,
      phrase: es ? say(`cond.${words.rule}`, { value: fmt(value) }) : words.phrase(fmt(value)),
      detail: es
        ? say(`cond.${words.rule}.${severity}`, { value: fmt(value), line: fmt(line) })
        : words.detail(fmt(value), severity, fmt(line)),
    });
    if (words.rule === 'house.heat') heatListed = true;
  }
  if (!heatListed && values.temp !== null && values.target !== null) {
    const off = values.temp - values.target;
    if (Math.abs(off) > CLIMATE_TOLERANCE_C) {
      out.push({
        rule: null,
        severity: 'watch',
        phrase: es
          ? say('cond.target', { value: fmt(values.temp), target: fmt(values.target) })
          : `${fmt(values.temp)} °C (target ${fmt(values.target)} °C)`,
        detail: es
          ? say(off > 0 ? 'cond.target.above' : 'cond.target.below', {
              value: fmt(values.temp),
              off: fmt(Math.abs(off)),
              target: fmt(values.target),
            })
          : `Air at ${fmt(values.temp)} °C, ${fmt(Math.abs(off))} °C ${off > 0 ? 'above' : 'below'} the ${fmt(values.target)} °C target`,
      });
    }
  }
  return out;
}
