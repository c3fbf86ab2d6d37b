/** The herd book exports' reads (herd-book-export.ts): the records by their time, and what each page names. */
import type { Selectable } from 'kysely';
import type { Db } from '../../db/schema.ts';
import type { MedicineBatchesTable, MedicinesTable } from '../../db/tables/herd-book.ts';
import { REGISTER_EVENT_TYPES } from '../../domain/movements.ts';
import type { AnimalRow } from '../animals/repository.ts';

/** since (inclusive) and until (exclusive), epoch ms. */
export interface HerdBookRange {
  since?: number | undefined;
  until?: number | undefined;
}

/** The farm's treatments given within the range (by their first dose), to page by (at, id). */
export function treatmentsBetween(db: Db, farmId: string, range: HerdBookRange) {
  let query = db.selectFrom('treatments').selectAll().where('farm_id', '=', farmId);
  if (range.since !== undefined) query = query.where('at', '>=', range.since);
  if (range.until !== undefined) query = query.where('at', '<', range.until);
  return query;
}

/** The farm's event-log entries of these types within the range, to page by (at, id). */
export function eventsBetween(db: Db, farmId: string, types: readonly string[], range: HerdBookRange) {
  let query = db
    .selectFrom('farm_events')
    .selectAll()
    .where('farm_id', '=', farmId)
    .where('type', 'in', types);
  if (range.since !== undefined) query = query.where('at', '>=', range.since);
  if (range.until !== undefined) query = query.where('at', '<', range.until);
  return query;
}

/** How many rows an export of the range writes (the CLI's progress). */
export async function countHerdBookExport(
  db: Db,
  kind: 'medicine-record' | 'holding-register',
  farmId: string,
  range: HerdBookRange,
): Promise<number> {
  const counted = async (table: 'treatments' | 'movements' | 'farm_events', types?: readonly string[]) => {
    let query = db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('farm_id', '=', farmId);
    if (types) query = query.where('type', 'in', types);
    if (range.since !== undefined) query = query.where('at', '>=', range.since);
    if (range.until !== undefined) query = query.where('at', '<', range.until);
    return Number((await query.executeTakeFirstOrThrow()).n);
  };
  if (kind === 'medicine-record') return counted('treatments');
  return (await counted('movements')) + (await counted('farm_events', REGISTER_EVENT_TYPES));
}

function unique(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}

export async function medicinesByIds(
  db: Db,
  farmId: string,
  ids: readonly string[],
): Promise<Map<string, Selectable<MedicinesTable>>> {
  const wanted = unique(ids);
  if (wanted.length === 0) return new Map();
  const rows = await db
    .selectFrom('medicines')
    .selectAll()
    .where('farm_id', '=', farmId)
    .where('id', 'in', wanted)
    .execute();
  return new Map(rows.map((r) => [r.id, r]));
}

export async function batchesByIds(
  db: Db,
  farmId: string,
  ids: readonly string[],
): Promise<Map<string, Selectable<MedicineBatchesTable>>> {
  const wanted = unique(ids);
  if (wanted.length === 0) return new Map();
  const rows = await db
    .selectFrom('medicine_batches')
    .selectAll()
    .where('farm_id', '=', farmId)
    .where('id', 'in', wanted)
    .execute();
  return new Map(rows.map((r) => [r.id, r]));
}

/** The animals still on record among these ids (a deleted animal's rows keep its id alone). */
export async function animalsByIds(
  db: Db,
  farmId: string,
  ids: readonly string[],
): Promise<Map<string, Pick<AnimalRow, 'id' | 'tag' | 'eid' | 'name' | 'species'>>> {
  const wanted = unique(ids);
  const found = new Map<string, Pick<AnimalRow, 'id' | 'tag' | 'eid' | 'name' | 'species'>>();
  for (let i = 0; i < wanted.length; i += 500) {
    const rows = await db
      .selectFrom('animals')
      .select(['id', 'tag', 'eid', 'name', 'species'])
      .where('farm_id', '=', farmId)
      .where('id', 'in', wanted.slice(i, i + 500))
      .execute();
    for (const r of rows) found.set(r.id, r);
  }
  return found;
}
