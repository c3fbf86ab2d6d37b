import type { Selectable } from 'kysely';
import type { Db } from '../../db/schema.ts';
import type { AnimalGroupsTable } from '../../db/tables/records.ts';
import { notFound } from '../../http/errors.ts';
import { toIso } from '../../lib/time.ts';
import { farmInScope, type Scope } from '../farms/access.ts';
import type { Group } from './schemas.ts';

export type GroupRow = Selectable<AnimalGroupsTable>;

export function toGroup(row: GroupRow): Group {
  return {
    id: row.id,
    farm_id: row.farm_id,
    name: row.name,
    species: row.species,
    kind: row.kind,
    head_count: row.head_count,
    hatch_date: toIso(row.hatch_date),
    paddock_id: row.paddock_id,
    created_at: toIso(row.created_at),
  };
}

/** The group if its farm is in the scope, else 404. */
export async function loadGroup(db: Db, scope: Scope, id: string): Promise<GroupRow> {
  const row = await db
    .selectFrom('animal_groups')
    .innerJoin('farms', 'farms.id', 'animal_groups.farm_id')
    .selectAll('animal_groups')
    .where('animal_groups.id', '=', id)
    .where('farms.account_id', '=', scope.accountId)
    .where('farms.mode', '=', scope.mode)
    .where(farmInScope(scope))
    .executeTakeFirst();
  if (!row) throw notFound('group', id);
  return row;
}
