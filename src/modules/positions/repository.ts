import { sql } from 'kysely';
import type { Db } from '../../db/schema.ts';
import type { DevicePositionsTable } from '../../db/tables/devices.ts';

export interface TrackRange {
  deviceId: string;
  /** Inclusive bounds; null: open. */
  from: number | null;
  to: number | null;
  /** Exclusive upper bound (the page cursor); null: none. */
  before: number | null;
}

type PositionRow = Pick<DevicePositionsTable, 'lat' | 'lon' | 'at'>;

function inRange(db: Db, range: TrackRange) {
  return db
    .selectFrom('device_positions')
    .where('device_id', '=', range.deviceId)
    .$if(range.from !== null, (q) => q.where('at', '>=', range.from as number))
    .$if(range.to !== null, (q) => q.where('at', '<=', range.to as number))
    .$if(range.before !== null, (q) => q.where('at', '<', range.before as number));
}

/** The newest `limit` positions in the range, newest first (the primary key's order, read backwards). */
export function newestPositions(db: Db, range: TrackRange, limit: number): Promise<PositionRow[]> {
  return inRange(db, range).select(['lat', 'lon', 'at']).orderBy('at', 'desc').limit(limit).execute();
}

export async function countPositions(db: Db, range: TrackRange): Promise<number> {
  const row = await inRange(db, range)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * Every `step`-th position of the range counted from its oldest (index 0), and its newest (`count` - 1),
 * newest first: the database numbers them, so only the kept rows come back.
 */
export async function everyNthPosition(
  db: Db,
  range: TrackRange,
  step: number,
  count: number,
): Promise<PositionRow[]> {
  const numbered = inRange(db, range)
    .select(['lat', 'lon', 'at', sql<number>`row_number() over (order by at) - 1`.as('i')])
    .as('p');
  return db
    .selectFrom(numbered)
    .select(['p.lat', 'p.lon', 'p.at'])
    .where((eb) => eb.or([eb(sql`p.i % ${step}`, '=', 0), eb('p.i', '=', count - 1)]))
    .orderBy('p.at', 'desc')
    .execute();
}
