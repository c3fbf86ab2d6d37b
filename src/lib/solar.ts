/**
 * Where the sun is, from NOAA's solar calculator equations (the Meeus-based "NOAA Solar Calculations"
 * spreadsheet): declination and equation of time from the Julian century, then the hour angle. Good
 * to about a minute between ±72° latitude, which is far finer than "is it dark at the farm?" needs.
 * Pure functions of time and place; no clock, no I/O.
 */

const DAY_MS = 86_400_000;
/** Sunrise and sunset are when the sun's upper limb touches the horizon: centre 0.833° below it (refraction + radius). */
export const SUNRISE_ELEVATION_DEG = -0.833;

const rad = (deg: number): number => (deg * Math.PI) / 180;
const deg = (r: number): number => (r * 180) / Math.PI;

interface SunAt {
  /** Declination, degrees. */
  declination: number;
  /** Equation of time, minutes (apparent minus mean solar time). */
  eqTimeMin: number;
}

/** Declination and equation of time at an instant (epoch ms). */
function sunAt(at: number): SunAt {
  const julianDay = at / DAY_MS + 2440587.5;
  const t = (julianDay - 2451545) / 36525;
  const meanLong = (((280.46646 + t * (36000.76983 + t * 0.0003032)) % 360) + 360) % 360;
  const meanAnom = 357.52911 + t * (35999.05029 - 0.0001537 * t);
  const ecc = 0.016708634 - t * (0.000042037 + 0.0000001267 * t);
  const centre =
    Math.sin(rad(meanAnom)) * (1.914602 - t * (0.004817 + 0.000014 * t)) +
    Math.sin(rad(2 * meanAnom)) * (0.019993 - 0.000101 * t) +
    Math.sin(rad(3 * meanAnom)) * 0.000289;
  const omega = 125.04 - 1934.136 * t;
  const appLong = meanLong + centre - 0.00569 - 0.00478 * Math.sin(rad(omega));
  const meanObliq = 23 + (26 + (21.448 - t * (46.815 + t * (0.00059 - t * 0.001813))) / 60) / 60;
  const obliq = meanObliq + 0.00256 * Math.cos(rad(omega));
  const declination = deg(Math.asin(Math.sin(rad(obliq)) * Math.sin(rad(appLong))));
  const y = Math.tan(rad(obliq / 2)) ** 2;
  const l0 = rad(meanLong);
  const m = rad(meanAnom);
  const eqTimeMin =
    4 *
    deg(
      y * Math.sin(2 * l0) -
        2 * ecc * Math.sin(m) +
        4 * ecc * y * Math.sin(m) * Math.cos(2 * l0) -
        0.5 * y * y * Math.sin(4 * l0) -
        1.25 * ecc * ecc * Math.sin(2 * m),
    );
  return { declination, eqTimeMin };
}

/** The sun's elevation above the horizon in degrees (no refraction), at an instant and place. */
export function solarElevation(at: number, lat: number, lon: number): number {
  const { declination, eqTimeMin } = sunAt(at);
  const minutesOfDay = (((at % DAY_MS) + DAY_MS) % DAY_MS) / 60_000;
  const trueSolarMin = (((minutesOfDay + eqTimeMin + 4 * lon) % 1440) + 1440) % 1440;
  const hourAngle = trueSolarMin / 4 - 180;
  const cosZenith =
    Math.sin(rad(lat)) * Math.sin(rad(declination)) +
    Math.cos(rad(lat)) * Math.cos(rad(declination)) * Math.cos(rad(hourAngle));
  return 90 - deg(Math.acos(Math.min(1, Math.max(-1, cosZenith))));
}

/** True when the sun is below the horizon (between sunset and sunrise) at that instant and place. */
export function isDark(at: number, lat: number, lon: number): boolean {
  return solarElevation(at, lat, lon) < SUNRISE_ELEVATION_DEG;
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
  const midnightUtc = Date.UTC(date.year, date.month - 1, date.day);
  // Two passes: the first finds solar noon with the sun's position at 12:00 UTC, the second refines it.
  let noonMin = 720 - 4 * lon;
  let sun = sunAt(midnightUtc + noonMin * 60_000);
  noonMin = 720 - 4 * lon - sun.eqTimeMin;
  sun = sunAt(midnightUtc + noonMin * 60_000);
  noonMin = 720 - 4 * lon - sun.eqTimeMin;
  const cosHourAngle =
    Math.cos(rad(90 - SUNRISE_ELEVATION_DEG)) / (Math.cos(rad(lat)) * Math.cos(rad(sun.declination))) -
    Math.tan(rad(lat)) * Math.tan(rad(sun.declination));
  if (cosHourAngle > 1) return { kind: 'polar_night' };
  if (cosHourAngle < -1) return { kind: 'midnight_sun' };
  const halfDayMin = 4 * deg(Math.acos(cosHourAngle));
  return {
    kind: 'normal',
    sunrise: Math.round(midnightUtc + (noonMin - halfDayMin) * 60_000),
    sunset: Math.round(midnightUtc + (noonMin + halfDayMin) * 60_000),
  };
}

/** The calendar date an instant falls on in an IANA time zone. */
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
