import { invalid } from '../../domain/errors.ts';
import { localDateStart } from '../../lib/local-time.ts';
import { parseIso, toIso } from '../../lib/time.ts';

const DATE_PART = /^(\d{4})-(\d{2})-(\d{2})/;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** Date.parse rolls 2026-02-30 over to March 2; a farmer's typo must be an error, not another day. */
function isCalendarDate(text: string): boolean {
  const match = DATE_PART.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth;
}

/**
 * An input date or date-time as epoch ms (the route schema checks the format; this also checks the
 * calendar, and serves callers that skip the schema, such as MCP tools); null and absent stay null.
 */
export function parseDateInput(param: string, text: string): number;
export function parseDateInput(param: string, text: string | null | undefined): number | null;
export function parseDateInput(param: string, text: string | null | undefined): number | null {
  if (text === null || text === undefined) return null;
  const ms = parseIso(text);
  if (ms === null || !isCalendarDate(text)) {
    throw invalid(param, `${param} must be a valid ISO 8601 date or date-time (e.g. 2026-05-01T06:00:00Z).`);
  }
  return ms;
}

/**
 * A due date or date-time for a farm: a date without a time (`2026-11-28`) names that whole day in the
 * farm's zone, so `at` is the day's start there and `date` the day as given; a date-time is the instant it
 * names (`date` null). Null and absent stay null.
 */
export function parseFarmDayInput(
  param: string,
  text: string | null | undefined,
  timeZone: string,
): { at: number | null; date: string | null } {
  const at = parseDateInput(param, text);
  if (at === null || text === null || text === undefined || !DATE_ONLY.test(text)) return { at, date: null };
  return { at: localDateStart(text, timeZone), date: text };
}

/**
 * When a record happened (an event's, a treatment's, a movement's or a weight's `at`; a bull's `until`): a
 * date without a time is the start of that day on the farm, as a task's due day is (on a Pacific/Auckland
 * farm, 2026-12-02 is 2026-12-01T11:00Z: midnight UTC was 13:00 there, in the future all morning); a
 * date-time is the instant it names. Null and absent stay null.
 */
export function parseRecordAt(param: string, text: string, timeZone: string): number;
export function parseRecordAt(
  param: string,
  text: string | null | undefined,
  timeZone: string,
): number | null;
export function parseRecordAt(
  param: string,
  text: string | null | undefined,
  timeZone: string,
): number | null {
  return parseFarmDayInput(param, text, timeZone).at;
}

/**
 * The time a client gives for something done to a record (a task done, an alert acknowledged), which may
 * be earlier than the request (done without signal, sent when it returns): now when none is given, never
 * after now (nothing is done in the future), never before `floor`, the record's creation (nothing is done
 * to a record before it exists; a phone whose clock reset after a flat battery dates work decades back).
 */
export function backdatedTime(given: number | null, floor: number, now: number): number {
  return given === null ? now : Math.max(floor, Math.min(given, now));
}

/** How far ahead of now a record may be dated: a clock a few minutes fast, not a plan (plans are tasks). */
export const CLOCK_AHEAD_MS = 5 * 60_000;

/**
 * A record of something done (a move, a treatment, a sale) is dated when it happened, never later than now
 * and the clock tolerance: a typed 2027 for 2026 would otherwise hold an animal, or free it, for a year.
 */
export function requireDone(param: string, at: number, now: number, what: string): void {
  if (at > now + CLOCK_AHEAD_MS) {
    throw invalid(
      param,
      `${param} ${toIso(at)} is in the future: ${what} is recorded once it has happened (plan it as a task).`,
    );
  }
}
