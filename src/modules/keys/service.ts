import { forgetApiKey } from '../../calls/key-cache.ts';
import { BUS_CHANNELS, notify } from '../../db/notify.ts';
import { fetchPage, type Page, type PageRequest } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import { conflict, forbidden, invalid, notFound } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { FAMILY_NAMES, type FamilyGrants, FULL_ACCESS, grantsWithin } from '../../domain/permissions.ts';
import { type KeyMode, newApiKey } from '../../lib/secrets.ts';
import { toIso } from '../../lib/time.ts';
import {
  activeKeys,
  countOtherFullLiveKeys,
  existingFarmIds,
  findActiveKey,
  insertKey,
  type KeyRow,
  lockAccount,
  markKeyRevoked,
  parseFarms,
  parseGrants,
  storedGrants,
  toKey,
} from './repository.ts';
import type { CreateKeyInput, Key } from './schemas.ts';

/** The key acting on keys: its account, mode and its own restriction (which bounds what it may manage). */
export interface KeyManager {
  accountId: string;
  mode: KeyMode;
  grants: FamilyGrants;
  farms: readonly string[] | null;
}

/** Issues a key; the full key is in the result only, never stored (only its hash). */
export async function createKey(
  db: Db,
  accountId: string,
  input: {
    name?: string | undefined;
    mode: KeyMode;
    grants?: FamilyGrants;
    farms?: readonly string[] | null;
  },
  now: number = Date.now(),
): Promise<Key & { key: string }> {
  const { key, prefix, hash } = newApiKey(input.mode);
  const farms = input.farms ?? null;
  const row: KeyRow = {
    id: newId('key', now),
    account_id: accountId,
    name: input.name ?? `${input.mode} key`,
    mode: input.mode,
    prefix,
    key_hash: hash,
    created_at: now,
    last_used_at: null,
    revoked_at: null,
    farms: farms === null ? null : JSON.stringify(farms),
    permissions: storedGrants(input.grants ?? FULL_ACCESS),
  };
  await insertKey(db, row);
  return { ...toKey(row), key };
}

/** Whether a key restricted to `inner` farms reaches no farm outside `outer` (null: every farm). */
function farmsWithin(inner: readonly string[] | null, outer: readonly string[] | null): boolean {
  if (outer === null) return true;
  if (inner === null) return false;
  return inner.every((id) => outer.includes(id));
}

/**
 * Creates a key for the calling key. A test key never makes a live key, and no key makes a key broader
 * than itself: the new key's permissions and farms default to the caller's and must lie within them.
 */
export async function issueKey(
  db: Db,
  caller: KeyManager,
  input: CreateKeyInput,
): Promise<Key & { key: string }> {
  const mode = input.mode ?? caller.mode;
  if (caller.mode === 'test' && mode === 'live') {
    throw forbidden(
      'A test key cannot create live keys: test keys never reach anything live. Use a live key.',
    );
  }
  let grants = caller.grants;
  if (input.permissions) {
    grants = {};
    for (const family of FAMILY_NAMES) {
      const level = input.permissions[family];
      if (level === 'read' || level === 'write') grants[family] = level;
    }
  }
  if (!grantsWithin(grants, caller.grants)) {
    throw forbidden('This key can only create keys with no more permissions than its own.');
  }
  const farms = input.farms ?? caller.farms;
  if (!farmsWithin(farms, caller.farms)) {
    throw forbidden(
      'This key is restricted to chosen farms; it can only create keys restricted to some of them.',
    );
  }
  if (farms !== null) {
    const found = await existingFarmIds(db, caller.accountId, mode, farms);
    const missing = farms.findIndex((id) => !found.has(id));
    if (missing >= 0) {
      throw invalid(`farms[${missing}]`, `No ${mode} farm with id "${farms[missing]}" in this account.`);
    }
  }
  return createKey(db, caller.accountId, { name: input.name, mode, grants, farms });
}

/** The keys the caller may see, newest first: a test key sees only test keys. */
export async function listKeys(db: Db, caller: KeyManager, page: PageRequest): Promise<Page<Key>> {
  return fetchPage(activeKeys(db, caller.accountId, caller.mode === 'test'), page, toKey);
}

/**
 * Revokes a key at once. A test key cannot see live keys (404, like any other id it cannot reach); a
 * restricted key revokes only keys no broader than itself. The account's last unrestricted live key is
 * refused (409): losing it would leave the account no way to reach its live farms (a restricted live key
 * does not count: it could never make an unrestricted one). The account row is locked first, so concurrent
 * revocations queue and the count below is never stale. The key stops working at once: this process
 * forgets it after the commit, every other process when the notification arrives (src/calls/key-cache.ts).
 */
export async function revokeKey(
  db: Db,
  caller: KeyManager,
  keyId: string,
): Promise<{ id: string; deleted: true; revoked_at: string }> {
  const revoked = await inTransaction(db, async (trx) => {
    await lockAccount(trx, caller.accountId);
    const key = await findActiveKey(trx, caller.accountId, keyId);
    if (!key || (caller.mode === 'test' && key.mode !== 'test')) throw notFound('key', keyId);
    if (
      !grantsWithin(parseGrants(key.permissions), caller.grants) ||
      !farmsWithin(parseFarms(key.farms), caller.farms)
    ) {
      throw forbidden('This key can only revoke keys with no more permissions or farms than its own.');
    }
    const fullLive = key.mode === 'live' && key.permissions === null && key.farms === null;
    if (fullLive && (await countOtherFullLiveKeys(trx, caller.accountId, keyId)) === 0) {
      throw conflict(
        "This is the account's last live key with full access; revoking it would lock the account out of its live farms. Create another unrestricted live key first (POST /v1/keys).",
      );
    }
    const now = Date.now();
    await markKeyRevoked(trx, keyId, now);
    await notify(trx, BUS_CHANNELS.apiKeys, keyId);
    return { id: keyId, deleted: true as const, revoked_at: toIso(now) };
  });
  forgetApiKey(keyId);
  return revoked;
}
