/**
 * The device_positions table's one statement module: its column list and every INSERT INTO device_positions
 * (a report's position on SQLite, and the piece PostgreSQL ingest's report statement puts in its
 * data-modifying CTE, for one report or a group: modules/ingest/report-statement.ts). A report without both lat
 * and lon writes none. The track reads and the retention deletes are modules/positions' own.
 */
import type { OnConflictBuilder, RawBuilder } from 'kysely';
import { prepared } from '../prepared.ts';
import type { DB, Db } from '../schema.ts';
import type { DevicePositionsTable } from '../tables/devices.ts';
import { everyColumn } from './columns.ts';

/** Every column of `device_positions`, in the order its INSERTs name them. */
export const POSITION_COLUMNS = everyColumn<DevicePositionsTable>()([
  'device_id',
  'farm_id',
  'lat',
  'lon',
  'at',
]);

/** Two reports of one device in one millisecond: the position of the one stored last stands. */
function keepLast(oc: OnConflictBuilder<DB, 'device_positions'>) {
  return oc
    .columns(['device_id', 'at'])
    .doUpdateSet((eb) => ({ lat: eb.ref('excluded.lat'), lon: eb.ref('excluded.lon') }));
}

/** PostgreSQL's report statements: positions selected (`select` gives POSITION_COLUMNS in order). */
export function insertPositionsFrom(db: Db, select: RawBuilder<unknown>) {
  return db.insertInto('device_positions').columns(POSITION_COLUMNS).expression(select).onConflict(keepLast);
}

/** SQLite: one report's position. Built once. */
const insertPosition = prepared((db, q: { row: DevicePositionsTable }) =>
  db.insertInto('device_positions').values(q.row).onConflict(keepLast),
);

export async function storePosition(db: Db, row: DevicePositionsTable): Promise<void> {
  await insertPosition(db, { row });
}
