/**
 * The one way a farm-owned record is loaded for a caller: by id, through its farm, in the caller's
 * account and mode. Anything else (missing, another account's, the other mode's) is the same 404, so
 * existence never leaks.
 */
import type { Kysely, Selectable } from 'kysely';
import { prepared } from '../../db/prepared.ts';
import type { DB, Db } from '../../db/schema.ts';
import { notFound } from '../../domain/errors.ts';
import { RECORD_KINDS } from '../../domain/record-kinds.ts';
import { farmInScope, type Scope } from '../farms/access.ts';

/** Kinds whose records carry a farm_id and are reached by their own id. */
export type ScopedKind =
  | 'animal'
  | 'group'
  | 'paddock'
  | 'device'
  | 'house'
  | 'task'
  | 'alert'
  | 'event'
  | 'webhook'
  | 'rule'
  | 'integration'
  | 'medicine'
  | 'treatment'
  | 'movement'
  | 'weigh_session';
type ScopedTable = (typeof RECORD_KINDS)[ScopedKind]['table'];
export type ScopedRow<K extends ScopedKind> = Selectable<DB[(typeof RECORD_KINDS)[K]['table']]>;

/**
 * The query is the same for every kind but its table, which Kysely cannot type from a variable. So it
 * is built over a view of the schema where every scoped table is just (id, farm_id); the rows are
 * the real table's, and the loaders below give them back under the real type.
 */
type ScopedView = { [T in ScopedTable]: { id: string; farm_id: string } } & {
  farms: { id: string; account_id: string; mode: string; sample: number };
};

function scopedQuery(db: Db, scope: Scope, kind: ScopedKind, id: string) {
  const view = db as unknown as Kysely<ScopedView>;
  return view
    .selectFrom(`${RECORD_KINDS[kind].table} as r` as 'animals as r')
    .innerJoin('farms', 'farms.id', 'r.farm_id')
    .where('r.id', '=', id)
    .where('farms.account_id', '=', scope.accountId)
    .where('farms.mode', '=', scope.mode)
    .where(farmInScope(scope));
}

interface ScopedLookup {
  scope: Scope;
  id: string;
  /** Also select whether the record's farm is the sample farm. */
  farmSample: boolean;
}

/** Per kind (the table is the statement's shape), the lookup built once per engine and scope shape. */
const lookups = new Map<ScopedKind, (db: Db, q: ScopedLookup) => Promise<unknown[]>>();

function lookup(kind: ScopedKind): (db: Db, q: ScopedLookup) => Promise<unknown[]> {
  let run = lookups.get(kind);
  if (!run) {
    run = prepared((db, q: ScopedLookup) =>
      scopedQuery(db, q.scope, kind, q.id)
        .selectAll('r')
        .$if(q.farmSample, (qb) => qb.select('farms.sample as farm_sample')),
    );
    lookups.set(kind, run);
  }
  return run;
}

/** Only what the lookup reads of a scope (a caller's scope may carry more). */
function scopeOf(scope: Scope): Scope {
  return { accountId: scope.accountId, mode: scope.mode, farms: scope.farms ?? null };
}

/** The record if its farm is in the scope, else undefined. */
export async function findScoped<K extends ScopedKind>(
  db: Db,
  scope: Scope,
  kind: K,
  id: string,
): Promise<ScopedRow<K> | undefined> {
  const [row] = await lookup(kind)(db, { scope: scopeOf(scope), id, farmSample: false });
  return row as ScopedRow<K> | undefined;
}

/** The record if its farm is in the scope, else 404 `not_found` naming the kind. */
export async function loadScoped<K extends ScopedKind>(
  db: Db,
  scope: Scope,
  kind: K,
  id: string,
): Promise<ScopedRow<K>> {
  const row = await findScoped(db, scope, kind, id);
  if (!row) throw notFound(kind, id);
  return row;
}

/** As `loadScoped`, with whether the record's farm is the sample farm (1) or not (0). */
export async function loadScopedOnFarm<K extends ScopedKind>(
  db: Db,
  scope: Scope,
  kind: K,
  id: string,
): Promise<ScopedRow<K> & { farm_sample: number }> {
  const [row] = await lookup(kind)(db, { scope: scopeOf(scope), id, farmSample: true });
  if (!row) throw notFound(kind, id);
  return row as ScopedRow<K> & { farm_sample: number };
}

/** The same view for writes: a record row of any scoped table, written as the plain columns it has. */
type RowView = Kysely<{ [T in ScopedTable]: { id: string } & Record<string, unknown> }>;

function writable(db: Db): RowView {
  return db as unknown as RowView;
}

export async function insertRecord<K extends ScopedKind>(db: Db, kind: K, row: ScopedRow<K>): Promise<void> {
  await writable(db)
    .insertInto(RECORD_KINDS[kind].table)
    .values(row as { id: string } & Record<string, unknown>)
    .execute();
}

/** Writes every changeable column of a loaded record: all but its id, farm and creation time. */
export async function saveRecord<K extends ScopedKind>(db: Db, kind: K, row: ScopedRow<K>): Promise<void> {
  const {
    id,
    farm_id: _farm,
    created_at: _created,
    ...set
  } = row as { id: string } & Record<string, unknown>;
  await writable(db).updateTable(RECORD_KINDS[kind].table).set(set).where('id', '=', id).execute();
}

export async function deleteRecord(db: Db, kind: ScopedKind, id: string): Promise<void> {
  await writable(db).deleteFrom(RECORD_KINDS[kind].table).where('id', '=', id).execute();
}
