import type { Kysely } from 'kysely';
import { type Migration, type MigrationProvider, Migrator } from 'kysely/migration';
import { migrations } from './migrations/index.ts';

class StaticMigrationProvider implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    return migrations;
  }
}

// biome-ignore lint/suspicious/noExplicitAny: the migrator works on any schema.
type AnyDb = Kysely<any>;

const migratorFor = (db: AnyDb) => new Migrator({ db, provider: new StaticMigrationProvider() });

/**
 * Runs every pending migration and returns the names it ran. Kysely takes a lock (an advisory lock on
 * PostgreSQL), so several processes starting at once migrate exactly once.
 */
export async function migrateToLatest(db: AnyDb): Promise<string[]> {
  const { error, results } = await migratorFor(db).migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${String(error)}`, { cause: error });
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
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
