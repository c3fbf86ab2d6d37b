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

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;
