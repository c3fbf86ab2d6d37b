/**
 * The oauth module's queries: clients (registered or fetched), grants (connected agents), one-time codes and
 * tokens (SHA-256 hashes only), and pruning. Both engines.
 */
import { BUS_CHANNELS, notify } from '../../db/notify.ts';
import type { Db } from '../../db/schema.ts';
import type { OauthClientsTable, OauthGrantsTable } from '../../db/tables/oauth.ts';
import type { KeyMode } from '../../lib/secrets.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

export function findClientRow(db: Db, clientId: string) {
  return db.selectFrom('oauth_clients').selectAll().where('client_id', '=', clientId).executeTakeFirst();
}

/** Inserts a registered client unless one with the same fingerprint exists; answers the row either way. */
export async function insertRegisteredClient(db: Db, row: OauthClientsTable & { fingerprint: string }) {
  await db
    .insertInto('oauth_clients')
    .values(row)
    .onConflict((oc) => oc.column('fingerprint').doNothing())
    .execute();
  return db
    .selectFrom('oauth_clients')
    .selectAll()
    .where('fingerprint', '=', row.fingerprint)
    .executeTakeFirstOrThrow();
}

/** Saves a fetched client metadata document (a new row, or the cached copy refreshed); answers the row. */
export async function saveMetadataDocument(
  db: Db,
  row: OauthClientsTable,
  refreshed: Pick<OauthClientsTable, 'name' | 'redirect_uris' | 'metadata' | 'fetched_at'>,
) {
  await db
    .insertInto('oauth_clients')
    .values(row)
    .onConflict((oc) => oc.column('client_id').doUpdateSet(refreshed))
    .execute();
  return db
    .selectFrom('oauth_clients')
    .selectAll()
    .where('client_id', '=', row.client_id)
    .executeTakeFirstOrThrow();
}

/** The account's farms (both modes), for the consent page. */
export function accountFarms(db: Db, accountId: string) {
  return db
    .selectFrom('farms')
    .select(['id', 'name', 'mode'])
    .where('account_id', '=', accountId)
    .orderBy('name')
    .execute();
}

/** Which of these ids are farms of the account in this mode. */
export async function existingFarmIds(db: Db, accountId: string, mode: KeyMode, ids: readonly string[]) {
  const rows = await db
    .selectFrom('farms')
    .select('id')
    .where('account_id', '=', accountId)
    .where('mode', '=', mode)
    .where('id', 'in', ids)
    .execute();
  return new Set(rows.map((r) => r.id));
}

export async function insertGrantWithCode(
  trx: Db,
  grant: OauthGrantsTable,
  code: { code_hash: string; code_challenge: string; expires_at: number },
): Promise<void> {
  await trx.insertInto('oauth_grants').values(grant).execute();
  await trx
    .insertInto('oauth_codes')
    .values({ ...code, grant_id: grant.id, used_at: null })
    .execute();
}

/** A grant with its client's client_id (what a code or refresh token is checked against). */
export function findGrantWithClient(db: Db, grantId: string) {
  return db
    .selectFrom('oauth_grants')
    .innerJoin('oauth_clients', 'oauth_clients.id', 'oauth_grants.client_row_id')
    .select([
      'oauth_grants.id',
      'oauth_grants.redirect_uri',
      'oauth_grants.resource',
      'oauth_grants.revoked_at',
      'oauth_clients.client_id',
    ])
    .where('oauth_grants.id', '=', grantId)
    .executeTakeFirst();
}

export function findCode(db: Db, codeHash: string) {
  return db.selectFrom('oauth_codes').selectAll().where('code_hash', '=', codeHash).executeTakeFirst();
}

/** Marks a code used; false when it already was (another request won). */
export async function markCodeUsed(db: Db, codeHash: string, now: number): Promise<boolean> {
  const marked = await db
    .updateTable('oauth_codes')
    .set({ used_at: now })
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(marked.numUpdatedRows) === 1;
}

export function findRefreshToken(db: Db, tokenHash: string) {
  return db
    .selectFrom('oauth_tokens')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('kind', '=', 'refresh')
    .executeTakeFirst();
}

/** Marks a refresh token spent; false when it already was. */
export async function markRefreshUsed(db: Db, tokenHash: string, now: number): Promise<boolean> {
  const marked = await db
    .updateTable('oauth_tokens')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(marked.numUpdatedRows) === 1;
}

export async function insertTokenPair(
  trx: Db,
  grantId: string,
  access: { hash: string; expiresAt: number },
  refresh: { hash: string; expiresAt: number },
): Promise<void> {
  await trx
    .insertInto('oauth_tokens')
    .values([
      {
        token_hash: access.hash,
        grant_id: grantId,
        kind: 'access',
        expires_at: access.expiresAt,
        used_at: null,
      },
      {
        token_hash: refresh.hash,
        grant_id: grantId,
        kind: 'refresh',
        expires_at: refresh.expiresAt,
        used_at: null,
      },
    ])
    .execute();
}

