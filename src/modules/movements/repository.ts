import type { Selectable } from 'kysely';
import { fetchPage, type Page, type PageRequest } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import type { MovementsTable } from '../../db/tables/herd-book.ts';
import { parseJson } from '../../lib/json.ts';
import { toIso } from '../../lib/time.ts';
import type { Movement, MovementFilters } from './schemas.ts';

export type MovementRow = Selectable<MovementsTable>;

export function toMovement(row: MovementRow): Movement {
  return {
    id: row.id,
    farm_id: row.farm_id,
    direction: row.direction,
    at: toIso(row.at),
    animal_ids: row.animal_ids === null ? null : parseJson<string[]>(row.animal_ids, []),
    head_count: Number(row.head_count),
    species: row.species,
    other_holding: row.other_holding,
    reason: row.reason,
    transporter: row.transporter,
    vehicle: row.vehicle,
    override_reason: row.override_reason,
    event_id: row.event_id,
    created_at: toIso(row.created_at),
  };
}

export async function insertMovement(db: Db, row: MovementRow): Promise<void> {
  await db.insertInto('movements').values(row).execute();
}

/** The movement whose log entry this farm event is, if any. */
export async function movementOfEvent(db: Db, farmId: string, eventId: string): Promise<string | null> {
  const row = await db
    .selectFrom('movements')
    .select('id')
    .where('farm_id', '=', farmId)
    .where('event_id', '=', eventId)
    .executeTakeFirst();
  return row?.id ?? null;
}

/** Which of these animals have a movement recorded later than `at` (a movement entered late is not their latest). */
export async function movedLater(
  db: Db,
  farmId: string,
  at: number,
  ids: readonly string[],
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom('movements')
    .select('animal_ids')
    .where('farm_id', '=', farmId)
    .where('at', '>', at)
    .where('animal_ids', 'is not', null)
    .execute();
  const wanted = new Set(ids);
  const later = new Set<string>();
  for (const row of rows) {
    for (const id of parseJson<string[]>(row.animal_ids, [])) if (wanted.has(id)) later.add(id);
  }
  return later;
}

/** The farm's movements between `since` (inclusive) and `until` (exclusive), as a query on their time. */
export function movementsBetween(db: Db, farmId: string, filters: MovementFilters) {
  let query = db.selectFrom('movements').selectAll().where('farm_id', '=', farmId);
  if (filters.since !== undefined) query = query.where('at', '>=', filters.since);
  if (filters.until !== undefined) query = query.where('at', '<', filters.until);
  return query;
}

/** A farm's movements, newest first (by when they moved), one page. */
export async function movementPage(
  db: Db,
  farmId: string,
  filters: MovementFilters,
  page: PageRequest,
): Promise<Page<Movement>> {
  return fetchPage(movementsBetween(db, farmId, filters), page, toMovement, 'at');
}

/** Sets the status of animals that moved (their `changed_at` too: the animals' change feed sends them). */
export async function setAnimalsStatus(
  db: Db,
  farmId: string,
  ids: readonly string[],
  status: string,
  now: number,
): Promise<void> {
  for (let i = 0; i < ids.length; i += 500) {
    await db
      .updateTable('animals')
      .set({ status, changed_at: now })
      .where('farm_id', '=', farmId)
      .where('id', 'in', ids.slice(i, i + 500))
      .execute();
  }
}
