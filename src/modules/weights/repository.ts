import type { Selectable } from 'kysely';
import { fetchPage, type Page, type PageRequest } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import type { FarmEventsTable } from '../../db/tables/records.ts';
import type { WeighSessionsTable } from '../../db/tables/weights.ts';
import { WEIGHT_EVENT, type WeightSource, weightKgOf, weightSourceOf } from '../../domain/weights.ts';
import { parseJson } from '../../lib/json.ts';
import { toIso } from '../../lib/time.ts';
import type { HistogramBin } from './gain.ts';
import type { WeighSession } from './schemas.ts';

export type WeighSessionRow = Selectable<WeighSessionsTable>;
type FarmEventRow = Selectable<FarmEventsTable>;

/** One weight as read from the log: a `weight` event whose data holds a usable kg. */
export interface StoredWeight {
  animal_id: string;
  event_id: string;
  at: number;
  kg: number;
  source: WeightSource;
  session_id: string | null;
}

function toStoredWeight(row: Pick<FarmEventRow, 'id' | 'subject_id' | 'data' | 'at'>): StoredWeight | null {
  const data = parseJson<Record<string, unknown>>(row.data, {});
  const kg = weightKgOf(data);
  if (kg === null || row.subject_id === null) return null;
  return {
    animal_id: row.subject_id,
    event_id: row.id,
    at: Number(row.at),
    kg,
    source: weightSourceOf(data),
    session_id: typeof data.session_id === 'string' ? data.session_id : null,
  };
}

/** Ids per IN list: well under either engine's parameter limit. */
const CHUNK = 500;

/** The weights of these animals, oldest first (per animal), each event read once. */
export async function weightsOf(
  db: Db,
  farmId: string,
  animalIds: readonly string[],
): Promise<StoredWeight[]> {
  const out: StoredWeight[] = [];
  for (let i = 0; i < animalIds.length; i += CHUNK) {
    const rows = await db
      .selectFrom('farm_events')
      .select(['id', 'subject_id', 'data', 'at'])
      .where('farm_id', '=', farmId)
      .where('type', '=', WEIGHT_EVENT)
      .where('subject_id', 'in', animalIds.slice(i, i + CHUNK))
      .orderBy('at')
      .orderBy('id')
      .execute();
    for (const row of rows) {
      const weight = toStoredWeight(row);
      if (weight) out.push(weight);
    }
  }
  return out;
}

/**
 * Each animal's latest weight before `before` (a session's previous weights): its latest time per animal
 * first, then those events, so a herd weighed monthly for years is not read whole for each new session.
 */
export async function latestWeightsBefore(
  db: Db,
  farmId: string,
  animalIds: readonly string[],
  before: number,
): Promise<Map<string, StoredWeight>> {
  const out = new Map<string, StoredWeight>();
  for (let i = 0; i < animalIds.length; i += CHUNK) {
    const chunk = animalIds.slice(i, i + CHUNK);
    const latest = await db
      .selectFrom('farm_events')
      .select('subject_id')
      .select((eb) => eb.fn.max('at').as('at'))
      .where('farm_id', '=', farmId)
      .where('type', '=', WEIGHT_EVENT)
      .where('subject_id', 'in', chunk)
      .where('at', '<', before)
      .groupBy('subject_id')
      .execute();
    const wanted = new Map(latest.map((r) => [r.subject_id, Number(r.at)]));
    const times = [...new Set(wanted.values())];
    for (let j = 0; j < times.length; j += CHUNK) {
      const rows = await db
        .selectFrom('farm_events')
        .select(['id', 'subject_id', 'data', 'at'])
        .where('farm_id', '=', farmId)
        .where('type', '=', WEIGHT_EVENT)
        .where('subject_id', 'in', chunk)
        .where('at', 'in', times.slice(j, j + CHUNK))
        .orderBy('id')
        .execute();
      for (const row of rows) {
        if (row.subject_id === null || wanted.get(row.subject_id) !== Number(row.at)) continue;
        const weight = toStoredWeight(row);
        if (weight) out.set(weight.animal_id, weight);
      }
    }
  }
  return out;
}

/** The farm's weights between two times (the check for weights already stored, the brief). */
export async function farmWeightsBetween(
  db: Db,
  farmId: string,
  from: number,
  to: number,
): Promise<StoredWeight[]> {
  const rows = await db
    .selectFrom('farm_events')
    .select(['id', 'subject_id', 'data', 'at'])
    .where('farm_id', '=', farmId)
    .where('type', '=', WEIGHT_EVENT)
    .where('at', '>=', from)
    .where('at', '<=', to)
    .orderBy('at')
    .orderBy('id')
    .execute();
  return rows.map(toStoredWeight).filter((w): w is StoredWeight => w !== null);
}

