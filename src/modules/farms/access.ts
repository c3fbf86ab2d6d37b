/**
 * Who may see what: a caller's scope is its account and its key's mode. Every farm-owned record is
 * reached through its farm, so one check here keeps other accounts' and the other mode's records
 * indistinguishable from missing ones.
 */

import type { Selectable } from 'kysely';
import type { Db } from '../../db/schema.ts';
import type { FarmsTable } from '../../db/tables/foundation.ts';
import { notFound } from '../../http/errors.ts';
import type { KeyMode } from '../../lib/secrets.ts';

export interface Scope {
  accountId: string;
  mode: KeyMode;
}

export type FarmRow = Selectable<FarmsTable>;

/** The farm if the scope may see it, else 404 `not_found`. */
export async function requireFarm(db: Db, scope: Scope, farmId: string): Promise<FarmRow> {
  const farm = await db
    .selectFrom('farms')
    .selectAll()
    .where('id', '=', farmId)
    .where('account_id', '=', scope.accountId)
    .where('mode', '=', scope.mode)
    .executeTakeFirst();
  if (!farm) throw notFound('farm', farmId);
  return farm;
}
