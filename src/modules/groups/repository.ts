import type { Selectable } from 'kysely';
import { fetchPage, type Page, type PageRequest } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import type { AnimalGroupsTable } from '../../db/tables/records.ts';
import { toIso } from '../../lib/time.ts';
import type { Group, GroupFilters } from './schemas.ts';

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

/** A farm's groups, newest first, one page. */
export async function groupPage(
  db: Db,
  farmId: string,
  filters: GroupFilters,
  page: PageRequest,
): Promise<Page<Group>> {
  let query = db.selectFrom('animal_groups').selectAll().where('farm_id', '=', farmId);
  if (filters.species !== undefined) query = query.where('species', '=', filters.species);
  if (filters.kind !== undefined) query = query.where('kind', '=', filters.kind);
  if (filters.paddock_id !== undefined) query = query.where('paddock_id', '=', filters.paddock_id);
  return fetchPage(query, page, toGroup);
}

/** The groups grazing a paddock now. */
export async function groupsInPaddock(db: Db, farmId: string, paddockId: string) {
  return db
    .selectFrom('animal_groups')
    .select(['id', 'farm_id', 'paddock_id'])
    .where('farm_id', '=', farmId)
    .where('paddock_id', '=', paddockId)
    .execute();
}

export async function clearGroupsPaddock(db: Db, paddockId: string): Promise<void> {
  await db
    .updateTable('animal_groups')
    .set({ paddock_id: null })
    .where('paddock_id', '=', paddockId)
    .execute();
}
