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
