import type { Selectable } from 'kysely';
import type { Db } from '../../db/schema.ts';
import type { PaddocksTable } from '../../db/tables/records.ts';
import { notFound } from '../../http/errors.ts';
import { parseJson } from '../../lib/json.ts';
import { toIso } from '../../lib/time.ts';
import { farmInScope, type Scope } from '../farms/access.ts';
import type { Paddock } from './schemas.ts';

export type PaddockRow = Selectable<PaddocksTable>;

export function toPaddock(row: PaddockRow): Paddock {
  return {
    id: row.id,
    farm_id: row.farm_id,
    name: row.name,
    acres: row.acres,
    geometry: parseJson<Record<string, unknown> | null>(row.geometry, null),
    rest_days_target: row.rest_days_target,
    last_grazed_at: toIso(row.last_grazed_at),
    created_at: toIso(row.created_at),
  };
}

/** The paddock if its farm is in the scope, else 404. */
export async function loadPaddock(db: Db, scope: Scope, id: string): Promise<PaddockRow> {
  const row = await db
    .selectFrom('paddocks')
    .innerJoin('farms', 'farms.id', 'paddocks.farm_id')
    .selectAll('paddocks')
    .where('paddocks.id', '=', id)
    .where('farms.account_id', '=', scope.accountId)
    .where('farms.mode', '=', scope.mode)
    .where(farmInScope(scope))
    .executeTakeFirst();
  if (!row) throw notFound('paddock', id);
  return row;
}
