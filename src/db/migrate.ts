import { type Kysely, sql } from 'kysely';
import { type Migration, type MigrationProvider, Migrator } from 'kysely/migration';
import { isPostgres } from './engine.ts';
import { migrations } from './migrations/index.ts';

class StaticMigrationProvider implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    return migrations;
  }
}

// biome-ignore lint/suspicious/noExplicitAny: the migrator works on any schema.
type AnyDb = Kysely<any>;

const migratorFor = (db: AnyDb) => new Migrator({ db, provider: new StaticMigrationProvider() });

/** Runs the pending migrations on `db`; returns the names it ran. */
async function runMigrator(db: AnyDb): Promise<string[]> {
  const { error, results } = await migratorFor(db).migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${String(error)}`, { cause: error });
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * Runs every pending migration, exactly once however many processes start together, and returns the names
 * it ran. PostgreSQL: Kysely takes an advisory lock. SQLite: Kysely takes none (it assumes one process), so
 * the whole run, including the migration table's creation, happens in one BEGIN IMMEDIATE transaction; a
 * second process waits on the busy timeout, then finds nothing left to do.
 */
export async function migrateToLatest(db: AnyDb): Promise<string[]> {
  if (isPostgres(db)) return runMigrator(db);
  return db.connection().execute(async (conn) => {
    await sql`begin immediate`.execute(conn);
    try {
      const ran = await runMigrator(conn);
      await sql`commit`.execute(conn);
      return ran;
    } catch (err) {
      await sql`rollback`.execute(conn).catch(() => {});
      throw err;
    }
  });
}

export interface MigrationState {
  name: string;
  /** ISO time it ran, or null while pending. */
  executed_at: string | null;
}

/** Every migration this code knows, in order, with when it ran (read-only: nothing is migrated). */
export async function migrationStatus(db: AnyDb): Promise<MigrationState[]> {
  const infos = await migratorFor(db).getMigrations();
  return infos.map((m) => ({ name: m.name, executed_at: m.executedAt ? m.executedAt.toISOString() : null }));
}
