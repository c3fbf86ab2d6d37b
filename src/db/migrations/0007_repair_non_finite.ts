/**
 * Repairs numbers that could not be stored: before the input guard, `{"acres": 1e309}` was stored as
 * Infinity, and every later read including the row failed. A non-finite number becomes null: in the
 * nullable number columns, and inside stored JSON (settings, fields, state, event data, command params
 * and results, geometry, outbox payloads). A reading or latest value is never null, so a non-finite one
 * is deleted (it never was a measurement). Rows are read in batches by id, and only JSON texts that
 * could hold an out-of-range literal (a 3-digit exponent, or 200 digits in a row) are parsed.
 */
import { type Kysely, sql } from 'kysely';
import { isPostgres } from '../engine.ts';

/** Nullable double precision columns that take numbers from outside. */
const NUMBER_COLUMNS: Record<string, string[]> = {
  farms: ['lat', 'lon', 'acres'],
  paddocks: ['acres', 'rest_days_target'],
  animal_groups: ['head_count'],
  devices: ['lat', 'lon', 'battery'],
};

/** Not-null value columns: a non-finite row is removed. */
const VALUE_TABLES = ['readings', 'device_latest'];

/** JSON text columns (tables keyed by `id`). */
const JSON_COLUMNS: Record<string, string[]> = {
  farms: ['settings'],
  paddocks: ['geometry'],
  animals: ['fields'],
  farm_events: ['data'],
  devices: ['state'],
  commands: ['params', 'result'],
  outbox: ['data'],
};

const BATCH = 500;

/** The value with every non-finite number replaced by null, and whether anything changed. */
export function finiteJson(value: unknown): { value: unknown; changed: boolean } {
  if (typeof value === 'number') {
    return Number.isFinite(value) ? { value, changed: false } : { value: null, changed: true };
  }
  if (typeof value !== 'object' || value === null) return { value, changed: false };
  let changed = false;
  const fix = (child: unknown) => {
    const fixed = finiteJson(child);
    changed ||= fixed.changed;
    return fixed.value;
  };
  const out = Array.isArray(value)
    ? value.map(fix)
    : Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fix(v)]));
  return { value: out, changed };
}

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the schema as it was.
type AnyDb = Kysely<any>;

async function repairJsonColumn(db: AnyDb, postgres: boolean, table: string, column: string): Promise<void> {
  const ref = sql.ref(column);
  const suspect = postgres
    ? sql`${ref} ~ '[0-9]{200}|[eE][+]?[0-9]{3}'`
    : sql`(${ref} glob ${`*${'[0-9]'.repeat(200)}*`} or ${ref} glob '*[eE][0-9][0-9][0-9]*' or ${ref} glob '*[eE]+[0-9][0-9][0-9]*')`;
  let after = '';
  for (;;) {
    const rows = (
      await sql<{ id: string; text: string }>`select id, ${ref} as text from ${sql.table(table)}
        where id > ${after} and ${ref} is not null and ${suspect} order by id limit ${BATCH}`.execute(db)
    ).rows;
    for (const row of rows) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(row.text);
      } catch {
        continue;
      }
      const fixed = finiteJson(parsed);
      if (fixed.changed) {
        await sql`update ${sql.table(table)} set ${ref} = ${JSON.stringify(fixed.value)} where id = ${row.id}`.execute(
          db,
        );
      }
    }
    const last = rows.at(-1);
    if (!last || rows.length < BATCH) return;
    after = last.id;
  }
}

export async function up(db: AnyDb): Promise<void> {
  const postgres = isPostgres(db);
  const nonFinite = (column: string) =>
    postgres
      ? sql`${sql.ref(column)} in ('Infinity'::float8, '-Infinity'::float8, 'NaN'::float8)`
      : sql`${sql.ref(column)} in (9e999, -9e999)`;
  for (const [table, columns] of Object.entries(NUMBER_COLUMNS)) {
    for (const column of columns) {
      await sql`update ${sql.table(table)} set ${sql.ref(column)} = null where ${nonFinite(column)}`.execute(
        db,
      );
    }
  }
  for (const table of VALUE_TABLES) {
    await sql`delete from ${sql.table(table)} where ${nonFinite('value')}`.execute(db);
  }
  for (const [table, columns] of Object.entries(JSON_COLUMNS)) {
    for (const column of columns) await repairJsonColumn(db, postgres, table, column);
  }
}

/** Nothing to undo: the repaired values were never valid. */
export async function down(): Promise<void> {}
