import { type Selectable, sql } from 'kysely';
import type { ActiveApiKey } from '../../calls/callers.ts';
import type { Db } from '../../db/schema.ts';
import type { ApiKeysTable } from '../../db/tables/foundation.ts';
import { FAMILY_NAMES, type FamilyGrants, type FamilyLevel, FULL_ACCESS } from '../../domain/permissions.ts';
import type { KeyMode } from '../../lib/secrets.ts';
import { toIso } from '../../lib/time.ts';
import type { Key, KeyPermissions } from './schemas.ts';

export type KeyRow = Selectable<ApiKeysTable>;

/** A key's family grants as stored (null: unrestricted, every family at write). */
export function parseGrants(text: string | null): FamilyGrants {
  if (text === null) return FULL_ACCESS;
  const stored = JSON.parse(text) as Record<string, unknown>;
  const grants: FamilyGrants = {};
  for (const family of FAMILY_NAMES) {
    const level = stored[family];
    if (level === 'read' || level === 'write') grants[family] = level;
  }
  return grants;
}

export function parseFarms(text: string | null): string[] | null {
  return text === null ? null : (JSON.parse(text) as string[]);
}

/** Every family named, `none` where nothing is granted, so a listing reads at a glance. */
export function permissionsView(grants: FamilyGrants): KeyPermissions {
  return Object.fromEntries(FAMILY_NAMES.map((f) => [f, grants[f] ?? 'none'])) as KeyPermissions;
}

export function toKey(row: KeyRow): Key {
  return {
    id: row.id,
    name: row.name,
    mode: row.mode,
    prefix: row.prefix,
    farms: parseFarms(row.farms),
    permissions: permissionsView(parseGrants(row.permissions)),
    created_at: toIso(row.created_at),
    last_used_at: toIso(row.last_used_at),
  };
}

/** Stored form of grants: null when they are full access, so unrestricted keys stay unrestricted. */
export function storedGrants(grants: FamilyGrants): string | null {
  const full = FAMILY_NAMES.every((f) => grants[f] === 'write');
  if (full) return null;
  const compact: Partial<Record<string, FamilyLevel>> = {};
  for (const f of FAMILY_NAMES) if (grants[f]) compact[f] = grants[f];
  return JSON.stringify(compact);
}

/**
 * The active (unrevoked) key with this secret hash, as the auth hook needs it (installed into
 * http/auth.ts by buildApp; its short per-process cache is src/calls/key-cache.ts).
 */
export async function findActiveKeyByHash(db: Db, hash: string): Promise<ActiveApiKey | null> {
  const row = await db
    .selectFrom('api_keys')
    .select(['id', 'account_id', 'name', 'mode', 'prefix', 'last_used_at', 'farms', 'permissions'])
    .where('key_hash', '=', hash)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  if (!row) return null;
  return {
    keyId: row.id,
    accountId: row.account_id,
    keyName: row.name,
    mode: row.mode,
    prefix: row.prefix,
    grants: parseGrants(row.permissions),
    farms: parseFarms(row.farms),
    lastUsedAt: row.last_used_at,
  };
}

/** Records a key's use (the auth hook calls it at most once a minute per key and process). */
export async function markKeyUsed(db: Db, keyId: string, at: number): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', keyId).execute();
}

export async function findActiveKey(db: Db, accountId: string, keyId: string): Promise<KeyRow | undefined> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('id', '=', keyId)
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}

/** Active unrestricted live keys of the account other than `keyId`. */
export async function countOtherFullLiveKeys(db: Db, accountId: string, keyId: string): Promise<number> {
  const row = await db
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .where('mode', '=', 'live')
    .where('revoked_at', 'is', null)
    .where('permissions', 'is', null)
    .where('farms', 'is', null)
    .where('id', '!=', keyId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Which of these farm ids exist in the account and mode. */
export async function existingFarmIds(
  db: Db,
  accountId: string,
  mode: KeyMode,
  farmIds: readonly string[],
): Promise<Set<string>> {
  if (farmIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('farms')
    .select('id')
    .where('account_id', '=', accountId)
    .where('mode', '=', mode)
    .where('id', 'in', farmIds)
    .execute();
  return new Set(rows.map((r) => r.id));
}

export async function insertKey(db: Db, row: KeyRow): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

/** The account's keys not revoked (only its test keys with `testOnly`), as a query to page through. */
export function activeKeys(db: Db, accountId: string, testOnly: boolean) {
  let query = db
    .selectFrom('api_keys')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null);
  if (testOnly) query = query.where('mode', '=', 'test');
  return query;
}

/**
 * Locks the account row for the transaction: a no-op write, which on PostgreSQL row-locks the account and
 * on SQLite takes the write lock up front (a deferred transaction upgrading later could fail with
 * "database is locked").
 */
export async function lockAccount(trx: Db, accountId: string): Promise<void> {
  await trx.updateTable('accounts').set({ name: sql`name` }).where('id', '=', accountId).execute();
}

export async function markKeyRevoked(trx: Db, keyId: string, now: number): Promise<void> {
  await trx.updateTable('api_keys').set({ revoked_at: now }).where('id', '=', keyId).execute();
}
