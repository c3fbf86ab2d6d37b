/**
 * An animal's withdrawal, as the animal carries it (issue 46, docs/records.md): the treatments module writes it
 * on the animal row each time a medicine is given (`addAnimalWithdrawal`), so the animal's answer, the
 * `?withdrawal=active` filter and the check that stops it leaving (`checkLeaving`) read the animal alone and
 * this module never imports treatments. Past dates are clear.
 */
import type { Selectable } from 'kysely';
import type { Db } from '../../db/schema.ts';
import type { AnimalsTable } from '../../db/tables/records.ts';
import { AppError } from '../../domain/errors.ts';
import { FOODS, type Food, type WithdrawalRule } from '../../domain/withdrawal.ts';
import { parseJson } from '../../lib/json.ts';
import { toIso } from '../../lib/time.ts';
import { emitEvent } from '../webhooks/emit.ts';

/** The animal row (repository.ts's AnimalRow; named here so the repository can import this file). */
type AnimalRow = Selectable<AnimalsTable>;

/** Why one food's withdrawal ends when it does: the rule, and the treatment, medicine and batch behind it. */
export interface WithdrawalSource {
  food: Food;
  /** Epoch ms. */
  until: number;
  days: number;
  rule: WithdrawalRule;
  organic: boolean;
  treatment_id: string;
  medicine_id: string;
  medicine: string;
  batch_id: string | null;
  batch: string | null;
}

/** What `animals.withdrawal` holds: each food's latest-ending source, or null. */
export type StoredWithdrawal = Record<Food, WithdrawalSource | null>;

const CLEAR: StoredWithdrawal = Object.freeze({ meat: null, milk: null, eggs: null });

/** The Animal's `withdrawal` member: each food's end (null when clear) and why. */
export interface AnimalWithdrawal {
  meat_until: string | null;
  milk_until: string | null;
  eggs_until: string | null;
  because: Array<Omit<WithdrawalSource, 'until'> & { until: string }>;
}

export function storedWithdrawalOf(row: Pick<AnimalRow, 'withdrawal'>): StoredWithdrawal {
  return { ...CLEAR, ...parseJson<Partial<StoredWithdrawal>>(row.withdrawal, {}) };
}

/** The animal's withdrawal at `now`: a food whose end has passed is clear (null, and not in `because`). */
export function animalWithdrawal(
  row: Pick<AnimalRow, 'withdrawal'>,
  now: number = Date.now(),
): AnimalWithdrawal {
  const stored = storedWithdrawalOf(row);
  const ahead = FOODS.map((food) => stored[food]).filter(
    (s): s is WithdrawalSource => s !== null && s.until > now,
  );
  const untilOf = (food: Food) => toIso(ahead.find((s) => s.food === food)?.until ?? null);
  return {
    meat_until: untilOf('meat'),
    milk_until: untilOf('milk'),
    eggs_until: untilOf('eggs'),
    because: ahead.map((s) => ({ ...s, until: toIso(s.until) })),
  };
}

/** Each food's later-ending source of the two: a new treatment never shortens a withdrawal already running. */
export function mergeWithdrawal(
  current: StoredWithdrawal,
  added: ReadonlyArray<WithdrawalSource>,
): StoredWithdrawal {
  const next = { ...current };
  for (const source of added) {
    const held = next[source.food];
    if (!held || source.until > held.until) next[source.food] = source;
  }
  return next;
}

/** Adds a treatment's withdrawal to the animal's row (the treatments module's one write to animals). */
export async function addAnimalWithdrawal(
  db: Db,
  row: Pick<AnimalRow, 'id' | 'withdrawal'>,
  added: ReadonlyArray<WithdrawalSource>,
  now: number,
): Promise<StoredWithdrawal> {
  return writeAnimalWithdrawal(db, row.id, mergeWithdrawal(storedWithdrawalOf(row), added), now);
}

/**
 * The animal's withdrawal made again from the sources of every treatment it still has (a treatment deleted
 * as a mistake takes its withdrawal with it; the others' stand).
 */
export async function rebuildAnimalWithdrawal(
  db: Db,
  animalId: string,
  sources: ReadonlyArray<WithdrawalSource>,
  now: number,
): Promise<StoredWithdrawal> {
  return writeAnimalWithdrawal(db, animalId, mergeWithdrawal(CLEAR, sources), now);
}

async function writeAnimalWithdrawal(
  db: Db,
  animalId: string,
  next: StoredWithdrawal,
  now: number,
): Promise<StoredWithdrawal> {
  const ends = FOODS.map((food) => next[food]?.until).filter((u): u is number => u !== undefined);
  await db
    .updateTable('animals')
    .set({
      withdrawal: JSON.stringify(next),
      meat_withdrawal_until: next.meat?.until ?? null,
      withdrawal_until: ends.length === 0 ? null : Math.max(...ends),
      changed_at: now,
    })
    .where('id', '=', animalId)
    .execute();
  return next;
}

