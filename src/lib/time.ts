/** Times are stored as integer milliseconds since the epoch and shown as ISO 8601 UTC with milliseconds. */
export function toIso(ms: number): string;
export function toIso(ms: number | null | undefined): string | null;
export function toIso(ms: number | null | undefined): string | null {
  if (ms === null || ms === undefined) return null;
  const n = Number(ms);
  // Every record and reading is shown through here (a list of 50 animals, 100 times): written out by
  // hand it costs a fifth of Date#toISOString. Outside years 1970-9999, or for a fraction, Date does it.
  if (!(n >= 0 && n < YEAR_10000_MS) || !Number.isInteger(n)) return new Date(n).toISOString();
  const day = Math.floor(n / DAY_MS);
  if (day !== isoDay.day) isoDay = { day, text: isoDate(day) };
  let rest = n - day * DAY_MS;
  const hours = Math.floor(rest / HOUR_MS);
  rest -= hours * HOUR_MS;
  const minutes = Math.floor(rest / MINUTE_MS);
  rest -= minutes * MINUTE_MS;
  const seconds = Math.floor(rest / 1000);
  const millis = rest - seconds * 1000;
  return `${isoDay.text}${pad2(hours)}:${pad2(minutes)}:${pad2(seconds)}.${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}Z`;
}

const YEAR_10000_MS = 253_402_300_800_000;
/** The last day formatted: times come in runs of one day (a page of records, a day of readings). */
let isoDay = { day: Number.NaN, text: '' };

function pad2(n: number): string {
  return n < 10 ? `0${n}` : `${n}`;
}

/** `YYYY-MM-DDT` of a day since the epoch (Howard Hinnant's civil_from_days, for days from 1970 on). */
function isoDate(day: number): string {
  const z = day + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra -
      Math.floor(dayOfEra / 1460) +
      Math.floor(dayOfEra / 36_524) -
      Math.floor(dayOfEra / 146_096)) /
      365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const shifted = Math.floor((5 * dayOfYear + 2) / 153); // months from March
  const dayOfMonth = dayOfYear - Math.floor((153 * shifted + 2) / 5) + 1;
  const month = shifted < 10 ? shifted + 3 : shifted - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return `${String(year).padStart(4, '0')}-${pad2(month)}-${pad2(dayOfMonth)}T`;
}

const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

/** Parses an ISO 8601 date or date-time; returns epoch ms, or null when the text is not a valid one. */
export function parseIso(text: string): number | null {
  // Devices send a reading's time as toIso writes it (`2026-03-01T10:20:30.123Z`), a hundred to a report:
  // read by hand, that form costs a tenth of the general path. Anything else takes the general path.
  if (text.length === 24) {
    const ms = parseCanonical(text);
    if (ms !== null) return ms;
  }
  return parseIsoGeneral(text);
}

/** The last date part read by parseCanonical and its epoch ms: a report's times share their day. */
let canonicalDay = { text: '', ms: 0 };

/**
 * `YYYY-MM-DDTHH:MM:SS.sssZ` with a year from 1970 and every field in range, as epoch ms; null for any other
 * text (which the general path then reads or refuses), so it never answers differently from it.
 */
function parseCanonical(t: string): number | null {
  if (
    t.charCodeAt(4) !== 45 ||
    t.charCodeAt(7) !== 45 ||
    t.charCodeAt(10) !== 84 ||
    t.charCodeAt(13) !== 58 ||
    t.charCodeAt(16) !== 58 ||
    t.charCodeAt(19) !== 46 ||
    t.charCodeAt(23) !== 90
  ) {
    return null;
  }
  let dayMs: number;
  if (canonicalDay.text !== '' && t.startsWith(canonicalDay.text)) {
    dayMs = canonicalDay.ms;
  } else {
    const year = digits(t, 0, 4);
    const month = digits(t, 5, 2);
    const day = digits(t, 8, 2);
    if (year < 1970 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
    dayMs = Date.UTC(year, month - 1, day);
    canonicalDay = { text: t.slice(0, 11), ms: dayMs };
  }
  const hours = digits(t, 11, 2);
  const minutes = digits(t, 14, 2);
  const seconds = digits(t, 17, 2);
  const millis = digits(t, 20, 3);
  if (hours > 23 || minutes > 59 || seconds > 59 || millis < 0) return null;
  return dayMs + hours * HOUR_MS + minutes * MINUTE_MS + seconds * 1000 + millis;
}

/** The decimal number in t[from, from + length), or -1 when any of those is not a digit. */
function digits(t: string, from: number, length: number): number {
  let n = 0;
  for (let i = from; i < from + length; i++) {
    const d = t.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** parseIso's general path, for every form ISO_8601 allows (exported for the test that holds the fast path to it). */
export function parseIsoGeneral(text: string): number | null {
  if (!ISO_8601.test(text)) return null;
  // Date.parse reads a date-time without a zone in the process's own time zone; ours is UTC, always.
  const hasTime = text.length > 10;
  const zoned = /(?:Z|[+-]\d{2}:?\d{2})$/i.test(text.slice(10));
  const ms = Date.parse(hasTime && !zoned ? `${text.slice(0, 10)}T${text.slice(11)}Z` : text);
  if (!Number.isFinite(ms)) return null;
  // Date.parse rolls impossible days over (2026-02-30 → 2 March); refuse them instead.
  const [year, month, day] = text.slice(0, 10).split('-').map(Number) as [number, number, number];
  const calendar = new Date(Date.UTC(year, month - 1, day));
  if (calendar.getUTCMonth() !== month - 1 || calendar.getUTCDate() !== day) return null;
  return ms;
}

/** 45 min, 7 h, 3.5 h, 3 days: a span as a farmer reads it (the brief, device.quiet's reasons). */
export function formatDuration(ms: number): string {
  if (ms < HOUR_MS) return `${Math.max(1, Math.round(ms / MINUTE_MS))} min`;
  if (ms < 2 * DAY_MS) return `${Math.round((ms / HOUR_MS) * 2) / 2} h`;
  return `${Math.floor(ms / DAY_MS)} days`;
}

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;
