import type { Selectable } from 'kysely';
import type { Db } from '../../db/schema.ts';
import type { FarmEventsTable } from '../../db/tables/records.ts';
import { notFound } from '../../http/errors.ts';
import { parseJson } from '../../lib/json.ts';
import { toIso } from '../../lib/time.ts';
import { farmInScope, type Scope } from '../farms/access.ts';
import type { FarmEvent } from './schemas.ts';

export type FarmEventRow = Selectable<FarmEventsTable>;

export function toFarmEvent(row: FarmEventRow): FarmEvent {
  return {
    id: row.id,
    farm_id: row.farm_id,
    type: row.type,
    subject_type: row.subject_type,
    subject_id: row.subject_id,
    data: parseJson<Record<string, unknown>>(row.data, {}),
    at: toIso(row.at),
    created_at: toIso(row.created_at),
  };
}

/** The event if its farm is in the scope, else 404. */
export async function loadEvent(db: Db, scope: Scope, id: string): Promise<FarmEventRow> {
  const row = await db
    .selectFrom('farm_events')
    .innerJoin('farms', 'farms.id', 'farm_events.farm_id')
    .selectAll('farm_events')
    .where('farm_events.id', '=', id)
    .where('farms.account_id', '=', scope.accountId)
    .where('farms.mode', '=', scope.mode)
    .where(farmInScope(scope))
    .executeTakeFirst();
  if (!row) throw notFound('event', id);
  return row;
}
