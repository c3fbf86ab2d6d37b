/**
 * Clear to sell (issue 46: "is this animal, or group, clear to sell, and when will it be?"): each animal's meat
 * withdrawal at a moment, from the withdrawal the animal carries (modules/animals/withdrawal.ts), the same
 * figures the 409 `withdrawal_active` check reads. MCP's `clear_to_sell` answers with it.
 */
import type { Db } from '../../db/schema.ts';
import { invalid } from '../../domain/errors.ts';
import { toIso } from '../../lib/time.ts';
import { type AnimalRow, animalIdsInGroup, animalRowsOn } from '../animals/repository.ts';
import { type AnimalWithdrawal, animalWithdrawal } from '../animals/withdrawal.ts';
import { requireFarm, type Scope } from '../farms/access.ts';
import { parseRecordAt } from '../records/inputs.ts';
import { loadScoped } from '../records/scoped.ts';

export interface AnimalClearance {
  animal_id: string;
  name: string | null;
  tag: string | null;
  status: string;
  /** Clear of meat withdrawal at `at`: it may be sold or slaughtered without an override. */
  clear: boolean;
  /** When its meat withdrawal ends; null when it is clear at `at`. */
  clear_from: string | null;
  /** Every food still withheld at `at`, and the medicines behind it. */
  withdrawal: AnimalWithdrawal;
}

export interface ClearToSell {
  farm_id: string;
  at: string;
  /** Every animal asked about is clear at `at`. */
  all_clear: boolean;
  /** When the last of them is clear (null when all are clear at `at`). */
  all_clear_from: string | null;
  not_clear: number;
  clear_count: number;
  /** Every animal not clear (latest end first), then clear ones up to CLEAR_ANIMALS_LISTED. */
  animals: AnimalClearance[];
}

/** Clear animals named in the answer at most; `clear_count` counts them all. */
export const CLEAR_ANIMALS_LISTED = 50;

/**
 * Whether an animal, or each active animal of a group, is clear of its meat withdrawal at `at` (now when
 * absent; a date alone is that day's start on the farm, as a sale dated by its day is checked), and when it
 * will be. Every animal not clear is listed (latest end first), the clear ones up to CLEAR_ANIMALS_LISTED.
 */
export async function clearToSell(
  db: Db,
  scope: Scope,
  target: { animal_id?: string | undefined; group_id?: string | undefined },
  atText: string | undefined,
  now: number = Date.now(),
): Promise<ClearToSell> {
  if ((target.animal_id === undefined) === (target.group_id === undefined)) {
    throw invalid(
      target.animal_id === undefined ? 'animal_id' : 'group_id',
      'Name the animal (animal_id) or the group (group_id), one of them.',
    );
  }
  let farmId: string;
  let rows: AnimalRow[];
  if (target.animal_id !== undefined) {
    const animal = await loadScoped(db, scope, 'animal', target.animal_id);
    farmId = animal.farm_id;
    rows = [animal];
  } else {
    const group = await loadScoped(db, scope, 'group', target.group_id ?? '');
    farmId = group.farm_id;
    rows = await animalRowsOn(db, farmId, await animalIdsInGroup(db, farmId, group.id, 'active'));
  }
  const at =
    atText === undefined ? now : parseRecordAt('at', atText, (await requireFarm(db, scope, farmId)).timezone);
  const animals = rows.map((row): AnimalClearance => {
    const withdrawal = animalWithdrawal(row, at);
    return {
      animal_id: row.id,
      name: row.name,
      tag: row.tag,
      status: row.status,
      clear: withdrawal.meat_until === null,
      clear_from: withdrawal.meat_until,
      withdrawal,
    };
  });
  // ISO strings of one format sort as the times they name; ties by id, so the answer is stable.
  animals.sort(
    (a, b) =>
      (b.clear_from ?? '').localeCompare(a.clear_from ?? '') || a.animal_id.localeCompare(b.animal_id),
  );
  const held = animals.filter((a) => !a.clear);
  const clear = animals.filter((a) => a.clear);
  return {
    farm_id: farmId,
    at: toIso(at),
    all_clear: held.length === 0,
    all_clear_from: held[0]?.clear_from ?? null,
    not_clear: held.length,
    clear_count: clear.length,
    animals: [...held, ...clear.slice(0, CLEAR_ANIMALS_LISTED)],
  };
}
