/**
 * The calving (lambing, kidding) calendar: a farm's bred and pregnant females by due date, in the farm's
 * calendar days (docs/records.md "Breeding"). Read from each female's stored breeding state.
 */
import type { Db } from '../../db/schema.ts';
import { breedingAt, dayOf } from '../../domain/breeding.ts';
import { addLocalDays, localDateText, localDayBounds } from '../../lib/local-time.ts';
import { storedBreedingOf } from '../animals/repository.ts';
import { requireFarm, type Scope } from '../farms/access.ts';
import { parseRecordAt } from '../records/inputs.ts';
import { dueAnimals } from './repository.ts';
import type { DueDate, DueDatesInput } from './schemas.ts';

/** A farm's females due to give birth from `from` over `days`, and (unless asked not to) those overdue: the calving calendar. */
export async function dueDates(
  db: Db,
  scope: Scope,
  farmId: string,
  input: DueDatesInput,
  now: number = Date.now(),
): Promise<{ data: DueDate[] }> {
  const farm = await requireFarm(db, scope, farmId);
  // Whole days on the farm: from the start of `from` (today) there, through `days` of its calendar days.
  const from = parseRecordAt('from', input.from, farm.timezone) ?? localDayBounds(now, farm.timezone).start;
  const until = addLocalDays(from, input.days ?? 60, farm.timezone);
  const today = localDateText(now, farm.timezone);
  const rows = await dueAnimals(db, farm.id, input.overdue === false ? from : null, until);
  const data: DueDate[] = [];
  for (const row of rows) {
    const stored = storedBreedingOf(row);
    if (!stored || row.due_at === null) continue;
    const at = breedingAt(stored, now);
    if (at.state !== 'bred' && at.state !== 'pregnant') continue;
    const dueDay = dayOf(Number(row.due_at), stored) as string;
    data.push({
      animal_id: row.id,
      name: row.name,
      tag: row.tag,
      species: row.species,
      state: at.state,
      due_date: dueDay,
      service_date: dayOf(stored.service_at, stored),
      // Overdue is as of today, whatever window was asked for (a calendar for next summer still says so).
      overdue: dueDay < today,
    });
  }
  return { data };
}
