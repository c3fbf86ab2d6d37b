/**
 * The readings table's one statement module: its column list and every INSERT INTO readings the code runs
 * (a report's readings on either engine, and the piece PostgreSQL ingest's report statement puts in its
 * data-modifying CTE, for one report or a group: modules/ingest/report-statement.ts). Nothing else writes readings
 * rows (the retention job only moves partitions' rows as they are: modules/readings/retention.ts).
 *
 * A new column of `readings` is one edit here: add it to ReadingsTable (db/tables/devices.ts) and to
 * READING_VALUES below with its PostgreSQL array type; every statement below (SQLite's plain values and JSON
 * rows, PostgreSQL's `unnest` arrays, the report statements) takes it from there, and the compiler then asks
 * for it wherever a reading is made (modules/readings/service.ts, prepareReadings). statements.test.ts fails
 * when this list and the migrated table's columns differ on either engine.
 */
import { type RawBuilder, sql } from 'kysely';
import { isPostgres } from '../engine.ts';
import { type PgColumnArrays, type PgColumnTypes, pgColumnArrays, unnestArrays } from '../pg-arrays.ts';
import { prepared } from '../prepared.ts';
import type { Db } from '../schema.ts';
import type { ReadingsTable } from '../tables/devices.ts';

/** What a report's reading brings to its row: every column but the device and farm, which the report gives. */
export type ReadingValues = Omit<ReadingsTable, 'device_id' | 'farm_id'>;

/** The readings' own columns, in statement order, with their PostgreSQL array types (pg-arrays.ts). */
export const READING_VALUES = {
  metric: 'text',
  value: 'float8',
  unit: 'text',
  at: 'int8',
  raw_value: 'float8',
  raw_unit: 'text',
} as const satisfies PgColumnTypes<ReadingValues>;

const VALUE_COLUMNS = Object.keys(READING_VALUES) as Array<keyof ReadingValues & string>;

/** Every column of `readings`, in the order its INSERTs name them. */
export const READING_COLUMNS = ['device_id', 'farm_id', ...VALUE_COLUMNS] as const satisfies ReadonlyArray<
  keyof ReadingsTable
>;

/**
 * The one INSERT INTO readings: each row's device and farm, then its values (`value(column, i)`, the i-th of
 * READING_VALUES' columns), selected from `source` (a FROM clause's contents), or without a source one row
 * of VALUES (on SQLite an INSERT … SELECT of one row took 1.7 times as long as the same row as VALUES).
 */
export function insertReadingsFrom(
  device: RawBuilder<unknown>,
  farm: RawBuilder<unknown>,
  value: (column: keyof ReadingValues & string, index: number) => RawBuilder<unknown>,
  source?: RawBuilder<unknown>,
): RawBuilder<unknown> {
  const columns = sql.join(READING_COLUMNS.map((c) => sql.id(c)));
  const values = sql.join([device, farm, ...VALUE_COLUMNS.map(value)]);
  if (!source) return sql`insert into readings (${columns}) values (${values})`;
  return sql`insert into readings (${columns}) select ${values} from ${source}`;
}

/** PostgreSQL: the readings as one array literal per value column (place: see pgColumnArrays). */
export function readingColumns(
  readings: readonly ReadingValues[],
  place?: readonly number[],
): PgColumnArrays {
  return pgColumnArrays(READING_VALUES, readings, place);
}

/**
 * PostgreSQL: readings' columns (readingColumns) as `unnest` rows `alias(column, …)`; reads no value, so a
 * statement built once may take it (db/prepared.ts).
 */
export function readingArrays(
  alias: string,
  columns: Readonly<Record<string, unknown>>,
): RawBuilder<unknown> {
  return unnestArrays(alias, READING_VALUES, columns);
}

/** A value column of the `unnest` rows named `alias` (readingArrays). */
export function readingRef(alias: string): (column: string) => RawBuilder<unknown> {
  return (column) => sql.ref(`${alias}.${column}`);
}

/**
 * Stores a report's readings with one statement and a fixed handful of parameters, whatever the number of
 * readings: on PostgreSQL the columns go as arrays through `unnest`; on SQLite as one JSON array of rows
 * through `json_each`, or for a lone reading as plain values (half the time of `json_each` for one row).
 * Either way there is no SQL text or bound value per reading to build, which a multi-row VALUES list costs
 * (a 1,000-reading report would be 6,000 parameters). SQLite's statements are built once (`prepared`):
 * building costs more there than running them.
 */
export async function insertReadings(
  db: Db,
  device: { deviceId: string; farmId: string },
  readings: readonly ReadingValues[],
): Promise<void> {
  if (readings.length === 0) return;
  if (isPostgres(db)) {
    await insertReadingArrays(db, { ...device, arrays: readingArrays('r', readingColumns(readings)) });
    return;
  }
  if (readings.length === 1) {
    await insertOneReading(db, { ...device, reading: readings[0] as ReadingValues });
    return;
  }
  const rows = readings.map((r) => VALUE_COLUMNS.map((c) => r[c]));
  await insertReadingRows(db, { ...device, rows: JSON.stringify(rows) });
}

/** PostgreSQL: the arrays (one text: their number is fixed). */
function insertReadingArrays(db: Db, q: { deviceId: string; farmId: string; arrays: RawBuilder<unknown> }) {
  return insertReadingsFrom(sql`${q.deviceId}`, sql`${q.farmId}`, readingRef('r'), q.arrays).execute(db);
}

/** SQLite: a lone reading. Built once per shape (a unit or none). */
const insertOneReading = prepared((db, q: { deviceId: string; farmId: string; reading: ReadingValues }) => ({
  compile: () =>
    insertReadingsFrom(sql`${q.deviceId}`, sql`${q.farmId}`, (column) => sql`${q.reading[column]}`).compile(
      db,
    ),
}));

/** SQLite: the rows as one JSON array of arrays in READING_VALUES' order. Built once. */
const insertReadingRows = prepared((db, q: { deviceId: string; farmId: string; rows: string }) => ({
  // ->> gives SQL values: TEXT for strings, REAL for the value, INTEGER for the time, NULL for null.
  compile: () =>
    insertReadingsFrom(
      sql`${q.deviceId}`,
      sql`${q.farmId}`,
      (_, i) => sql`j.value ->> ${sql.lit(i)}`,
      sql`json_each(${q.rows}) as j`,
    ).compile(db),
}));
