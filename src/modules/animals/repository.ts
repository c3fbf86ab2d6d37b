import type { Selectable } from 'kysely';
import type { Db } from '../../db/schema.ts';
import type { AnimalsTable } from '../../db/tables/records.ts';
import { notFound } from '../../http/errors.ts';
import { parseJson } from '../../lib/json.ts';
import { toIso } from '../../lib/time.ts';
import { farmInScope, type Scope } from '../farms/access.ts';
import type { Animal } from './schemas.ts';

export type AnimalRow = Selectable<AnimalsTable>;

export function toAnimal(row: AnimalRow): Animal {
  return {
    id: row.id,
    farm_id: row.farm_id,
    species: row.species,
    name: row.name,
    tag: row.tag,
    eid: row.eid,
    sex: row.sex,
    breed: row.breed,
    birth_date: toIso(row.birth_date),
    group_id: row.group_id,
    paddock_id: row.paddock_id,
    status: row.status,
    notes: row.notes,
    fields: parseJson<Record<string, unknown>>(row.fields, {}),
    created_at: toIso(row.created_at),
  };
}

/** What `q` searches: name, tag, EID and breed, lower-cased in one place so both engines agree. */
export function searchTextOf(row: Pick<AnimalRow, 'name' | 'tag' | 'eid' | 'breed'>): string {
  return [row.name, row.tag, row.eid, row.breed]
    .filter((v): v is string => v !== null)
    .map((v) => v.toLowerCase())
    .join('\n');
}

/** The animal if its farm is in the scope, else 404. */
export async function loadAnimal(db: Db, scope: Scope, id: string): Promise<AnimalRow> {
  const row = await db
    .selectFrom('animals')
    .innerJoin('farms', 'farms.id', 'animals.farm_id')
    .selectAll('animals')
    .where('animals.id', '=', id)
    .where('farms.account_id', '=', scope.accountId)
    .where('farms.mode', '=', scope.mode)
    .where(farmInScope(scope))
    .executeTakeFirst();
  if (!row) throw notFound('animal', id);
  return row;
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

/** A unique-index violation on either engine (PostgreSQL 23505, SQLite SQLITE_CONSTRAINT_UNIQUE). */
export function isUniqueViolation(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { code?: unknown; errcode?: unknown; message?: unknown };
  return e.code === '23505' || e.errcode === 2067 || /UNIQUE constraint failed/.test(String(e.message));
}
