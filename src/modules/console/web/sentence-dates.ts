/**
 * Dates inside sentences the server wrote (the brief's lines, an alert's reason) as the reader writes them:
 * the API keeps them ISO 8601 for programs ("Due 2026-12-07", "last report 2026-12-01T16:15:00.000Z"); a
 * person reads "Due Dec 7" or "vence el 7 dic". Loaded by the brief and the alert pages only.
 */
import { dayOf, momentOf } from './i18n.ts';

/** An instant (`…T16:15:00.000Z`), a farm's local day and clock (`2026-11-29 17:00`), or a day alone. */
const DATE =
  /\b(\d{4}-\d{2}-\d{2})(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})|(?: (\d{2}:\d{2}))?)\b/g;

/** The sentence with each date in it written in the reader's locale, an instant in `timezone`. */
export function withReaderDates(text: string, timezone: string | null | undefined): string {
  return text.replace(DATE, (whole: string, day: string, clock: string | undefined) => {
    if (whole.length > day.length && clock === undefined) return momentOf(whole, timezone);
    // A local day (and clock) as the server wrote it on the farm's calendar: no zone to move it by.
    const said = dayOf(`${day}T12:00:00Z`, 'UTC');
    return clock === undefined ? said : `${said}, ${clock}`;
  });
}
