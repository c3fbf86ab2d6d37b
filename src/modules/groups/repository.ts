import type { Selectable } from 'kysely';
import type { AnimalGroupsTable } from '../../db/tables/records.ts';
import { toIso } from '../../lib/time.ts';
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
