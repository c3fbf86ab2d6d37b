/**
 * The sample farm's breeding and lineage (issue 47): three generations of the cow-calf herd (Willow → Clover →
 * Bramble → Fern, by Duke and an AI sire), Juniper confirmed pregnant and due to calve next week, Maple served
 * 40 days ago (her pregnancy check is due) and Rosie seen on heat 21 days ago (expected again today). Recorded
 * through the same services as the API: lineage by PATCH, the records as breeding events.
 */
import type { Db } from '../../db/schema.ts';
import { DAY_MS } from '../../lib/time.ts';
import { updateAnimal } from '../animals/service.ts';
import { withBreeding } from '../breeding/service.ts';
import type { ClientEventHook } from '../events/service.ts';
import { createEvent } from '../events/service.ts';
import type { Scope } from '../farms/access.ts';

/** An AI sire from outside the herd (fictional), as a registration society writes him. */
const AI_SIRE = { sire_name: 'Hilltop Resolve 5R', sire_registration: 'AAA 19876543' };

const logAsGiven: ClientEventHook = (_trx, _farm, event, log) => log(event.data);

/** Seeds lineage and breeding records on the seeded herd; `animals` maps data.ts keys to ids. */
export async function seedBreeding(
  trx: Db,
  scope: Scope,
  farmId: string,
  animals: ReadonlyMap<string, string>,
  now: number,
): Promise<void> {
  const id = (key: string) => {
    const found = animals.get(key);
    if (!found) throw new Error(`sample farm: no animal ${key}`);
    return found;
  };
  const duke = id('duke');
  const lineage: Array<[string, Record<string, string>]> = [
    ['clover', { dam_id: id('willow'), ...AI_SIRE }],
    ['bramble', { dam_id: id('clover'), sire_id: duke }],
    ['poppy', { dam_id: id('buttercup'), ...AI_SIRE }],
    ['fern', { dam_id: id('bramble'), sire_id: duke }],
    ['sorrel', { dam_id: id('daisy'), sire_id: duke }],
    ['pip', { dam_id: id('hazel'), sire_id: duke }],
    ['moss', { dam_id: id('maple'), sire_id: duke }],
  ];
  for (const [key, parents] of lineage) await updateAnimal(trx, scope, id(key), parents, now);

  const hook = withBreeding(logAsGiven);
  const log = (subject: string, type: string, daysAgo: number, data: Record<string, unknown>) =>
    createEvent(
      trx,
      scope,
      farmId,
      { type, subject_id: id(subject), at: new Date(now - daysAgo * DAY_MS).toISOString(), data },
      now,
      hook,
    );
  // Due next week: served by Duke 277 days ago (283-day gestation), confirmed at 45 days.
  await log('juniper', 'service', 277, { method: 'natural', sire_id: duke });
  await log('juniper', 'pregnancy_check', 232, { result: 'pregnant', foetal_count: 1, method: 'ultrasound' });
  await log('maple', 'service', 40, { method: 'ai', ...AI_SIRE, straw: 'HR5R-2211', technician: 'Sam' });
  await log('rosie', 'heat', 21, { observed_by: 'eye' });
}
