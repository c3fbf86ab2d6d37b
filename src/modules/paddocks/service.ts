import type { Page, PageRequest } from '../../db/pagination.ts';
import type { Db, Trx } from '../../db/schema.ts';
import { inTransaction, lockRows } from '../../db/transaction.ts';
import { newId } from '../../domain/ids.ts';
import { parseJson } from '../../lib/json.ts';
import { removeAnimalsFrom } from '../animals/service.ts';
import { requireFarm, type Scope } from '../farms/access.ts';
import { clearGroupsPaddock, groupsInPaddock } from '../groups/repository.ts';
import { recordGroupMove } from '../groups/service.ts';
import { parseDateInput } from '../records/inputs.ts';
import { deleteRecord, insertRecord, loadScoped, saveRecord } from '../records/scoped.ts';
import { paddocksGrazing } from '../stays/service.ts';
import { acresOf, checkPaddockGeometry, drawnAcres } from './geometry.ts';
import { farmPaddockRows, type PaddockRow, paddockPage, toPaddock } from './repository.ts';
import type { CreatePaddockInput, Paddock, UpdatePaddockInput } from './schemas.ts';

/**
 * What a change of the farm's outlines (a paddock added or deleted with one, or redrawn) sets in motion, in
 * the same transaction: grazing's `placeFarmDevices` (every device with a position is placed again). The
 * caller above passes it (buildApp to the routes, the sample farm's seed), so paddocks, which grazing builds
 * on, do not import grazing.
 */
export type OutlinesChangedHook = (trx: Trx, farmId: string, now: number) => Promise<void>;

export async function listPaddocks(
  db: Db,
  scope: Scope,
  farmId: string,
  page: PageRequest,
  now: number = Date.now(),
): Promise<Page<Paddock>> {
  const farm = await requireFarm(db, scope, farmId);
  const rows = await paddockPage(db, farm.id, page);
  return { ...rows, data: await withGrazing(db, farm.id, rows.data, now) };
}

/** Paddock rows (all of one farm) as API objects, with who is in them and their rest (grazing). */
async function withGrazing(
  db: Db,
  farmId: string,
  rows: readonly PaddockRow[],
  now: number,
): Promise<Paddock[]> {
  const grazing = await paddocksGrazing(db, farmId, rows, now);
  return rows.map((row) => {
    const figures = grazing.get(row.id);
    if (!figures) throw new Error(`paddock ${row.id}: no grazing figures`);
    return toPaddock(row, figures);
  });
}

async function paddockOf(db: Db, row: PaddockRow, now: number): Promise<Paddock> {
  const [paddock] = await withGrazing(db, row.farm_id, [row], now);
  if (!paddock) throw new Error(`paddock ${row.id}: not mapped`);
  return paddock;
}

/** Every paddock of the farm, oldest first, as the API shows them (the map and the plan read these). */
export async function farmPaddocks(
  db: Db,
  scope: Scope,
  farmId: string,
  now: number = Date.now(),
): Promise<Paddock[]> {
  const farm = await requireFarm(db, scope, farmId);
  return withGrazing(db, farm.id, await farmPaddockRows(db, farm.id), now);
}

export async function getPaddock(
  db: Db,
  scope: Scope,
  id: string,
  now: number = Date.now(),
): Promise<Paddock> {
  return paddockOf(db, await loadScoped(db, scope, 'paddock', id), now);
}

export async function createPaddock(
  db: Db,
  scope: Scope,
  farmId: string,
  input: CreatePaddockInput,
  outlinesChanged: OutlinesChangedHook,
  now: number = Date.now(),
): Promise<Paddock> {
  const geometry = input.geometry ? checkPaddockGeometry(input.geometry) : null;
  return inTransaction(db, async (trx) => {
    const farm = await requireFarm(trx, scope, farmId);
    const row: PaddockRow = {
      id: newId('paddock', now),
      farm_id: farm.id,
      name: input.name,
      acres: input.acres ?? (geometry ? acresOf(geometry) : null),
      geometry: geometry ? JSON.stringify(geometry) : null,
      rest_days_target: input.rest_days_target ?? null,
      last_grazed_at: parseDateInput('last_grazed_at', input.last_grazed_at),
      created_at: now,
    };
    await insertRecord(trx, 'paddock', row);
    // Devices standing inside the new outline are in it now.
    if (row.geometry !== null) await outlinesChanged(trx, farm.id, now);
    return paddockOf(trx, row, now);
  });
}

/**
 * Updates any subset of fields; `geometry` is replaced as a whole. `acres` null, or a new geometry while the
 * acres were not given (null, or the old geometry's own area), is computed from the geometry (docs/map.md).
 */
export async function updatePaddock(
  db: Db,
  scope: Scope,
  id: string,
  patch: UpdatePaddockInput,
  outlinesChanged: OutlinesChangedHook,
  now: number = Date.now(),
): Promise<Paddock> {
  const geometry = patch.geometry ? checkPaddockGeometry(patch.geometry) : null;
  return inTransaction(db, async (trx) => {
    // Locked before it is read: the whole row is written back.
    await lockRows(trx, 'paddocks', id);
    const row = await loadScoped(trx, scope, 'paddock', id);
    const next: PaddockRow = { ...row };
    if (patch.name !== undefined) next.name = patch.name;
    if (patch.geometry !== undefined) next.geometry = geometry ? JSON.stringify(geometry) : null;
    if (patch.acres !== undefined && patch.acres !== null) next.acres = patch.acres;
    else if (patch.acres === null) next.acres = drawnAcres(parseJson(next.geometry, null));
    else if (geometry && (row.acres === null || row.acres === drawnAcres(parseJson(row.geometry, null)))) {
      next.acres = acresOf(geometry);
    }
    if (patch.rest_days_target !== undefined) next.rest_days_target = patch.rest_days_target;
    if (patch.last_grazed_at !== undefined) {
      next.last_grazed_at = parseDateInput('last_grazed_at', patch.last_grazed_at);
    }
    await saveRecord(trx, 'paddock', next);
    // A new outline may take devices in or leave them out: the farm's devices are placed again.
    if (next.geometry !== row.geometry) await outlinesChanged(trx, row.farm_id, now);
    return paddockOf(trx, next, now);
  });
}

/**
 * Deletes the paddock. Animals and groups in it are not deleted: their paddock_id is cleared and each
 * gets a `move` event (reason paddock_deleted), all in one transaction.
 */
export async function deletePaddock(
  db: Db,
  scope: Scope,
  id: string,
  outlinesChanged: OutlinesChangedHook,
  now: number = Date.now(),
): Promise<{ id: string; deleted: true }> {
  const run = async (trx: Trx): Promise<{ id: string; deleted: true }> => {
    const row = await loadScoped(trx, scope, 'paddock', id);
    await removeAnimalsFrom(trx, row.farm_id, 'paddock_id', row.id, now);
    const groups = await groupsInPaddock(trx, row.farm_id, row.id);
    for (const group of groups) await recordGroupMove(trx, group, null, 'paddock_deleted', now);
    await clearGroupsPaddock(trx, row.id);
    await deleteRecord(trx, 'paddock', row.id);
    // Its devices fall to another outline they stand in, or to none.
    if (row.geometry !== null) await outlinesChanged(trx, row.farm_id, now);
    return { id: row.id, deleted: true };
  };
  return inTransaction(db, run);
}
