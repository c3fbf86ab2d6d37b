/**
 * The database's own notion of "nothing committed since": a token read before a set of reads, equal on two
 * reads only if nothing was committed in between. What the brief's memo (brief/memo.ts) and the HTTP read
 * cache (http/read-cache.ts) key their entries with.
 * - SQLite: `data_version` of the read connection, which changes whenever any other connection (this
 *   process's writer, a CLI, another process) commits.
 * - PostgreSQL: the current snapshot (`xmin:xmax:in-progress list`); it is unchanged only while no
 *   transaction of the cluster has started writing or committed, so equal snapshots see equal data, in
 *   every process.
 * A write anywhere in the database (cluster) changes it: coarse, but exact, and free for writers.
 * Inside a transaction it says nothing about the transaction's own uncommitted writes: do not key on it there.
 */
import { sql } from 'kysely';
import { isPostgres } from './engine.ts';
import type { Db } from './schema.ts';

export async function dataVersion(db: Db): Promise<string> {
  if (isPostgres(db)) {
    const { rows } = await sql<{ v: string }>`select pg_current_snapshot()::text as v`.execute(db);
    return rows[0]?.v ?? '';
  }
  const { rows } = await sql<{ v: number }>`select data_version as v from pragma_data_version`.execute(db);
  return String(rows[0]?.v ?? '');
}