/** An active animal whose milk withdrawal ends at or after `from`, with that withdrawal's source. */
export interface MilkWithheld {
  animal_id: string;
  name: string | null;
  tag: string | null;
  milk: WithdrawalSource;
}

/** Sexes that give no milk: a steer's milk withdrawal is computed like any other, but it is nobody's concern. */
const NO_MILK_SEXES = new Set(['male', 'castrated']);

/**
 * The farm's active animals whose milk withdrawal ends at or after `from` (the brief's milk items: withheld, or
 * back in the tank today), soonest end first; males and castrated animals are left out. Read through the
 * (farm_id, withdrawal_until) index: the latest end of any food is at least the milk's.
 */
export async function animalsWithholdingMilk(db: Db, farmId: string, from: number): Promise<MilkWithheld[]> {
  const rows = await db
    .selectFrom('animals')
    .select(['id', 'name', 'tag', 'sex', 'withdrawal'])
    .where('farm_id', '=', farmId)
    .where('withdrawal_until', '>=', from)
    .where('status', '=', 'active')
    .execute();
  const out: MilkWithheld[] = [];
  for (const row of rows) {
    if (row.sex !== null && NO_MILK_SEXES.has(row.sex.trim().toLowerCase())) continue;
    const milk = storedWithdrawalOf(row).milk;
    if (milk && milk.until >= from) out.push({ animal_id: row.id, name: row.name, tag: row.tag, milk });
  }
  return out.sort((a, b) => a.milk.until - b.milk.until || (a.animal_id < b.animal_id ? -1 : 1));
}

/** An animal that may not leave yet: inside its meat withdrawal at the time it would leave. */
export interface HeldAnimal {
  animal_id: string;
  name: string | null;
  tag: string | null;
  meat_until: string;
  treatment_id: string;
  medicine_id: string;
  medicine: string;
  batch_id: string | null;
  batch: string | null;
}

/** The animals of these rows still inside their meat withdrawal at `at` (from the animal's own columns). */
export function animalsInMeatWithdrawal(
  rows: ReadonlyArray<Pick<AnimalRow, 'id' | 'name' | 'tag' | 'withdrawal' | 'meat_withdrawal_until'>>,
  at: number,
): HeldAnimal[] {
  const held: HeldAnimal[] = [];
  for (const row of rows) {
    if (row.meat_withdrawal_until === null || Number(row.meat_withdrawal_until) <= at) continue;
    const meat = storedWithdrawalOf(row).meat;
    if (!meat) continue;
    held.push({
      animal_id: row.id,
      name: row.name,
      tag: row.tag,
      meat_until: toIso(meat.until),
      treatment_id: meat.treatment_id,
      medicine_id: meat.medicine_id,
      medicine: meat.medicine,
      batch_id: meat.batch_id,
      batch: meat.batch,
    });
  }
  return held;
}

export function describeHeld(animal: HeldAnimal): string {
  const who = animal.name ?? animal.tag ?? animal.animal_id;
  const batch = animal.batch === null ? 'no batch recorded' : `batch ${animal.batch}`;
  return `${who} (${animal.animal_id}) is inside its meat withdrawal until ${animal.meat_until}: ${animal.medicine} (${animal.medicine_id}), ${batch}`;
}

/**
 * The one check before an animal (or each animal of a group) leaves the holding: a sale or slaughter event,
 * or a status change to sold or slaughtered. Any animal inside its meat withdrawal at `at` refuses it with 409
 * `withdrawal_active` naming each such animal, its medicine, batch and end, unless an `override_reason` is
 * given; then the animals held are returned, for the caller to record the override with the record.
 */
export function checkLeaving(
  rows: ReadonlyArray<Pick<AnimalRow, 'id' | 'name' | 'tag' | 'withdrawal' | 'meat_withdrawal_until'>>,
  at: number,
  overrideReason: string | null | undefined,
): HeldAnimal[] {
  const held = animalsInMeatWithdrawal(rows, at);
  if (held.length === 0) return held;
  if (overrideReason !== undefined && overrideReason !== null && overrideReason.trim() !== '') return held;
  const list = held.map(describeHeld).join('; ');
  const lead = rows.length > 1 ? `${held.length} of ${rows.length} animals are not clear to leave: ` : '';
  throw new AppError('withdrawal_active', `${lead}${list}. Send override_reason to record it anyway.`, {
    param: 'override_reason',
  });
}

/** What leaving was overridden: a sale or slaughter event, a status change, or a move off the holding. */
export type LeavingAction = 'sale' | 'slaughter' | 'status' | 'movement';

/** Sends `withdrawal.overridden` for animals that left inside their meat withdrawal, in the caller's transaction. */
export async function emitWithdrawalOverridden(
  db: Db,
  farmId: string,
  override: { action: LeavingAction; override_reason: string; event_id: string; animals: HeldAnimal[] },
  now: number,
): Promise<void> {
  await emitEvent(db, farmId, 'withdrawal.overridden', { ...override }, now);
}
