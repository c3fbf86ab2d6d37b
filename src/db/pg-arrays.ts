/**
 * PostgreSQL array literals for `unnest(...)` and `= any(...)` parameters (`${pgNumbers(values)}::float8[]`),
 * built with one `join` where pg would build them element by element: pg quotes and escapes every element
 * (two regular-expression replaces and three string concatenations each), which for a 100-reading report's
 * eight arrays was a third of everything the server allocated while ingesting on PostgreSQL. The literal is
 * sent as the parameter's text, exactly as pg sends the arrays it formats, so the statement and its casts
 * are the same.
 */
import { type RawBuilder, sql } from 'kysely';

/** A numeric array (float8, int8, int4); null elements are NULL, numbers written as pg writes them (`String`). */
export function pgNumbers(values: readonly (number | null)[]): string {
  if (!values.includes(null)) return `{${values.join(',')}}`;
  return `{${values.map((v) => (v === null ? 'NULL' : String(v))).join(',')}}`;
}

/** A text array; null elements are NULL, every other element quoted (so "NULL", "" and "a,b" stay text). */
export function pgTexts(values: readonly (string | null)[]): string {
  let plain = true;
  for (const v of values) {
    if (v === null || v.includes('"') || v.includes('\\')) {
      plain = false;
      break;
    }
  }
  if (plain) return values.length === 0 ? '{}' : `{"${values.join('","')}"}`;
  return `{${values.map(textElement).join(',')}}`;
}

/** A boolean array. */
export function pgBools(values: readonly boolean[]): string {
  return `{${values.map((v) => (v ? 't' : 'f')).join(',')}}`;
}

function textElement(value: string | null): string {
  if (value === null) return 'NULL';
  return `"${value.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
}

/** The element types the `unnest` columns use. */
export type PgArrayType = 'text' | 'float8' | 'int8' | 'int4' | 'bool';

/** Every column of a row type with its array type: a column left out, or one the row lacks, fails to compile. */
export type PgColumnTypes<R> = { readonly [K in keyof R]-?: PgArrayType };

/** An array literal of the given element type (pgNumbers, pgTexts or pgBools by type). */
export function pgArray(type: PgArrayType, values: readonly unknown[]): string {
  if (type === 'text') return pgTexts(values as (string | null)[]);
  if (type === 'bool') return pgBools(values as boolean[]);
  return pgNumbers(values as (number | null)[]);
}

/** A column's array literals (pgColumnArrays): by column name, and `place` when the rows are tagged. */
export type PgColumnArrays = Readonly<Record<string, string>>;

/**
 * The rows as one array literal per column of `types` (and a leading `place` column when given): what
 * `unnestArrays` puts in place. Apart from it so that a statement built once (db/prepared.ts) gets the
 * literals as its arguments, whatever the number of rows.
 */
export function pgColumnArrays<R>(
  types: PgColumnTypes<R>,
  rows: readonly R[],
  place?: readonly number[],
): PgColumnArrays {
  const arrays: Record<string, string> = {};
  if (place) arrays.place = pgNumbers(place);
  for (const c of Object.keys(types) as Array<keyof R & string>) {
    const values = new Array<unknown>(rows.length);
    for (let i = 0; i < rows.length; i++) values[i] = (rows[i] as R)[c];
    arrays[c] = pgArray(types[c], values);
  }
  return arrays;
}

/**
 * `unnest($1::text[], $2::float8[], …) as alias(column, …)`: one array parameter per column of `types` (in
 * its order), from `arrays` (pgColumnArrays), led by an int4 `place` column when `arrays` has one (a batch's
 * rows tagged with the call they belong to). Reads only which columns `arrays` has, never their values, so
 * it may build a statement from placeholders (db/prepared.ts).
 */
export function unnestArrays<R>(
  alias: string,
  types: PgColumnTypes<R>,
  arrays: Readonly<Record<string, unknown>>,
): RawBuilder<unknown> {
  const columns = Object.keys(types) as Array<keyof R & string>;
  const parameters = columns.map((c) => sql`${arrays[c]}::${sql.raw(types[c])}[]`);
  const names = columns.map((c) => sql.id(c));
  if ('place' in arrays) {
    parameters.unshift(sql`${arrays.place}::int4[]`);
    names.unshift(sql.id('place'));
  }
  return sql`unnest(${sql.join(parameters)}) as ${sql.id(alias)}(${sql.join(names)})`;
}
