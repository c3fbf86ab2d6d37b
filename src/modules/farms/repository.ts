import type { Selectable, Updateable } from 'kysely';
import type { Db } from '../../db/schema.ts';
import type { FarmsTable } from '../../db/tables/foundation.ts';
import { parseJson } from '../../lib/json.ts';
import { toIso } from '../../lib/time.ts';
import { type FarmRow, farmInScope, type Scope } from './access.ts';
import type { Farm } from './schemas.ts';

export function toFarm(row: Selectable<FarmsTable>): Farm {
  return {
    id: row.id,
    name: row.name,
    mode: row.mode,
    timezone: row.timezone,
    lat: row.lat,
    lon: row.lon,
    acres: row.acres,
    sample: row.sample === 1,
    settings: parseJson<Record<string, unknown>>(row.settings, {}),
    holding: row.holding === null ? null : parseJson<Farm['holding']>(row.holding, null),
    created_at: toIso(row.created_at),
  };
}

/** The farms a scope reaches (its account and mode, and its key's farms), as a query to page through. */
export function farmsInScope(db: Db, scope: Scope) {
  return db
    .selectFrom('farms')
    .selectAll()
    .where('account_id', '=', scope.accountId)
    .where('mode', '=', scope.mode)
    .where(farmInScope(scope, 'id'));
}

/** A farm by id, whatever the scope (the workers that plan notifications read it for its name and zone). */
export function findFarmById(db: Db, farmId: string): Promise<Selectable<FarmsTable> | undefined> {
  return db.selectFrom('farms').selectAll().where('id', '=', farmId).executeTakeFirst();
}

/** An account's farms but its sample farm (whose alerts are simulated), oldest first, in both modes. */
export function realFarmsOf(db: Db, accountId: string): Promise<Selectable<FarmsTable>[]> {
  return db
    .selectFrom('farms')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('sample', '=', 0)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function insertFarm(db: Db, row: FarmRow): Promise<void> {
  await db.insertInto('farms').values(row).execute();
}

export async function updateFarmRow(db: Db, farmId: string, patch: Updateable<FarmsTable>): Promise<void> {
  await db.updateTable('farms').set(patch).where('id', '=', farmId).execute();
}

/** Deletes a farm (everything in it cascades); false when it was already gone. */
export async function deleteFarmRow(db: Db, farmId: string): Promise<boolean> {
  const result = await db.deleteFrom('farms').where('id', '=', farmId).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}
