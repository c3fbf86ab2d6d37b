/**
 * The stays' queries: the stays table, the moves they are rebuilt from (the farm event log), the animals
 * and groups a move moves, and who is in a paddock now (animals, groups and house devices by paddock_id).
 */
import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../db/schema.ts';
import type { GrazingStaysTable } from '../../db/tables/records.ts';
import type { AnimalStatus } from '../../domain/statuses.ts';
import type { Occupants } from './schemas.ts';

export type StayRow = Selectable<GrazingStaysTable>;
export type MovableKind = 'animal' | 'group';

const GRAZING_STATUS: AnimalStatus = 'active';
const SUBJECT_TABLE = { animal: 'animals', group: 'animal_groups' } as const;

/** An animal or group as a move needs it: where it is, since when it exists, and what to call it. */
export interface MovableRow {
  id: string;
  farm_id: string;
  paddock_id: string | null;
  created_at: number;
  name: string;
}

export async function findMovable(
  db: Db,
  farmId: string,
  kind: MovableKind,
  id: string,
): Promise<MovableRow | undefined> {
  if (kind === 'group') {
    return db
      .selectFrom('animal_groups')
      .select(['id', 'farm_id', 'paddock_id', 'created_at', 'name'])
      .where('id', '=', id)
      .where('farm_id', '=', farmId)
      .executeTakeFirst();
  }
  const row = await db
    .selectFrom('animals')
    .select(['id', 'farm_id', 'paddock_id', 'created_at', 'name', 'tag'])
    .where('id', '=', id)
    .where('farm_id', '=', farmId)
    .executeTakeFirst();
  if (!row) return undefined;
  const { tag, ...rest } = row;
  return { ...rest, name: row.name ?? tag ?? row.id };
}

/** Sets where an animal or group is; an animal's `changed_at` too, so the field app's refresh sees it. */
export async function setMovablePaddock(
  db: Db,
  kind: MovableKind,
  id: string,
  paddockId: string | null,
  now: number = Date.now(),
): Promise<void> {
  if (kind === 'animal') {
    await db
      .updateTable('animals')
      .set({ paddock_id: paddockId, changed_at: now })
      .where('id', '=', id)
      .execute();
    return;
  }
  await db.updateTable(SUBJECT_TABLE[kind]).set({ paddock_id: paddockId }).where('id', '=', id).execute();
}

/** The subject's `move` events, oldest `at` first (ties by id, the order they were logged). */
export async function movesOf(
  db: Db,
  farmId: string,
  subjectId: string,
): Promise<{ id: string; data: string; at: number }[]> {
  return db
    .selectFrom('farm_events')
    .select(['id', 'data', 'at'])
    .where('farm_id', '=', farmId)
    .where('subject_id', '=', subjectId)
    .where('type', '=', 'move')
    .orderBy('at')
    .orderBy('id')
    .execute();
}

export async function staysOf(db: Db, subjectId: string): Promise<StayRow[]> {
  return db
    .selectFrom('grazing_stays')
    .selectAll()
    .where('subject_id', '=', subjectId)
    .orderBy('from_at')
    .orderBy('id')
    .execute();
}

export async function replaceStays(
  db: Db,
  subjectId: string,
  rows: readonly Insertable<GrazingStaysTable>[],
): Promise<void> {
  await db.deleteFrom('grazing_stays').where('subject_id', '=', subjectId).execute();
  if (rows.length > 0)
    await db
      .insertInto('grazing_stays')
      .values([...rows])
      .execute();
}

export async function insertStay(db: Db, row: Insertable<GrazingStaysTable>): Promise<void> {
  await db.insertInto('grazing_stays').values(row).execute();
}

/** Ends the subject's open stays at `at`. */
export async function closeOpenStays(db: Db, subjectId: string, at: number): Promise<void> {
  await db
    .updateTable('grazing_stays')
    .set({ until_at: at })
    .where('subject_id', '=', subjectId)
    .where('until_at', 'is', null)
    .execute();
}

/** Which of these ids are paddocks of the farm. */
export async function paddocksOnFarm(db: Db, farmId: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom('paddocks')
    .select('id')
    .where('farm_id', '=', farmId)
    .where('id', 'in', [...ids])
    .execute();
  return new Set(rows.map((r) => r.id));
}

/** Who is in each of these paddocks now: groups, animals and houses by their paddock_id. */
export async function occupantsOf(
  db: Db,
  farmId: string,
  paddockIds: readonly string[],
): Promise<Map<string, Occupants>> {
  const found = new Map<string, Occupants>();
  if (paddockIds.length === 0) return found;
  const ids = [...paddockIds];
  const [groups, animals, houses] = await Promise.all([
    db
      .selectFrom('animal_groups')
      .select(['id', 'name', 'paddock_id'])
      .where('farm_id', '=', farmId)
      .where('paddock_id', 'in', ids)
      .orderBy('name')
      .orderBy('id')
      .execute(),
    db
      .selectFrom('animals')
      .select(['id', 'name', 'tag', 'paddock_id'])
      .where('farm_id', '=', farmId)
      .where('paddock_id', 'in', ids)
      // A sold or dead animal still marked in a paddock grazes nothing.
      .where('status', '=', GRAZING_STATUS)
      .orderBy('id')
      .execute(),
    db
      .selectFrom('devices')
      .select(['id', 'name', 'paddock_id'])
      .where('farm_id', '=', farmId)
      .where('type', '=', 'house')
      .where('paddock_id', 'in', ids)
      .orderBy('name')
      .orderBy('id')
      .execute(),
  ]);
  const of = (paddockId: string | null): Occupants => {
    const key = paddockId ?? '';
    let entry = found.get(key);
    if (!entry) {
      entry = { groups: [], animals: [], houses: [] };
      found.set(key, entry);
    }
    return entry;
  };
  for (const g of groups) of(g.paddock_id).groups.push({ id: g.id, name: g.name });
  for (const a of animals) of(a.paddock_id).animals.push({ id: a.id, name: a.name, tag: a.tag });
  for (const h of houses) of(h.paddock_id).houses.push({ id: h.id, name: h.name });
  return found;
}

/** When each of these paddocks was last left, by its recorded stays (the latest ended stay). */
export async function lastLeftOf(db: Db, paddockIds: readonly string[]): Promise<Map<string, number>> {
  if (paddockIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('grazing_stays')
    .select((eb) => ['paddock_id', eb.fn.max('until_at').as('last_left')])
    .where('paddock_id', 'in', [...paddockIds])
    .where('until_at', 'is not', null)
    .groupBy('paddock_id')
    .execute();
  const found = new Map<string, number>();
  for (const row of rows) if (row.last_left !== null) found.set(row.paddock_id, Number(row.last_left));
  return found;
}
