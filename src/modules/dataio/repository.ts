import type { Db } from '../../db/schema.ts';

/** The ids of a farm's groups or paddocks (an import checks every row's references against them). */
export async function farmRecordIds(
  db: Db,
  table: 'animal_groups' | 'paddocks',
  farmId: string,
): Promise<Set<string>> {
  const rows = await db.selectFrom(table).select('id').where('farm_id', '=', farmId).execute();
  return new Set(rows.map((r) => r.id));
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
