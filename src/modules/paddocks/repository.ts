import type { Selectable } from 'kysely';
import { fetchPage, type Page, type PageRequest } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import type { PaddocksTable } from '../../db/tables/records.ts';
import { isPlainObject, parseJson } from '../../lib/json.ts';
import { toIso } from '../../lib/time.ts';
import type { PaddockGrazing } from '../stays/service.ts';
import { drawnAcres } from './geometry.ts';
import type { Paddock } from './schemas.ts';

export type PaddockRow = Selectable<PaddocksTable>;

/** The API object of a paddock row, with what its stays give it (stays/service.ts). */
export function toPaddock(row: PaddockRow, grazing: PaddockGrazing): Paddock {
  // Only an object can be answered as `geometry`; anything else stored by hand reads as none.
  const stored = parseJson<unknown>(row.geometry, null);
  const geometry = isPlainObject(stored) ? stored : null;
  return {
    id: row.id,
    farm_id: row.farm_id,
    name: row.name,
    acres: row.acres,
    drawn_acres: drawnAcres(geometry),
    geometry,
    rest_days_target: row.rest_days_target,
    last_grazed_at: toIso(grazing.last_grazed_at),
    created_at: toIso(row.created_at),
    occupied_by: grazing.occupied_by,
    rest_days: grazing.rest_days,
  };
}

/** A farm's paddocks, newest first, one page of rows. */
export async function paddockPage(db: Db, farmId: string, page: PageRequest): Promise<Page<PaddockRow>> {
  return fetchPage(db.selectFrom('paddocks').selectAll().where('farm_id', '=', farmId), page, (row) => row);
}

/** Every paddock of the farm, oldest first. */
export async function farmPaddockRows(db: Db, farmId: string): Promise<PaddockRow[]> {
  return db
    .selectFrom('paddocks')
    .selectAll()
    .where('farm_id', '=', farmId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}
