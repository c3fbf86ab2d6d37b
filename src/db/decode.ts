/**
 * Typed readers for what a raw statement returns (a batch kind's JSON columns, a report statement's joined
 * rows): each checks the value is what the statement promised and maps it, so a statement and its reader
 * that drift apart fail at once and by name instead of handing on a wrong value typed as right.
 */

/** The failure of a reader: the statement's answer was not what it promised. */
export class DecodeError extends Error {}

function fail(what: string, expected: string, value: unknown): never {
  throw new DecodeError(`${what}: expected ${expected}, got ${JSON.stringify(value) ?? String(value)}`);
}

/** A JSON column as PostgreSQL parses it or SQLite returns its text (null: an empty list). */
export function jsonList(value: unknown, what: string): unknown[] {
  if (value == null) return [];
  const list = typeof value === 'string' ? JSON.parse(value) : value;
  if (!Array.isArray(list)) fail(what, 'a JSON array', value);
  return list;
}

export function record(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(what, 'an object', value);
  return value as Record<string, unknown>;
}

export function tuple(value: unknown, length: number, what: string): unknown[] {
  if (!Array.isArray(value) || value.length !== length) fail(what, `an array of ${length}`, value);
  return value;
}

export function text(value: unknown, what: string): string {
  if (typeof value !== 'string') fail(what, 'a string', value);
  return value;
}

/** A number; PostgreSQL's int8 arrives as a numeric string outside JSON. */
export function num(value: unknown, what: string): number {
  const n = typeof value === 'string' && value !== '' ? Number(value) : value;
  if (typeof n !== 'number' || Number.isNaN(n)) fail(what, 'a number', value);
  return n;
}

export function nullable<T>(
  read: (value: unknown, what: string) => T,
): (value: unknown, what: string) => T | null {
  return (value, what) => (value === null ? null : read(value, what));
}
