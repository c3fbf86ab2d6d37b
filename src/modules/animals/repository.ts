import { type Selectable, sql } from 'kysely';
import { fetchPage, type Page, type PageRequest } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import type { AnimalsTable } from '../../db/tables/records.ts';
import {
  breedingAt,
  breedingSpeciesOf,
  dayOf,
  isFemale,
  OPEN,
  pregnancyCheckDue,
  type StoredBreeding,
} from '../../domain/breeding.ts';
import { eidFormatOf, normalizeEid } from '../../domain/eid.ts';
import { parseJson } from '../../lib/json.ts';
import { toIso } from '../../lib/time.ts';
import type { Animal, AnimalBreeding, AnimalFilters } from './schemas.ts';
import { animalWithdrawal } from './withdrawal.ts';

export type AnimalRow = Selectable<AnimalsTable>;

export function toAnimal(row: AnimalRow): Animal {
  return {
    id: row.id,
    farm_id: row.farm_id,
    species: row.species,
    name: row.name,
    tag: row.tag,
    eid: row.eid,
    eid_format: row.eid === null ? null : eidFormatOf(row.eid),
    sex: row.sex,
    breed: row.breed,
    birth_date: toIso(row.birth_date),
    group_id: row.group_id,
    paddock_id: row.paddock_id,
    status: row.status,
    notes: row.notes,
    fields: parseJson<Record<string, unknown>>(row.fields, {}),
    withdrawal: animalWithdrawal(row),
    dam_id: row.dam_id,
    sire_id: row.sire_id,
    sire_name: row.sire_name,
    sire_registration: row.sire_registration,
    breeding: animalBreeding(row),
    created_at: toIso(row.created_at),
  };
}

/** What `animals.breeding` holds, or null when no breeding record has moved it. */
export function storedBreedingOf(row: Pick<AnimalRow, 'breeding'>): StoredBreeding | null {
  return row.breeding === null ? null : parseJson<StoredBreeding | null>(row.breeding, null);
}

/**
 * The Animal's `breeding`: a female's state at `now` (open without records), null for males and for species
 * the registry has no gestation for, unless a breeding record was logged on it.
 */
export function animalBreeding(
  row: Pick<AnimalRow, 'breeding' | 'sex' | 'species'>,
  now: number = Date.now(),
): AnimalBreeding | null {
  const stored = storedBreedingOf(row);
  if (stored === null && !(isFemale(row.sex) && breedingSpeciesOf(row.species) !== null)) return null;
  const at = breedingAt(stored ?? OPEN, now);
  return {
    state: at.state,
    due_date: dayOf(at.due_at, at),
    next_heat_expected: dayOf(at.next_heat_at, at),
    pregnancy_check_due: dayOf(pregnancyCheckDue(at, now), at),
  };
}

/** What `q` searches: name, tag, EID and breed, lower-cased in one place so both engines agree. */
export function searchTextOf(row: Pick<AnimalRow, 'name' | 'tag' | 'eid' | 'breed'>): string {
  return [row.name, row.tag, row.eid, row.breed]
    .filter((v): v is string => v !== null)
    .map((v) => v.toLowerCase())
    .join('\n');
}

/** Any animal of the account in this mode holding the EID (other than `exceptId`). */
export async function findEidHolder(
  db: Db,
  accountId: string,
  mode: 'live' | 'test',
  eid: string,
  exceptId?: string,
): Promise<{ id: string; farm_id: string } | undefined> {
  let query = db
    .selectFrom('animals')
    .select(['id', 'farm_id'])
    .where('account_id', '=', accountId)
    .where('mode', '=', mode)
    .where('eid', '=', eid);
  if (exceptId) query = query.where('id', '!=', exceptId);
  return query.executeTakeFirst();
}

