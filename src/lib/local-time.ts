/**
 * Wall-clock time in a farm's IANA time zone: "today" for a farmer is the local calendar day, not the
 * UTC one. Formatters are cached per zone (building one costs far more than using it).
 */
import { DAY_MS } from './time.ts';

export interface LocalDateTime {
  year: number;
  /** 1-12 */
  month: number;
  day: number;
  hour: number;
  minute: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

type LocalParts = LocalDateTime & { second: number };

/** Instants already converted (zone and instant): the brief converts the same due times and midnights over and over. */
const converted = new Map<string, Readonly<LocalParts>>();
const CONVERTED_LIMIT = 5_000;

/** The local calendar date and clock time of an instant in a time zone. */
export function localParts(at: number, timeZone: string): LocalParts {
  const key = `${at} ${timeZone}`;
  const known = converted.get(key);
  if (known) return { ...known };
  const out = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0 };
  // formatToParts is the slow part of every conversion (a tenth of a brief's time before this cache).
  for (const part of formatter(timeZone).formatToParts(new Date(at))) {
    if (part.type in out) out[part.type as keyof typeof out] = Number(part.value);
  }
  if (converted.size >= CONVERTED_LIMIT) converted.delete(converted.keys().next().value as string);
  converted.set(key, { ...out });
  return out;
}

/** How far the zone's wall clock is ahead of UTC at an instant, in ms (Chicago in summer: −5 h). */
export function zoneOffsetMs(at: number, timeZone: string): number {
  const p = localParts(at, timeZone);
  const wall = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return wall - (at - (((at % 1000) + 1000) % 1000));
}

/**
 * The instant a wall-clock time happens in a zone. A time skipped by a DST change resolves to the
 * moment after the gap; a repeated one to its first occurrence.
 */
export function zonedTimeToUtc(local: LocalDateTime, timeZone: string): number {
  const wall = Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute);
  const first = wall - zoneOffsetMs(wall, timeZone);
  const second = wall - zoneOffsetMs(first, timeZone);
  if (first === second) return first;
  // Around a DST change the two guesses differ; the earlier one that maps back to the wall time wins.
  const candidates = [Math.min(first, second), Math.max(first, second)];
  for (const at of candidates) {
    if (at + zoneOffsetMs(at, timeZone) === wall) return at;
  }
  return Math.max(first, second);
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
