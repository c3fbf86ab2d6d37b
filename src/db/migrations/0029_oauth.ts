/**
 * OAuth for MCP connectors (modules/oauth, docs/oauth.md): the clients that asked (registered by Dynamic
 * Client Registration, or known by their Client ID Metadata Document, cached here), the grants people
 * consented to (a connected agent: account, mode, farms, permission policy), and the codes and tokens
 * issued under a grant. Codes and tokens are stored as SHA-256 hashes only.
 */
import type { Kysely } from 'kysely';
import { T } from './helpers.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('oauth_clients')
    .addColumn('id', T.id, (c) => c.primaryKey())
    // What the client sends as client_id: a generated id (DCR) or its metadata document's https URL.
    .addColumn('client_id', T.text, (c) => c.notNull().unique())
    .addColumn('kind', T.text, (c) => c.notNull())
    .addColumn('name', T.text, (c) => c.notNull())
    .addColumn('redirect_uris', T.json, (c) => c.notNull())
    .addColumn('metadata', T.json, (c) => c.notNull())
    // DCR: SHA-256 of the registered metadata, so registering the same client again finds its row.
    .addColumn('fingerprint', T.text, (c) => c.unique())
    .addColumn('created_at', T.time, (c) => c.notNull())
    // CIMD: when the document was last fetched (it is fetched again once it is stale).
    .addColumn('fetched_at', T.time, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('oauth_grants')
    .addColumn('id', T.id, (c) => c.primaryKey())
    .addColumn('account_id', T.id, (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('person_id', T.id, (c) => c.notNull().references('people.id').onDelete('cascade'))
    .addColumn('client_row_id', T.id, (c) => c.notNull().references('oauth_clients.id').onDelete('cascade'))
    .addColumn('client_name', T.text, (c) => c.notNull())
    .addColumn('redirect_uri', T.text, (c) => c.notNull())
    .addColumn('resource', T.text, (c) => c.notNull())
    .addColumn('mode', T.text, (c) => c.notNull())
    .addColumn('farms', T.json)
    .addColumn('level', T.text, (c) => c.notNull())
    .addColumn('created_at', T.time, (c) => c.notNull())
    .addColumn('last_used_at', T.time)
    .addColumn('revoked_at', T.time)
    .execute();
  await db.schema.createIndex('oauth_grants_account').on('oauth_grants').column('account_id').execute();

  await db.schema
    .createTable('oauth_codes')
    .addColumn('code_hash', T.text, (c) => c.primaryKey())
    .addColumn('grant_id', T.id, (c) => c.notNull().references('oauth_grants.id').onDelete('cascade'))
    .addColumn('code_challenge', T.text, (c) => c.notNull())
    .addColumn('expires_at', T.time, (c) => c.notNull())
    .addColumn('used_at', T.time)
    .execute();
  await db.schema.createIndex('oauth_codes_grant').on('oauth_codes').column('grant_id').execute();

  await db.schema
    .createTable('oauth_tokens')
    .addColumn('token_hash', T.text, (c) => c.primaryKey())
    .addColumn('grant_id', T.id, (c) => c.notNull().references('oauth_grants.id').onDelete('cascade'))
    // 'access' or 'refresh'.
    .addColumn('kind', T.text, (c) => c.notNull())
    .addColumn('expires_at', T.time, (c) => c.notNull())
    // Refresh tokens: set when rotated (a rotated token presented again revokes its grant).
    .addColumn('used_at', T.time)
    .execute();
  await db.schema.createIndex('oauth_tokens_grant').on('oauth_tokens').column('grant_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('oauth_tokens').ifExists().execute();
  await db.schema.dropTable('oauth_codes').ifExists().execute();
  await db.schema.dropTable('oauth_grants').ifExists().execute();
  await db.schema.dropTable('oauth_clients').ifExists().execute();
}
