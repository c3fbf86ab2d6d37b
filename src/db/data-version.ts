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

/** The version read now being gathered, per database (sent on the next event-loop turn). */
const gathering = new WeakMap<Db, Promise<string>>();

/**
 * The data version as of this call or later: callers in the same event-loop turn share one statement, sent
 * after the last of them has asked, so each still sees every commit acknowledged before it asked (a
 * request's own earlier write included) while a crowd of requests pays for one read: one round trip on
 * PostgreSQL, one statement through Kysely on SQLite.
 */
export function freshDataVersion(db: Db): Promise<string> {
  const joined = gathering.get(db);
  if (joined) return joined;
  const batch = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
    // Closed before the statement is sent: whoever asks from now on gets a later statement.
    gathering.delete(db);
    return dataVersion(db);
  });
  gathering.set(db, batch);
  return batch;
}
