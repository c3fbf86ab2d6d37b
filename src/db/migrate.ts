import { type Kysely, PostgresAdapter, sql } from 'kysely';
import { type Migration, type MigrationProvider, Migrator } from 'kysely/migration';
import { migrations } from './migrations/index.ts';

class StaticMigrationProvider implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    return migrations;
  }
}

// biome-ignore lint/suspicious/noExplicitAny: the migrator works on any schema.
async function runMigrator(db: Kysely<any>): Promise<void> {
  const migrator = new Migrator({ db, provider: new StaticMigrationProvider() });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${String(error)}`, { cause: error });
  }
}

/**
 * Runs every pending migration, exactly once however many processes start together. PostgreSQL: Kysely
 * takes an advisory lock. SQLite: Kysely takes none (it assumes one process), so the whole run, including
 * the migration table's creation, happens in one BEGIN IMMEDIATE transaction; a second process waits on the
 * busy timeout, then finds nothing left to do.
 */
// biome-ignore lint/suspicious/noExplicitAny: the migrator works on any schema.
export async function migrateToLatest(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) return runMigrator(db);
  await db.connection().execute(async (conn) => {
    await sql`begin immediate`.execute(conn);
    try {
      await runMigrator(conn);
      await sql`commit`.execute(conn);
    } catch (err) {
      await sql`rollback`.execute(conn).catch(() => {});
      throw err;
    }
  });
}
