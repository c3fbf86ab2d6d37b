import type { Selectable } from 'kysely';
import type { Db } from '../../db/schema.ts';
import type { ApiKeysTable } from '../../db/tables/foundation.ts';
import { conflict, notFound } from '../../http/errors.ts';
import { fetchPage, type Page, type PageRequest } from '../../http/pagination.ts';
import { newId } from '../../lib/ids.ts';
import { type KeyMode, newApiKey } from '../../lib/secrets.ts';
import { toIso } from '../../lib/time.ts';
import type { Key } from './schemas.ts';

function toKey(row: Selectable<ApiKeysTable>): Key {
  return {
    id: row.id,
    name: row.name,
    mode: row.mode,
    prefix: row.prefix,
    created_at: toIso(row.created_at),
    last_used_at: toIso(row.last_used_at),
  };
}

/** Issues a key; the full key is in the result only, never stored (only its hash). */
export async function createKey(
  db: Db,
  accountId: string,
  input: { name?: string | undefined; mode: KeyMode },
  now: number = Date.now(),
): Promise<Key & { key: string }> {
  const { key, prefix, hash } = newApiKey(input.mode);
  const row = {
    id: newId('key', now),
    account_id: accountId,
    name: input.name ?? `${input.mode} key`,
    mode: input.mode,
    prefix,
    key_hash: hash,
    created_at: now,
    last_used_at: null,
    revoked_at: null,
  };
  await db.insertInto('api_keys').values(row).execute();
  return { ...toKey(row), key };
}

/** The account's active keys, newest first. */
export async function listKeys(db: Db, accountId: string, page: PageRequest): Promise<Page<Key>> {
  return fetchPage(
    db.selectFrom('api_keys').selectAll().where('account_id', '=', accountId).where('revoked_at', 'is', null),
    page,
    toKey,
  );
}

/**
 * Revokes a key at once. The account's last live key is refused (409): losing it would leave the
 * account with no way to reach its live farms; create another live key first.
 */
export async function revokeKey(
  db: Db,
  accountId: string,
  keyId: string,
): Promise<{ id: string; deleted: true; revoked_at: string }> {
  return db.transaction().execute(async (trx) => {
    const key = await trx
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', keyId)
      .where('account_id', '=', accountId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    if (!key) throw notFound('key', keyId);
    if (key.mode === 'live') {
      const others = await trx
        .selectFrom('api_keys')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', accountId)
        .where('mode', '=', 'live')
        .where('revoked_at', 'is', null)
        .where('id', '!=', keyId)
        .executeTakeFirstOrThrow();
      if (Number(others.n) === 0) {
        throw conflict(
          "This is the account's last live key; revoking it would lock the account out of its live farms. Create another live key first (POST /v1/keys).",
        );
      }
    }
    const now = Date.now();
    await trx.updateTable('api_keys').set({ revoked_at: now }).where('id', '=', keyId).execute();
    return { id: keyId, deleted: true as const, revoked_at: toIso(now) };
  });
}
