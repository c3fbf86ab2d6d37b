/**
 * PostgreSQL array literals for `unnest(...)` and `= any(...)` parameters (`${pgNumbers(values)}::float8[]`),
 * built with one `join` where pg would build them element by element: pg quotes and escapes every element
 * (two regular-expression replaces and three string concatenations each), which for a 100-reading report's
 * eight arrays was a third of everything the server allocated while ingesting on PostgreSQL. The literal is
 * sent as the parameter's text, exactly as pg sends the arrays it formats, so the statement and its casts
 * are the same.
 */

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
