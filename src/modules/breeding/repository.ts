import type { Db } from '../../db/schema.ts';
import { BREEDING_EVENT_TYPES, type StoredBreeding } from '../../domain/breeding.ts';
import { parseJson } from '../../lib/json.ts';
import { farmInScope, type Scope } from '../farms/access.ts';

/** Ids per IN list: well under either engine's parameter limit. */
const CHUNK = 500;

export interface BreedingEventRow {
  subject_id: string | null;
  subject_type: string | null;
  type: string;
  at: number;
  data: Record<string, unknown>;
}

/**
 * The breeding records that move these females' states: their own, and the farm's group services whose
 * `animal_ids` name them (a bull put in with a group is one record on the group).
 */
export async function breedingEventsOf(
  db: Db,
  farmId: string,
  animalIds: readonly string[],
): Promise<BreedingEventRow[]> {
  const rows: BreedingEventRow[] = [];
  const read = (r: {
    subject_id: string | null;
    subject_type: string | null;
    type: string;
    at: number;
    data: string;
  }) => ({
    ...r,
    at: Number(r.at),
    data: parseJson<Record<string, unknown>>(r.data, {}),
  });
  for (let i = 0; i < animalIds.length; i += CHUNK) {
    const found = await db
      .selectFrom('farm_events')
      .select(['subject_id', 'subject_type', 'type', 'at', 'data'])
      .where('farm_id', '=', farmId)
      .where('subject_id', 'in', animalIds.slice(i, i + CHUNK))
      .where('type', 'in', [...BREEDING_EVENT_TYPES])
      .execute();
    rows.push(...found.map(read));
  }
  // A group's service (a bull put in) and weaning are each female's record: their `animal_ids` say whose.
  const groupServices = await db
    .selectFrom('farm_events')
    .select(['subject_id', 'subject_type', 'type', 'at', 'data'])
    .where('farm_id', '=', farmId)
    .where('subject_type', '=', 'group')
    .where('type', 'in', ['service', 'weaning'])
    .execute();
  const wanted = new Set(animalIds);
  for (const row of groupServices.map(read)) {
    const ids = Array.isArray(row.data.animal_ids) ? row.data.animal_ids : [];
    for (const id of ids) if (typeof id === 'string' && wanted.has(id)) rows.push({ ...row, subject_id: id });
  }
  return rows;
}

/** Stores a female's breeding state and her due time (the calendar's column). */
export async function saveBreeding(
  db: Db,
  animalId: string,
  breeding: StoredBreeding,
  now: number,
): Promise<void> {
  const dueAt = breeding.state === 'bred' || breeding.state === 'pregnant' ? breeding.due_at : null;
  await db
    .updateTable('animals')
    .set({ breeding: JSON.stringify(breeding), due_at: dueAt, changed_at: now })
    .where('id', '=', animalId)
    .execute();
}

/** The latest service of a female before `at` (a birth's sire when the birth names none). */
export async function lastServiceBefore(
  db: Db,
  farmId: string,
  animalId: string,
  at: number,
): Promise<Record<string, unknown> | null> {
  const [row] = (await breedingEventsOf(db, farmId, [animalId]))
    .filter((e) => e.type === 'service' && e.at <= at)
    .sort((a, b) => b.at - a.at);
  return row?.data ?? null;
}

/** What the pedigree shows of an animal, and its parents. */
export interface PedigreeRow {
  id: string;
  name: string | null;
  tag: string | null;
  sex: string | null;
  birth_date: number | null;
  dam_id: string | null;
  sire_id: string | null;
  sire_name: string | null;
  sire_registration: string | null;
}

const PEDIGREE_COLUMNS = [
  'id',
  'name',
  'tag',
  'sex',
  'birth_date',
  'dam_id',
  'sire_id',
  'sire_name',
  'sire_registration',
] as const;

/**
 * The animals among these ids the scope sees: its account's, this mode, on its key's farms (an animal on a farm
 * outside a restricted key's list is not read at all, as if unknown).
 */
export async function pedigreeRows(db: Db, scope: Scope, ids: readonly string[]): Promise<PedigreeRow[]> {
  const rows: PedigreeRow[] = [];
  for (let i = 0; i < ids.length; i += CHUNK) {
    rows.push(
      ...(await db
        .selectFrom('animals')
        .select(PEDIGREE_COLUMNS)
        .where('account_id', '=', scope.accountId)
        .where('mode', '=', scope.mode)
        .where(farmInScope(scope, 'farm_id'))
        .where('id', 'in', ids.slice(i, i + CHUNK))
        .execute()),
    );
  }
  return rows;
}

/** The animals the scope sees (as pedigreeRows) whose dam or sire is among these ids. */
export async function childrenOf(db: Db, scope: Scope, ids: readonly string[]): Promise<PedigreeRow[]> {
  const rows: PedigreeRow[] = [];
  for (let i = 0; i < ids.length; i += CHUNK) {
    const chunk = ids.slice(i, i + CHUNK);
    rows.push(
      ...(await db
        .selectFrom('animals')
        .select(PEDIGREE_COLUMNS)
        .where('account_id', '=', scope.accountId)
        .where('mode', '=', scope.mode)
        .where(farmInScope(scope, 'farm_id'))
        .where((eb) => eb.or([eb('dam_id', 'in', chunk), eb('sire_id', 'in', chunk)]))
        .execute()),
    );
  }
  return rows;
}

/** A farm's bred and pregnant females due before `until` (and from `from`, when given), soonest first. */
export async function dueAnimals(db: Db, farmId: string, from: number | null, until: number) {
  let query = db
    .selectFrom('animals')
    .select(['id', 'name', 'tag', 'species', 'breeding', 'due_at'])
    .where('farm_id', '=', farmId)
    .where('status', '=', 'active')
    .where('due_at', 'is not', null)
    .where('due_at', '<', until);
  if (from !== null) query = query.where('due_at', '>=', from);
  return query.orderBy('due_at').orderBy('id').limit(2000).execute();
}

/** A farm's active animals with a breeding state (the brief's breeding items read them). */
export async function breedingAnimals(db: Db, farmId: string) {
  return db
    .selectFrom('animals')
    .select(['id', 'name', 'tag', 'species', 'breeding'])
    .where('farm_id', '=', farmId)
    .where('status', '=', 'active')
    .where('breeding', 'is not', null)
    .orderBy('id')
    .execute();
}
