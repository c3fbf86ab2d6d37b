/**
 * People who sign in to the console, their sessions, their one-time setup links, and the sign-in failures
 * that lock an email or an address out for a while. Tokens are stored as SHA-256 hashes only; passwords as
 * scrypt hashes with their salt and parameters (modules/people/passwords.ts).
 */
import type { Kysely } from 'kysely';
import { T } from './helpers.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('people')
    .addColumn('id', T.id, (c) => c.primaryKey())
    .addColumn('account_id', T.id, (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    // Lower-cased; unique over every account, since signing in names an email only.
    .addColumn('email', T.text, (c) => c.notNull().unique())
    .addColumn('name', T.text)
    .addColumn('role', T.text, (c) => c.notNull())
    .addColumn('password_hash', T.text, (c) => c.notNull())
    .addColumn('created_at', T.time, (c) => c.notNull())
    .addColumn('last_sign_in_at', T.time)
    .execute();
  await db.schema.createIndex('people_account').on('people').column('account_id').execute();

  await db.schema
    .createTable('sessions')
    .addColumn('id', T.id, (c) => c.primaryKey())
    .addColumn('token_hash', T.text, (c) => c.notNull().unique())
    .addColumn('person_id', T.id, (c) => c.notNull().references('people.id').onDelete('cascade'))
    .addColumn('account_id', T.id, (c) => c.notNull())
    .addColumn('mode', T.text, (c) => c.notNull())
    .addColumn('created_at', T.time, (c) => c.notNull())
    // Idle expiry runs from here; moved forward at most once a minute.
    .addColumn('last_seen_at', T.time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sessions_person').on('sessions').column('person_id').execute();

  await db.schema
    .createTable('setup_links')
    .addColumn('id', T.id, (c) => c.primaryKey())
    .addColumn('token_hash', T.text, (c) => c.notNull().unique())
    .addColumn('account_id', T.id, (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('email', T.text)
    .addColumn('role', T.text, (c) => c.notNull())
    .addColumn('created_at', T.time, (c) => c.notNull())
    .addColumn('expires_at', T.time, (c) => c.notNull())
    .addColumn('used_at', T.time)
    .execute();

  // One row per bucket (`email:<address>` or `ip:<address>`): failures since first_at.
  await db.schema
    .createTable('sign_in_failures')
    .addColumn('bucket', T.text, (c) => c.primaryKey())
    .addColumn('count', T.int, (c) => c.notNull())
    .addColumn('first_at', T.time, (c) => c.notNull())
    .addColumn('last_at', T.time, (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('sign_in_failures').ifExists().execute();
  await db.schema.dropTable('setup_links').ifExists().execute();
  await db.schema.dropTable('sessions').ifExists().execute();
  await db.schema.dropTable('people').ifExists().execute();
}
