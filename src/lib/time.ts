/** Times are stored as integer milliseconds since the epoch and shown as ISO 8601 UTC with milliseconds. */
export function toIso(ms: number): string;
export function toIso(ms: number | null | undefined): string | null;
export function toIso(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : new Date(Number(ms)).toISOString();
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