/** `%` and `_` in a user's text match themselves, not anything. */
export function likeContains(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** A farm's animals, newest first, one page; `q` matches name, tag, EID or breed, any case. */
export async function animalPage(
  db: Db,
  farmId: string,
  filters: AnimalFilters,
  page: PageRequest,
): Promise<Page<Animal>> {
  let query = db.selectFrom('animals').selectAll().where('farm_id', '=', farmId);
  const exact = (column: 'species' | 'breed' | 'status', value: string | undefined) => {
    if (value === undefined) return;
    query = filters.anyCase
      ? query.where(sql<string>`lower(${sql.ref(column)})`, '=', value.toLowerCase())
      : query.where(column, '=', value);
  };
  exact('species', filters.species);
  exact('breed', filters.breed);
  exact('status', filters.status);
  if (filters.group_id !== undefined) query = query.where('group_id', '=', filters.group_id);
  if (filters.paddock_id !== undefined) query = query.where('paddock_id', '=', filters.paddock_id);
  if (filters.tag !== undefined) query = query.where('tag', '=', filters.tag);
  if (filters.eid !== undefined) query = query.where('eid', '=', normalizeEid(filters.eid));
  // Still ahead for meat, milk or eggs: the latest of the three ends after now.
  if (filters.withdrawal === 'active')
    query = query.where('withdrawal_until', '>', filters.now ?? Date.now());
  if (filters.q !== undefined) {
    const pattern = likeContains(filters.q.toLowerCase());
    // An EID as printed on the tag or shown by the console ("982 000001088420") is stored as 15 digits.
    const eid = normalizeEid(filters.q);
    query =
      eid !== filters.q && /^\d{15}$/.test(eid)
        ? query.where(
            sql<boolean>`(${sql.ref('search_text')} like ${pattern} escape '\\' or ${sql.ref('eid')} = ${eid})`,
          )
        : query.where(sql<boolean>`${sql.ref('search_text')} like ${pattern} escape '\\'`);
  }
  return fetchPage(query, page, toAnimal);
}

/** The distinct values of a column among a farm's animals, sorted, at most `limit` (nulls left out). */
export async function animalValues(
  db: Db,
  farmId: string,
  column: 'species' | 'breed' | 'status',
  limit: number,
): Promise<string[]> {
  const rows = await db
    .selectFrom('animals')
    .select(column)
    .distinct()
    .where('farm_id', '=', farmId)
    .where(column, 'is not', null)
    .orderBy(column)
    .limit(limit)
    .execute();
  return rows.map((row) => String(row[column]));
}

/** The farm's animal with this EID, or null (device ingest matches scale weights by EID). */
export async function findAnimalByEid(db: Db, farmId: string, eid: string): Promise<Animal | null> {
  const row = await db
    .selectFrom('animals')
    .selectAll()
    .where('farm_id', '=', farmId)
    .where('eid', '=', normalizeEid(eid))
    .executeTakeFirst();
  return row ? toAnimal(row) : null;
}

/** The animals in a group or paddock, with where they are. */
export async function animalsIn(db: Db, farmId: string, field: 'group_id' | 'paddock_id', id: string) {
  return db
    .selectFrom('animals')
    .select(['id', 'farm_id', 'group_id', 'paddock_id'])
    .where('farm_id', '=', farmId)
    .where(field, '=', id)
    .execute();
}

/** Takes every animal out of a group or paddock (the reference is cleared). */
export async function clearAnimalsFrom(
  db: Db,
  field: 'group_id' | 'paddock_id',
  id: string,
  now: number,
): Promise<void> {
  const cleared = field === 'group_id' ? { group_id: null } : { paddock_id: null };
  await db
    .updateTable('animals')
    .set({ ...cleared, changed_at: now })
    .where(field, '=', id)
    .execute();
}

/** Rows per INSERT of a bulk write (16 columns each: well under either engine's parameter limit). */
const INSERT_CHUNK = 500;

/** Stores many new animals with one INSERT per 500 (the CSV import). */
export async function insertAnimals(db: Db, rows: readonly AnimalRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    await db
      .insertInto('animals')
      .values(rows.slice(i, i + INSERT_CHUNK))
      .execute();
  }
}

/** Which of these EIDs animals of the account (in this mode) hold, and which animal holds each. */
export async function eidHolders(
  db: Db,
  accountId: string,
  mode: 'live' | 'test',
  eids: readonly string[],
): Promise<Map<string, string>> {
  const holders = new Map<string, string>();
  for (let i = 0; i < eids.length; i += INSERT_CHUNK) {
    const rows = await db
      .selectFrom('animals')
      .select(['id', 'eid'])
      .where('account_id', '=', accountId)
      .where('mode', '=', mode)
      .where('eid', 'in', eids.slice(i, i + INSERT_CHUNK))
      .execute();
    for (const row of rows) if (row.eid !== null) holders.set(row.eid, row.id);
  }
  return holders;
}

/** Keeps the ids of deleted animals, so the field app's refresh learns they are gone. */
export async function recordRemovals(
  db: Db,
  farmId: string,
  ids: readonly string[],
  now: number,
): Promise<void> {
  for (let i = 0; i < ids.length; i += INSERT_CHUNK) {
    const rows = ids
      .slice(i, i + INSERT_CHUNK)
      .map((id) => ({ farm_id: farmId, animal_id: id, removed_at: now }));
    await db.insertInto('animal_removals').values(rows).execute();
  }
}

