/**
 * Wall-clock time in a farm's IANA time zone: "today" for a farmer is the local calendar day, not the
 * UTC one. A zone's offset at an instant is `@date-fns/tz`'s `tzOffset` (over the runtime's own zone
 * data); this file keeps only the rule for wall-clock times that a DST change skips or repeats.
 */
import { tzOffset } from '@date-fns/tz/tzOffset';
import { DAY_MS } from './time.ts';

export interface LocalDateTime {
  year: number;
  /** 1-12 */
  month: number;
  day: number;
  hour: number;
  minute: number;
}

type LocalParts = LocalDateTime & { second: number };

/** A zone the runtime does not know is a programming error (farm zones are checked when saved), never NaN. */
function checked(value: number, timeZone: string): number {
  if (Number.isNaN(value)) throw new RangeError(`Invalid time zone specified: ${timeZone}`);
  return value;
}

/**
 * Conversions already made, both ways (zone and instant, zone and wall-clock time): the brief converts the
 * same due times and midnights over and over, and each fresh one asks Intl at least once.
 */
const CONVERTED_LIMIT = 5_000;
const toLocal = new Map<string, Readonly<LocalParts>>();
const toInstant = new Map<string, number>();

function remember<T>(cache: Map<string, T>, key: string, value: T): T {
  if (cache.size >= CONVERTED_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(key, value);
  return value;
}

/** The local calendar date and clock time of an instant in a time zone. */
export function localParts(at: number, timeZone: string): LocalParts {
  const key = `${at} ${timeZone}`;
  const known = toLocal.get(key);
  if (known) return { ...known };
  // The wall clock is the instant moved by the zone's offset, read in UTC (as TZDate does).
  const local = new Date(at + zoneOffsetMs(at, timeZone));
  const out = {
    year: local.getUTCFullYear(),
    month: local.getUTCMonth() + 1,
    day: local.getUTCDate(),
    hour: local.getUTCHours(),
    minute: local.getUTCMinutes(),
    second: local.getUTCSeconds(),
  };
  return { ...remember(toLocal, key, out) };
}

/** The local calendar date of an instant in a time zone, `YYYY-MM-DD`. */
export function localDateText(at: number, timeZone: string): string {
  return dateText(localParts(at, timeZone));
}

/** A calendar date's `YYYY-MM-DD`. */
export function dateText(p: { year: number; month: number; day: number }): string {
  return `${p.year}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')}`;
}

/** How far the zone's wall clock is ahead of UTC at an instant, in ms (Chicago in summer: −5 h). */
export function zoneOffsetMs(at: number, timeZone: string): number {
  // tzOffset answers in minutes, with a fraction for the few historical offsets that had seconds.
  return Math.round(checked(tzOffset(timeZone, new Date(at)), timeZone) * 60) * 1000;
}

/**
 * The instant a wall-clock time happens in a zone. A time skipped by a DST change resolves to the
 * moment after the gap (as a Date does: 02:30 on a spring-forward night is 03:30); a repeated one to
 * its first occurrence. Built on tzOffset rather than TZDate's constructor: that one resolves repeated
 * times through the host's own zone, so its answer changed with the server's TZ (date-fns/tz#25).
 */
export function zonedTimeToUtc(local: LocalDateTime, timeZone: string): number {
  const wall = Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute);
  const key = `${wall} ${timeZone}`;
  const known = toInstant.get(key);
  if (known !== undefined) return known;
  // The offsets in force a day either side: one zone change at most lies between them.
  const before = zoneOffsetMs(wall - DAY_MS, timeZone);
  const after = zoneOffsetMs(wall + DAY_MS, timeZone);
  const real = [wall - before, wall - after].filter((at) => at + zoneOffsetMs(at, timeZone) === wall);
  // Neither reading is real inside a gap: the clock before the change, carried on, lands after it.
  return remember(toInstant, key, real.length === 0 ? wall - before : Math.min(...real));
}

/** Midnight at the start of the local day that `at` falls on, and the next local midnight. */
export function localDayBounds(at: number, timeZone: string): { start: number; end: number } {
  const p = localParts(at, timeZone);
  const start = zonedTimeToUtc({ year: p.year, month: p.month, day: p.day, hour: 0, minute: 0 }, timeZone);
  // The next calendar day by date arithmetic, so 23- and 25-hour days come out right.
  const next = new Date(Date.UTC(p.year, p.month - 1, p.day) + DAY_MS);
  const end = zonedTimeToUtc(
    {
      year: next.getUTCFullYear(),
      month: next.getUTCMonth() + 1,
      day: next.getUTCDate(),
      hour: 0,
      minute: 0,
    },
    timeZone,
  );
  return { start, end };
}

/**
 * The same wall-clock time `days` calendar days later (earlier when negative) in a zone: a service at 07:30
 * is due at 07:30 on the day its gestation ends, whatever DST changes lie between (a day of 23 or 25 hours
 * counts as one). A wall-clock time the later day skips resolves as zonedTimeToUtc's does.
 */
export function addLocalDays(at: number, days: number, timeZone: string): number {
  const p = localParts(at, timeZone);
  const day = new Date(Date.UTC(p.year, p.month - 1, p.day + days));
  const wall = zonedTimeToUtc(
    {
      year: day.getUTCFullYear(),
      month: day.getUTCMonth() + 1,
      day: day.getUTCDate(),
      hour: p.hour,
      minute: p.minute,
    },
    timeZone,
  );
  return wall + p.second * 1000 + (((at % 1000) + 1000) % 1000);
}

/** How many calendar days in a zone lie from the local day of `from` to that of `to` (same day: 0). */
export function localDaysBetween(from: number, to: number, timeZone: string): number {
  const a = localParts(from, timeZone);
  const b = localParts(to, timeZone);
  return Math.round((Date.UTC(b.year, b.month - 1, b.day) - Date.UTC(a.year, a.month - 1, a.day)) / DAY_MS);
}

/** The instant a local calendar day (`YYYY-MM-DD`) starts in a zone: its midnight there. */
export function localDateStart(date: string, timeZone: string): number {
  const [year, month, day] = date.split('-').map(Number);
  return zonedTimeToUtc({ year: year ?? 0, month: month ?? 0, day: day ?? 0, hour: 0, minute: 0 }, timeZone);
}

/** The local hour of day as a fraction (06:30 → 6.5). */
export function localHour(at: number, timeZone: string): number {
  const p = localParts(at, timeZone);
  return p.hour + p.minute / 60 + p.second / 3600;
}

/** `HH:MM` on the local clock. */
export function localClock(at: number, timeZone: string): string {
  const p = localParts(at, timeZone);
  return `${String(p.hour).padStart(2, '0')}:${String(p.minute).padStart(2, '0')}`;
}