/** What matching a session's rows needs of each of the farm's animals. */
export interface MatchAnimal {
  id: string;
  eid: string | null;
  tag: string | null;
  name: string | null;
  species: string;
  status: string;
  group_id: string | null;
}

export async function animalsForMatching(db: Db, farmId: string): Promise<MatchAnimal[]> {
  return db
    .selectFrom('animals')
    .select(['id', 'eid', 'tag', 'name', 'species', 'status', 'group_id'])
    .where('farm_id', '=', farmId)
    .execute();
}

/** Rows per INSERT of weight events (8 columns: 4,000 parameters, under either engine's limit). */
const EVENT_CHUNK = 500;

/** Stores many weight events (a session's) with one INSERT per 500. */
export async function insertWeightEvents(db: Db, rows: readonly FarmEventRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += EVENT_CHUNK) {
    await db
      .insertInto('farm_events')
      .values(rows.slice(i, i + EVENT_CHUNK))
      .execute();
  }
}

export function toWeighSession(row: WeighSessionRow): WeighSession {
  const num = (n: number | null) => (n === null ? null : Number(n));
  return {
    id: row.id,
    farm_id: row.farm_id,
    name: row.name,
    format: row.format,
    at: toIso(row.at),
    rows: Number(row.rows),
    head_count: Number(row.head_count),
    created_animals: Number(row.created_animals),
    mean_kg: num(row.mean_kg),
    min_kg: num(row.min_kg),
    max_kg: num(row.max_kg),
    adg_kg_per_day: num(row.adg_kg_per_day),
    previous_session_id: row.previous_session_id,
    histogram: parseJson<HistogramBin[]>(row.histogram, []),
    file_hash: row.file_hash,
    created_at: toIso(row.created_at),
  };
}

export async function insertWeighSession(db: Db, row: WeighSessionRow): Promise<void> {
  await db.insertInto('weigh_sessions').values(row).execute();
}

export async function sessionByHash(
  db: Db,
  farmId: string,
  hash: string,
): Promise<WeighSessionRow | undefined> {
  return db
    .selectFrom('weigh_sessions')
    .selectAll()
    .where('farm_id', '=', farmId)
    .where('file_hash', '=', hash)
    .executeTakeFirst();
}

/** The farm's latest session weighed before `at` (a session's "previous"). */
export async function sessionBefore(
  db: Db,
  farmId: string,
  at: number,
): Promise<WeighSessionRow | undefined> {
  return db
    .selectFrom('weigh_sessions')
    .selectAll()
    .where('farm_id', '=', farmId)
    .where('at', '<', at)
    .orderBy('at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** A farm's sessions, newest weighed first, one page. */
export async function sessionPage(db: Db, farmId: string, page: PageRequest): Promise<Page<WeighSession>> {
  const query = db.selectFrom('weigh_sessions').selectAll().where('farm_id', '=', farmId);
  return fetchPage(query, page, toWeighSession, 'at');
}

/** The latest weight time of each group's active animals on the farm (the brief's groups not weighed). */
export async function lastWeighedPerGroup(
  db: Db,
  farmId: string,
): Promise<Array<{ group_id: string; name: string; last_at: number | null; head: number }>> {
  const groups = await db
    .selectFrom('animal_groups')
    .select(['id', 'name'])
    .where('farm_id', '=', farmId)
    .execute();
  if (groups.length === 0) return [];
  const animals = await db
    .selectFrom('animals')
    .select(['id', 'group_id'])
    .where('farm_id', '=', farmId)
    .where('status', '=', 'active')
    .where('group_id', 'is not', null)
    .execute();
  const groupOf = new Map(animals.map((a) => [a.id, a.group_id as string]));
  const latest = await db
    .selectFrom('farm_events')
    .select(['subject_id'])
    .select((eb) => eb.fn.max('at').as('last_at'))
    .where('farm_id', '=', farmId)
    .where('type', '=', WEIGHT_EVENT)
    .where('subject_type', '=', 'animal')
    .groupBy('subject_id')
    .execute();
  const last = new Map<string, number>();
  for (const row of latest) {
    const group = row.subject_id === null ? undefined : groupOf.get(row.subject_id);
    if (!group || row.last_at === null) continue;
    last.set(group, Math.max(last.get(group) ?? 0, Number(row.last_at)));
  }
  const head = new Map<string, number>();
  for (const g of groupOf.values()) head.set(g, (head.get(g) ?? 0) + 1);
  return groups.map((g) => ({
    group_id: g.id,
    name: g.name,
    last_at: last.get(g.id) ?? null,
    head: head.get(g.id) ?? 0,
  }));
}
