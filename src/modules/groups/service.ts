import type { Page, PageRequest } from '../../db/pagination.ts';
import type { Db, Trx } from '../../db/schema.ts';
import { inTransaction, lockRows } from '../../db/transaction.ts';
import { newId } from '../../domain/ids.ts';
import { removeAnimalsFrom } from '../animals/service.ts';
import { recordFarmEvent } from '../events/service.ts';
import { requireFarm, type Scope } from '../farms/access.ts';
import { parseDateInput } from '../records/inputs.ts';
import { requireReference } from '../records/references.ts';
import { deleteRecord, insertRecord, loadScoped, saveRecord } from '../records/scoped.ts';
import { rebuildStays, recordPlacement } from '../stays/service.ts';
import { type GroupRow, groupPage, toGroup } from './repository.ts';
import type { CreateGroupInput, Group, GroupFilters, UpdateGroupInput } from './schemas.ts';

const FLOCK_SPECIES = new Set([
  'chicken',
  'chickens',
  'poultry',
  'hen',
  'hens',
  'broiler',
  'broilers',
  'layer',
  'layers',
  'duck',
  'ducks',
  'goose',
  'geese',
  'turkey',
  'turkeys',
  'quail',
  'sheep',
]);

/** The kind a farmer would say: a flock of birds or sheep, otherwise a herd. */
export function defaultGroupKind(species: string): string {
  return FLOCK_SPECIES.has(species.trim().toLowerCase()) ? 'flock' : 'herd';
}

export async function listGroups(
  db: Db,
  scope: Scope,
  farmId: string,
  filters: GroupFilters,
  page: PageRequest,
): Promise<Page<Group>> {
  const farm = await requireFarm(db, scope, farmId);
  return groupPage(db, farm.id, filters, page);
}

export async function getGroup(db: Db, scope: Scope, id: string): Promise<Group> {
  return toGroup(await loadScoped(db, scope, 'group', id));
}

export async function createGroup(
  db: Db,
  scope: Scope,
  farmId: string,
  input: CreateGroupInput,
  now: number = Date.now(),
): Promise<Group> {
  return inTransaction(db, async (trx) => {
    const farm = await requireFarm(trx, scope, farmId);
    const row: GroupRow = {
      id: newId('group', now),
      farm_id: farm.id,
      name: input.name,
      species: input.species,
      kind: input.kind ?? defaultGroupKind(input.species),
      head_count: input.head_count ?? null,
      hatch_date: parseDateInput('hatch_date', input.hatch_date),
      paddock_id: input.paddock_id ?? null,
      created_at: now,
    };
    if (row.paddock_id) await requireReference(trx, farm.id, 'paddock', row.paddock_id, 'paddock_id');
    await insertRecord(trx, 'group', row);
    await recordPlacement(trx, 'group', row);
    return toGroup(row);
  });
}

/** Logs a group's move between paddocks (so grazing history is kept, like an animal's). */
export async function recordGroupMove(
  db: Db,
  row: Pick<GroupRow, 'id' | 'farm_id' | 'paddock_id'>,
  toPaddockId: string | null,
  reason: string | null,
  now: number,
): Promise<void> {
  await recordFarmEvent(
    db,
    row.farm_id,
    {
      type: 'move',
      subject_type: 'group',
      subject_id: row.id,
      data: {
        from: { paddock_id: row.paddock_id },
        to: { paddock_id: toPaddockId },
        ...(reason ? { reason } : {}),
      },
      at: now,
    },
    now,
  );
}

/** Updates any subset of fields; a paddock change logs a `move` event on the group. */
export async function updateGroup(
  db: Db,
  scope: Scope,
  id: string,
  patch: UpdateGroupInput,
  now: number = Date.now(),
): Promise<Group> {
  const run = async (trx: Trx): Promise<Group> => {
    // Locked before it is read: the whole row is written back, and the move event says where it was.
    await lockRows(trx, 'animal_groups', id);
    const row = await loadScoped(trx, scope, 'group', id);
    const next: GroupRow = { ...row };
    if (patch.name !== undefined) next.name = patch.name;
    if (patch.species !== undefined) next.species = patch.species;
    if (patch.kind !== undefined) next.kind = patch.kind;
    if (patch.head_count !== undefined) next.head_count = patch.head_count;
    if (patch.hatch_date !== undefined) next.hatch_date = parseDateInput('hatch_date', patch.hatch_date);
    if (patch.paddock_id !== undefined) next.paddock_id = patch.paddock_id;
    const moved = next.paddock_id !== row.paddock_id;
    if (moved && next.paddock_id) {
      await requireReference(trx, row.farm_id, 'paddock', next.paddock_id, 'paddock_id');
    }
    await saveRecord(trx, 'group', next);
    if (moved) {
      await recordGroupMove(trx, row, next.paddock_id, null, now);
      await rebuildStays(trx, row.farm_id, 'group', row.id);
    }
    return toGroup(next);
  };
  return inTransaction(db, run);
}

/**
 * Deletes the group. Animals in it are not deleted: their group_id is cleared and each gets a `move`
 * event (reason group_deleted), all in one transaction.
 */
export async function deleteGroup(
  db: Db,
  scope: Scope,
  id: string,
  now: number = Date.now(),
): Promise<{ id: string; deleted: true }> {
  const run = async (trx: Db): Promise<{ id: string; deleted: true }> => {
    const row = await loadScoped(trx, scope, 'group', id);
    await removeAnimalsFrom(trx, row.farm_id, 'group_id', row.id, now);
    await deleteRecord(trx, 'group', row.id);
    return { id: row.id, deleted: true };
  };
  return inTransaction(db, run);
}