/**
 * Revokes a grant: marked revoked, its tokens and unused codes deleted, and its id announced on the key
 * channel (every process drops it from its key cache). Inside the caller's transaction.
 */
export async function revokeGrantRows(trx: Db, grantId: string, now: number): Promise<void> {
  await trx
    .updateTable('oauth_grants')
    .set({ revoked_at: now })
    .where('id', '=', grantId)
    .where('revoked_at', 'is', null)
    .execute();
  await trx.deleteFrom('oauth_tokens').where('grant_id', '=', grantId).execute();
  await trx.deleteFrom('oauth_codes').where('grant_id', '=', grantId).where('used_at', 'is', null).execute();
  await notify(trx, BUS_CHANNELS.apiKeys, grantId);
}

/** The grant and client of any token (revocation). */
export function findTokenGrant(db: Db, tokenHash: string) {
  return db
    .selectFrom('oauth_tokens')
    .innerJoin('oauth_grants', 'oauth_grants.id', 'oauth_tokens.grant_id')
    .innerJoin('oauth_clients', 'oauth_clients.id', 'oauth_grants.client_row_id')
    .select(['oauth_grants.id', 'oauth_clients.client_id'])
    .where('oauth_tokens.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/** What an access token authenticates as, while its grant stands. */
export function findAccessToken(db: Db, tokenHash: string) {
  return db
    .selectFrom('oauth_tokens')
    .innerJoin('oauth_grants', 'oauth_grants.id', 'oauth_tokens.grant_id')
    .select([
      'oauth_tokens.expires_at',
      'oauth_grants.id',
      'oauth_grants.account_id',
      'oauth_grants.client_name',
      'oauth_grants.person_id',
      'oauth_grants.mode',
      'oauth_grants.farms',
      'oauth_grants.level',
      'oauth_grants.resource',
      'oauth_grants.last_used_at',
    ])
    .where('oauth_tokens.token_hash', '=', tokenHash)
    .where('oauth_tokens.kind', '=', 'access')
    .where('oauth_grants.revoked_at', 'is', null)
    .executeTakeFirst();
}

export async function touchGrant(db: Db, grantId: string, now: number): Promise<void> {
  await db.updateTable('oauth_grants').set({ last_used_at: now }).where('id', '=', grantId).execute();
}

/** The account's standing grants with who allowed them, newest first (one person's when named). */
export function listGrants(db: Db, accountId: string, personId: string | null) {
  let query = db
    .selectFrom('oauth_grants')
    .innerJoin('people', 'people.id', 'oauth_grants.person_id')
    .select([
      'oauth_grants.id',
      'oauth_grants.client_name',
      'oauth_grants.redirect_uri',
      'oauth_grants.mode',
      'oauth_grants.farms',
      'oauth_grants.level',
      'oauth_grants.created_at',
      'oauth_grants.last_used_at',
      'people.email',
    ])
    .where('oauth_grants.account_id', '=', accountId)
    .where('oauth_grants.revoked_at', 'is', null);
  if (personId) query = query.where('oauth_grants.person_id', '=', personId);
  return query.orderBy('oauth_grants.created_at', 'desc').limit(200).execute();
}

/** Whether a standing grant of the account (of one person, when named) has this id. */
export async function grantExists(db: Db, accountId: string, id: string, personId: string | null) {
  let query = db
    .selectFrom('oauth_grants')
    .select('id')
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null);
  if (personId) query = query.where('person_id', '=', personId);
  return (await query.executeTakeFirst()) !== undefined;
}

/** The `oauth.prune` job's deletes (service.ts says what goes when). */
export async function pruneRows(db: Db, now: number, documentsFetchedBefore: number) {
  const codes = await db.deleteFrom('oauth_codes').where('expires_at', '<', now).executeTakeFirst();
  const tokens = await db.deleteFrom('oauth_tokens').where('expires_at', '<', now).executeTakeFirst();
  const grants = await db
    .deleteFrom('oauth_grants')
    .where('created_at', '<', now - DAY_MS)
    .where((eb) =>
      eb.and([
        eb.not(
          eb.exists(
            eb
              .selectFrom('oauth_tokens')
              .select('grant_id')
              .whereRef('oauth_tokens.grant_id', '=', 'oauth_grants.id'),
          ),
        ),
        eb.not(
          eb.exists(
            eb
              .selectFrom('oauth_codes')
              .select('grant_id')
              .whereRef('oauth_codes.grant_id', '=', 'oauth_grants.id'),
          ),
        ),
      ]),
    )
    .executeTakeFirst();
  const documents = await db
    .deleteFrom('oauth_clients')
    .where('kind', '=', 'cimd')
    .where('fetched_at', '<', documentsFetchedBefore)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('oauth_grants')
            .select('id')
            .whereRef('oauth_grants.client_row_id', '=', 'oauth_clients.id'),
        ),
      ),
    )
    .executeTakeFirst();
  return {
    codes: Number(codes.numDeletedRows),
    tokens: Number(tokens.numDeletedRows),
    grants: Number(grants.numDeletedRows),
    documents: Number(documents.numDeletedRows),
  };
}
