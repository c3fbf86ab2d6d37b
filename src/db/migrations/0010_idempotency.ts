/**
 * Idempotency keys (Stripe's convention): one row per (credential, key) holding the request's fingerprint
 * and, once it finished, its response, so a retry is answered from here instead of running again.
 */
import type { Kysely } from 'kysely';
import { T } from './helpers.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('scope', T.text, (c) => c.notNull())
    .addColumn('key', T.text, (c) => c.notNull())
    .addColumn('fingerprint', T.text, (c) => c.notNull())
    .addColumn('owner', T.text, (c) => c.notNull())
    .addColumn('status', T.text, (c) => c.notNull())
    .addColumn('response_status', T.int)
    .addColumn('response_type', T.text)
    .addColumn('response_body', T.text)
    .addColumn('created_at', T.time, (c) => c.notNull())
    .addColumn('locked_until', T.time, (c) => c.notNull())
    .addColumn('expires_at', T.time, (c) => c.notNull())
    // The unique key every process claims through: the first insert wins, duplicates wait and replay.
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['scope', 'key'])
    .execute();
  await db.schema
    .createIndex('idempotency_keys_expiry')
    .on('idempotency_keys')
    .column('expires_at')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('idempotency_keys').ifExists().execute();
}
