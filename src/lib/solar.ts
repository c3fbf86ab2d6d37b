/**
 * Where the sun is, from `suncalc` (Meeus' *Astronomical Algorithms*, the figures timeanddate.com and
 * the U.S. Naval Observatory publish). Sunrise and sunset are when the sun's upper limb touches the
 * horizon: its centre 0.833° below it (refraction and radius), suncalc's `sunrise`/`sunset`. Pure
 * functions of time and place; no clock, no I/O.
 */
import { getPosition, getTimes } from 'suncalc';

const HOUR_MS = 3_600_000;

/** The sun's apparent (refraction-corrected) elevation above the horizon in degrees, at an instant and place. */
export function solarElevation(at: number, lat: number, lon: number): number {
  return getPosition(new Date(at), lat, lon).altitude;
}

/**
 * True when the sun is below the horizon (between sunset and sunrise) at that instant and place: the
 * same sunrise and sunset `sunTimes` gives, of the solar day (nadir to nadir) that `at` falls in.
 */
export function isDark(at: number, lat: number, lon: number): boolean {
  const times = getTimes(new Date(at), lat, lon);
  if (times.sunrise === null || times.sunset === null) return times.alwaysDown === true;
  return at < times.sunrise.getTime() || at >= times.sunset.getTime();
}

export interface CalendarDate {
  year: number;
  /** 1-12 */
  month: number;
  day: number;
}

export type SunTimes =
  | { kind: 'normal'; sunrise: number; sunset: number }
  /** The sun stays below the horizon all day. */
  | { kind: 'polar_night' }
  /** The sun stays above the horizon all day. */
  | { kind: 'midnight_sun' };

/**
 * Sunrise and sunset (epoch ms) of a calendar date at a place: the sunrise and sunset around that
 * date's solar noon at the longitude, which is the local date's day wherever the time zone roughly
 * follows the longitude.
 */
export function sunTimes(date: CalendarDate, lat: number, lon: number): SunTimes {
  // suncalc answers for the solar day whose noon is nearest the instant given: ask at this date's mean
  // solar noon at the longitude (12:00 UTC, four minutes earlier per degree east).
  const meanNoon = Date.UTC(date.year, date.month - 1, date.day, 12) - (lon / 15) * HOUR_MS;
  const times = getTimes(new Date(meanNoon), lat, lon);
  if (times.sunrise === null || times.sunset === null) {
    return { kind: times.alwaysDown === true ? 'polar_night' : 'midnight_sun' };
  }
  return { kind: 'normal', sunrise: times.sunrise.getTime(), sunset: times.sunset.getTime() };
}

/**
 * The calendar date an instant falls on in an IANA time zone. `Intl` directly rather than local-time.ts:
 * the console runs this file too (domain/confirmation.ts), and needs nothing more for it.
 */
export function localDate(at: number, timeZone: string): CalendarDate {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).formatToParts(new Date(at));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return { year: get('year'), month: get('month'), day: get('day') };
}

/** `date` moved by `days` calendar days. */
export function addDays(date: CalendarDate, days: number): CalendarDate {
  const d = new Date(Date.UTC(date.year, date.month - 1, date.day + days));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

/** Wall-clock time HH:MM of an instant in a time zone. */
export function localClock(at: number, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
    .format(new Date(at))
    .replace(/^24:/, '00:');
}

export interface Darkness {
  dark: boolean;
  /** The last sunset before `at` within a day or so, when there was one. */
  lastSunset: number | null;
  /** The next sunrise after `at` within a day or so, when there is one. */
  nextSunrise: number | null;
}

/** Whether it is dark at a place and, for explaining it, the sunset before and the sunrise after. */
export function darknessAt(at: number, lat: number, lon: number, timeZone: string): Darkness {
  const today = localDate(at, timeZone);
  const times = [-1, 0, 1].map((offset) => sunTimes(addDays(today, offset), lat, lon));
  let lastSunset: number | null = null;
  let nextSunrise: number | null = null;
  for (const t of times) {
    if (t.kind !== 'normal') continue;
    if (t.sunset <= at && (lastSunset === null || t.sunset > lastSunset)) lastSunset = t.sunset;
    if (t.sunrise > at && (nextSunrise === null || t.sunrise < nextSunrise)) nextSunrise = t.sunrise;
  }
  return { dark: isDark(at, lat, lon), lastSunset, nextSunrise };
}
