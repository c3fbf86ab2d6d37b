/**
 * The device_latest table's one statement module: its column list, the rule that moves a latest value
 * forward, and its upserts (a report's newest reading per metric on either engine, and the piece
 * PostgreSQL ingest's report statement puts in its data-modifying CTE: modules/ingest/report-statement.ts).
 * A new column is one edit: DeviceLatestTable (db/tables/devices.ts) and LATEST_VALUES below.
 */
import { type OnConflictBuilder, type RawBuilder, sql } from 'kysely';
import { type PgColumnArrays, type PgColumnTypes, pgColumnArrays, unnestArrays } from '../pg-arrays.ts';
import { prepared } from '../prepared.ts';
import type { DB, Db } from '../schema.ts';
import type { DeviceLatestTable } from '../tables/devices.ts';

/** A latest value: every column but the device, which the report gives. */
export type LatestValues = Omit<DeviceLatestTable, 'device_id'>;

/** The latest value's own columns, in statement order, with their PostgreSQL array types (pg-arrays.ts). */
export const LATEST_VALUES = {
  metric: 'text',
  value: 'float8',
  unit: 'text',
  at: 'int8',
} as const satisfies PgColumnTypes<LatestValues>;

const VALUE_COLUMNS = Object.keys(LATEST_VALUES) as Array<keyof LatestValues & string>;

/** Every column of `device_latest`, in the order its upserts name them. */
export const LATEST_COLUMNS = ['device_id', ...VALUE_COLUMNS] as const satisfies ReadonlyArray<
  keyof DeviceLatestTable
>;

/** The columns a newer value replaces: all but the key. */
const REPLACED = VALUE_COLUMNS.filter((c) => c !== 'metric');

/**
 * A (device, metric) row already there takes the new value only if it is as new or newer, so a late report
 * never hides a newer value.
 */
export function moveLatestForward(oc: OnConflictBuilder<DB, 'device_latest'>) {
  return oc
    .columns(['device_id', 'metric'])
    .doUpdateSet((eb) => Object.fromEntries(REPLACED.map((c) => [c, eb.ref(`excluded.${c}`)])))
    .where((eb) => eb('excluded.at', '>=', eb.ref('device_latest.at')));
}

/**
 * The upsert of PostgreSQL's report statements: each row's device, then the values of the `unnest` rows named
 * `alias` (latestArrays), from `source` (a FROM clause's contents).
 */
export function upsertLatestFrom(
  db: Db,
  device: RawBuilder<unknown>,
  alias: string,
  source: RawBuilder<unknown>,
) {
  const values = VALUE_COLUMNS.map((c) => sql.ref(`${alias}.${c}`));
  return db
    .insertInto('device_latest')
    .columns(LATEST_COLUMNS)
    .expression(sql`select ${device}, ${sql.join(values)} from ${source}`)
    .onConflict(moveLatestForward);
}

/** PostgreSQL: latest values as one array literal per value column (place: see pgColumnArrays). */
export function latestColumns(latest: readonly LatestValues[], place?: readonly number[]): PgColumnArrays {
  return pgColumnArrays(LATEST_VALUES, latest, place);
}

/**
 * PostgreSQL: latest values' columns (latestColumns) as `unnest` rows `alias(column, …)`; reads no value, so
 * a statement built once may take it (db/prepared.ts).
 */
export function latestArrays(alias: string, columns: Readonly<Record<string, unknown>>): RawBuilder<unknown> {
  return unnestArrays(alias, LATEST_VALUES, columns);
}

/**
 * Moves the device's latest value of each metric forward. `latest` must hold one row per metric (a report's
 * distinct metrics: at most 1,000 rows, one statement on either engine).
 */
export async function upsertLatest(db: Db, deviceId: string, latest: readonly LatestValues[]): Promise<void> {
  if (latest.length === 0) return;
  const rows = latest.map((l) => {
    const row: Record<string, unknown> = { device_id: deviceId };
    for (const c of VALUE_COLUMNS) row[c] = l[c];
    return row as unknown as DeviceLatestTable;
  });
  await upsertLatestRows(db, { rows });
}

/** Built once per engine and number of metrics. */
const upsertLatestRows = prepared((db, q: { rows: readonly DeviceLatestTable[] }) =>
  db.insertInto('device_latest').values(q.rows).onConflict(moveLatestForward),
);