/** The ids of every animal the farm holds (the sample farm's reset records them all as removed). */
export async function animalIdsOf(db: Db, farmId: string): Promise<string[]> {
  const rows = await db.selectFrom('animals').select('id').where('farm_id', '=', farmId).execute();
  return rows.map((r) => r.id);
}

/** A position in a farm's animals ordered by last change: (changed_at, id). */
export interface ChangePosition {
  at: number;
  id: string;
}

/** Up to `limit` animals changed at or after `since`, past `after`, oldest change first (one more tells has_more). */
export async function animalsChangedSince(
  db: Db,
  farmId: string,
  since: number,
  after: ChangePosition | null,
  limit: number,
): Promise<AnimalRow[]> {
  let query = db
    .selectFrom('animals')
    .selectAll()
    .where('farm_id', '=', farmId)
    .where('changed_at', '>=', since);
  if (after) {
    query = query.where((eb) =>
      eb.or([
        eb('changed_at', '>', after.at),
        eb.and([eb('changed_at', '=', after.at), eb('id', '>', after.id)]),
      ]),
    );
  }
  return query
    .orderBy('changed_at')
    .orderBy('id')
    .limit(limit + 1)
    .execute();
}

/** The ids of the farm's animals deleted at or after `since`. */
export async function animalsRemovedSince(db: Db, farmId: string, since: number): Promise<string[]> {
  const rows = await db
    .selectFrom('animal_removals')
    .select('animal_id')
    .distinct()
    .where('farm_id', '=', farmId)
    .where('removed_at', '>=', since)
    .execute();
  return rows.map((r) => r.animal_id);
}

/** Deletes the removals recorded before `cutoff`; returns how many. */
export async function deleteRemovalsBefore(db: Db, cutoff: number): Promise<number> {
  const result = await db.deleteFrom('animal_removals').where('removed_at', '<', cutoff).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The farm's animals among these ids (those on another farm, or missing, are left out). */
export async function animalRowsOn(db: Db, farmId: string, ids: readonly string[]): Promise<AnimalRow[]> {
  const rows: AnimalRow[] = [];
  for (let i = 0; i < ids.length; i += INSERT_CHUNK) {
    const chunk = ids.slice(i, i + INSERT_CHUNK);
    rows.push(
      ...(await db
        .selectFrom('animals')
        .selectAll()
        .where('farm_id', '=', farmId)
        .where('id', 'in', chunk)
        .execute()),
    );
  }
  return rows;
}

/** The ids of a group's animals with this status (its `active` animals are the ones treated or sold). */
export async function animalIdsInGroup(
  db: Db,
  farmId: string,
  groupId: string,
  status: string,
): Promise<string[]> {
  const rows = await db
    .selectFrom('animals')
    .select('id')
    .where('farm_id', '=', farmId)
    .where('group_id', '=', groupId)
    .where('status', '=', status)
    .orderBy('id')
    .execute();
  return rows.map((r) => r.id);
}

/** What lineage checks read of an animal: who it is and who its parents are. */
export interface LineageRow {
  id: string;
  farm_id: string;
  species: string;
  sex: string | null;
  dam_id: string | null;
  sire_id: string | null;
}

/** The account's animals (this mode) that name this one as their dam or sire, a few at most (for a check). */
export async function offspringOf(
  db: Db,
  accountId: string,
  mode: 'live' | 'test',
  id: string,
  limit = 20,
): Promise<
  Array<{
    id: string;
    farm_id: string;
    tag: string | null;
    species: string;
    dam_id: string | null;
    sire_id: string | null;
  }>
> {
  return db
    .selectFrom('animals')
    .select(['id', 'farm_id', 'tag', 'species', 'dam_id', 'sire_id'])
    .where('account_id', '=', accountId)
    .where('mode', '=', mode)
    .where((eb) => eb.or([eb('dam_id', '=', id), eb('sire_id', '=', id)]))
    .limit(limit)
    .execute();
}

/** The account's animals (in this mode) among these ids, with their parents: any farm of the account. */
export async function lineageRows(
  db: Db,
  accountId: string,
  mode: 'live' | 'test',
  ids: readonly string[],
): Promise<LineageRow[]> {
  const rows: LineageRow[] = [];
  for (let i = 0; i < ids.length; i += INSERT_CHUNK) {
    rows.push(
      ...(await db
        .selectFrom('animals')
        .select(['id', 'farm_id', 'species', 'sex', 'dam_id', 'sire_id'])
        .where('account_id', '=', accountId)
        .where('mode', '=', mode)
        .where('id', 'in', ids.slice(i, i + INSERT_CHUNK))
        .execute()),
    );
  }
  return rows;
}
