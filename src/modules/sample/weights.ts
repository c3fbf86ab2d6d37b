/**
 * The sample farm's weights over months (issue 47): the beef herd, the group the console shows first among
 * animals, weighed at the chute every month for four months, each a Datamars-style session file imported as
 * a farmer would (modules/weights), so its animals have weight histories with real gains, its sessions a
 * summary each, and its calves the fastest gains. Cows gain slowly on grass; the calves grow near 1 kg/day;
 * Poppy has stalled (the brief names her). Yesterday's chute weights (seed.ts) come on top.
 */
import type { Db } from '../../db/schema.ts';
import { DAY_MS, toIso } from '../../lib/time.ts';
import type { Scope } from '../farms/access.ts';
import { importWeighSession } from '../weights/sessions.ts';
import { ANIMALS, type SampleAnimal } from './data.ts';

/** Days before now of each session, oldest first. */
const SESSION_DAYS_AGO = [120, 90, 60, 30] as const;

/** kg/day per animal over the months: cows a little, calves near a kilogram, one heifer stalled. */
function dailyGain(animal: SampleAnimal): number {
  if (animal.key === 'poppy') return -0.05;
  if (animal.bornDaysAgo < 200) return 0.95 + (Number(animal.tag) % 4) * 0.05;
  if (animal.bornDaysAgo < 900) return 0.55;
  return 0.12;
}

/** Its weight `daysAgo` days back: from yesterday's chute weight, else from birth (calves) or a mature weight. */
function weightAt(animal: SampleAnimal, daysAgo: number): number | null {
  const gain = dailyGain(animal);
  if (animal.bornDaysAgo < 200) {
    const age = animal.bornDaysAgo - daysAgo;
    return age < 14 ? null : Math.round((38 + gain * age) * 2) / 2;
  }
  const now = animal.weighedKg ?? (animal.bornDaysAgo < 900 ? 420 : 560);
  return Math.round((now - gain * daysAgo) * 2) / 2;
}

/** Imports the herd's monthly sessions in the seed's transaction. */
export async function seedWeights(trx: Db, scope: Scope, farmId: string, now: number): Promise<void> {
  const herd = ANIMALS.filter((a) => a.group === 'herd' && a.species === 'cattle' && a.key !== 'duke');
  for (const daysAgo of SESSION_DAYS_AGO) {
    const rows = herd.flatMap((a) => {
      const kg = weightAt(a, daysAgo);
      return kg === null ? [] : [`${a.tag},${kg}`];
    });
    await importWeighSession(
      trx,
      scope,
      farmId,
      {
        content: `VID,Weight\r\n${rows.join('\r\n')}\r\n`,
        format: 'datamars',
        at: toIso(now - daysAgo * DAY_MS),
        name: `Herd weigh, ${daysAgo} days ago`,
      },
      now - daysAgo * DAY_MS,
    );
  }
}
