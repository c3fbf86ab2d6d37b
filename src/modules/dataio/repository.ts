import { sql } from 'kysely';
import { isPostgres } from '../../db/engine.ts';
import type { Db } from '../../db/schema.ts';
import type { AnimalRow } from '../animals/repository.ts';

/** Which of these ids name a group or paddock of the farm (an import checks each batch's references). */
export async function farmRecordIds(
  db: Db,
  table: 'animal_groups' | 'paddocks',
  farmId: string,
  ids: readonly string[],
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom(table)
    .select('id')
    .where('farm_id', '=', farmId)
    .where('id', 'in', ids)
    .execute();
  return new Set(rows.map((r) => r.id));
}

/**
 * The farm's animals holding any of these EIDs or tags (an import matches a batch of rows against them):
 * two reads on the (farm_id, eid) and (farm_id, tag) indexes, an animal holding both once.
 */
export async function farmAnimalsNamed(
  db: Db,
  farmId: string,
  eids: readonly string[],
  tags: readonly string[],
): Promise<AnimalRow[]> {
  const found = new Map<string, AnimalRow>();
  const read = async (column: 'eid' | 'tag', values: readonly string[]) => {
    if (values.length === 0) return;
    const rows = await db
      .selectFrom('animals')
      .selectAll()
      .where('farm_id', '=', farmId)
      .where(column, 'in', values)
      .execute();
    for (const row of rows) found.set(row.id, row);
  };
  await read('eid', eids);
  await read('tag', tags);
  return [...found.values()];
}

/** A farm's account and mode: the scope the CLI acts in for a farm named on its command line. */
export async function farmScopeOf(
  db: Db,
  farmId: string,
): Promise<{ accountId: string; mode: 'live' | 'test' } | undefined> {
  const row = await db
    .selectFrom('farms')
    .select(['account_id', 'mode'])
    .where('id', '=', farmId)
    .executeTakeFirst();
  return row ? { accountId: row.account_id, mode: row.mode } : undefined;
}

/** How many records an export will write (for a progress bar; the export itself does not need it). */
export async function countExport(
  db: Db,
  target:
    | { kind: 'animals' | 'tasks' | 'events'; farmId: string }
    | { kind: 'readings'; deviceId: string; metric?: string; since?: number; before?: number },
): Promise<number> {
  if (target.kind === 'readings') {
    let query = db
      .selectFrom('readings')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('device_id', '=', target.deviceId);
    if (target.metric !== undefined) query = query.where('metric', '=', target.metric);
    if (target.since !== undefined) query = query.where('at', '>=', target.since);
    if (target.before !== undefined) query = query.where('at', '<', target.before);
    return Number((await query.executeTakeFirstOrThrow()).n);
  }
  const table = target.kind === 'events' ? 'farm_events' : target.kind;
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('farm_id', '=', target.farmId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** PostgreSQL: refreshes the animals table's planner statistics (ANALYZE); SQLite plans without them. */
export async function refreshAnimalStatistics(db: Db): Promise<void> {
  if (isPostgres(db)) await sql`analyze animals`.execute(db);
}
