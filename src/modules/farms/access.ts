/**
 * Who may see what: a caller's scope is its account and its key's mode. Every farm-owned record is
 * reached through its farm, so one check here keeps other accounts' and the other mode's records
 * indistinguishable from missing ones.
 */

import { type Expression, type Selectable, type SqlBool, sql } from 'kysely';
import { prepared } from '../../db/prepared.ts';
import type { Db } from '../../db/schema.ts';
import type { FarmsTable } from '../../db/tables/foundation.ts';
import { notFound } from '../../domain/errors.ts';
import type { Policy } from '../../domain/permissions.ts';
import type { KeyMode } from '../../lib/secrets.ts';

export interface Scope {
  accountId: string;
  mode: KeyMode;
  /** A restricted key's farms; null or absent: every farm of the account and mode. */
  farms?: readonly string[] | null;
  /**
   * What the caller may read, where a record's own content decides it (the alert engine's farm events need
   * alerts:read: src/domain/webhook-events.ts). Absent: an internal caller, everything.
   */
  policy?: Policy;
}

/**
 * A restricted key's farm list as a condition on a farm id column (every farm when unrestricted). A farm
 * outside the list is then missing like any farm of another account: 404, never a hint that it exists.
 */
export function farmInScope(scope: Scope, column = 'farms.id'): Expression<SqlBool> {
  const farms = scope.farms;
  if (!farms) return sql<SqlBool>`1 = 1`;
  if (farms.length === 0) return sql<SqlBool>`1 = 0`;
  return sql<SqlBool>`${sql.ref(column)} in (${sql.join(farms)})`;
}

/** The same rule in code, for a row already read with its farm id: whether the scope may see that farm's records. */
export function scopeSeesFarm(scope: Scope, farmId: string): boolean {
  return !scope.farms || scope.farms.includes(farmId);
}

export type FarmRow = Selectable<FarmsTable>;

/** The farm if the scope may see it, else 404 `not_found`. */
export async function requireFarm(db: Db, scope: Scope, farmId: string): Promise<FarmRow> {
  const [farm] = await selectFarm(db, {
    farmId,
    scope: { accountId: scope.accountId, mode: scope.mode, farms: scope.farms ?? null },
  });
  if (!farm) throw notFound('farm', farmId);
  return farm;
}

/** Built once per engine and scope shape (every farm, none, or a restricted key's n farms). */
const selectFarm = prepared((db, q: { farmId: string; scope: Scope }) =>
  db
    .selectFrom('farms')
    .selectAll()
    .where('id', '=', q.farmId)
    .where('account_id', '=', q.scope.accountId)
    .where('mode', '=', q.scope.mode)
    .where(farmInScope(q.scope, 'id')),
);
