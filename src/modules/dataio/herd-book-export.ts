/**
 * The herd book's two exports (issue 46, docs/records.md "The medicine record and the holding register"):
 * the medicine record, one row per treatment with every column EU Reg. 2019/6 art. 108 and the UK VMR 2013
 * regs 17–19 ask for, and the holding register, the farm's movements with its births and deaths. Streamed as
 * the other exports are (export.ts): keyset pages of the records by their time, newest first, each page's
 * medicines, batches and animals read in one query each.
 */

import type { Selectable } from 'kysely';
import { fetchPage, type Page, type PageRequest } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import type { FarmEventsTable } from '../../db/tables/records.ts';
import { invalid } from '../../domain/errors.ts';
import { REGISTER_EVENT_TYPES } from '../../domain/movements.ts';
import { FOODS } from '../../domain/withdrawal.ts';
import { parseJson } from '../../lib/json.ts';
import { toIso } from '../../lib/time.ts';
import { requireFarm, type Scope } from '../farms/access.ts';
import { type MovementRow, movementsBetween } from '../movements/repository.ts';
import { parseRecordAt } from '../records/inputs.ts';
import type { StoredTreatmentWithdrawal } from '../treatments/repository.ts';
import { buildExport, type ExportStream, pagesOf } from './export.ts';
import {
  animalsByIds,
  batchesByIds,
  eventsBetween,
  type HerdBookRange,
  medicinesByIds,
  treatmentsBetween,
} from './herd-book-repository.ts';
import type { ExportFormat } from './schemas.ts';

/** The medicine record's columns, in order (docs/records.md says which rule asks for each). */
export const MEDICINE_RECORD_COLUMNS = [
  'treatment_id',
  'date',
  'last_dose_at',
  'product',
  'active_ingredient',
  'medicine_id',
  'quantity',
  'unit',
  'dose',
  'doses',
  'every_hours',
  'batch',
  'batch_expiry',
  'supplier',
  'purchased_at',
  'proof_of_purchase',
  'animal_id',
  'animal_tag',
  'animal_eid',
  'animal_name',
  'species',
  'route',
  'site',
  'reason',
  'given_by',
  'vet',
  ...FOODS.flatMap((food) => [
    `${food}_withdrawal_days`,
    `${food}_withdrawal_rule`,
    `${food}_withdrawal_until`,
  ]),
  'override_reason',
  'event_id',
] as const;

/** The holding register's columns, in order. */
export const HOLDING_REGISTER_COLUMNS = [
  'record_id',
  'kind',
  'at',
  'direction',
  'reason',
  'holding_number',
  'holding_type',
  'other_holding',
  'head_count',
  'species',
  'animal_ids',
  'animal_tags',
  'animal_eids',
  'transporter',
  'vehicle',
  'override_reason',
  'event_id',
  'data',
] as const;

/**
 * `since` (inclusive) and `until` (exclusive), checked: each a date, until after since; a date alone is the
 * start of that day on the farm, as the records' own dates are (records/inputs.ts `parseRecordAt`).
 */
export function herdBookRange(
  query: { since?: string | undefined; until?: string | undefined },
  timeZone: string,
): HerdBookRange {
  const since = query.since === undefined ? undefined : parseRecordAt('since', query.since, timeZone);
  const until = query.until === undefined ? undefined : parseRecordAt('until', query.until, timeZone);
  if (since !== undefined && until !== undefined && until <= since) {
    throw invalid('until', 'until must be later than since.');
  }
  return { since, until };
}

type Row = Record<string, unknown>;

/** The farm's treatments as medicine-record rows, newest first, within the range. */
async function medicineRecordPage(
  db: Db,
  farmId: string,
  range: HerdBookRange,
  page: PageRequest,
): Promise<Page<Row>> {
  const treatments = await fetchPage(treatmentsBetween(db, farmId, range), page, (r) => r, 'at');
  const rows = treatments.data;
  const medicines = await medicinesByIds(
    db,
    farmId,
    rows.map((r) => r.medicine_id),
  );
  const batches = await batchesByIds(
    db,
    farmId,
    rows.flatMap((r) => (r.batch_id === null ? [] : [r.batch_id])),
  );
  const animals = await animalsByIds(
    db,
    farmId,
    rows.map((r) => r.animal_id),
  );
  const data = rows.map((t): Row => {
    const stored = parseJson<Partial<StoredTreatmentWithdrawal>>(t.withdrawal, {});
    const medicine = medicines.get(t.medicine_id);
    const batch = t.batch_id === null ? undefined : batches.get(t.batch_id);
    const animal = animals.get(t.animal_id);
    const doses = Number(t.course_doses);
    const every = Number(t.course_every_hours);
    const withdrawal: Row = {};
    for (const food of FOODS) {
      const source = stored.sources?.find((s) => s.food === food);
      withdrawal[`${food}_withdrawal_days`] = source?.days ?? null;
      withdrawal[`${food}_withdrawal_rule`] = source?.rule ?? null;
      withdrawal[`${food}_withdrawal_until`] = source ? toIso(source.until) : null;
    }
    return {
      treatment_id: t.id,
      date: toIso(t.at),
      last_dose_at: toIso(Number(t.at) + (doses - 1) * every * 3_600_000),
      product: stored.medicine ?? medicine?.name ?? null,
      active_ingredient: medicine?.active_ingredient ?? null,
      medicine_id: t.medicine_id,
      quantity: Number(t.dose) * doses,
      unit: t.dose_unit,
      dose: Number(t.dose),
      doses,
      every_hours: every,
      batch: stored.batch ?? batch?.batch ?? null,
      batch_expiry: batch ? toIso(batch.expiry) : null,
      supplier: batch?.supplier ?? null,
      purchased_at: batch?.purchased_at == null ? null : toIso(batch.purchased_at),
      proof_of_purchase: batch?.proof_of_purchase ?? null,
      animal_id: t.animal_id,
      // As the animal is now; once deleted, as it was when treated (the record is kept for five years).
      animal_tag: (animal ?? stored.animal)?.tag ?? null,
      animal_eid: (animal ?? stored.animal)?.eid ?? null,
      animal_name: (animal ?? stored.animal)?.name ?? null,
      species: (animal ?? stored.animal)?.species ?? null,
      route: t.route,
      site: t.site,
      reason: t.reason,
      given_by: t.given_by,
      vet: t.vet,
      ...withdrawal,
      override_reason: t.override_reason,
      event_id: t.event_id,
    };
  });
  return { data, has_more: treatments.has_more, next_before: treatments.next_before };
}

/** GET /v1/farms/{farm}/medicine-record/export. */
export async function exportMedicineRecord(
  db: Db,
  scope: Scope,
  farmId: string,
  query: { format?: ExportFormat | undefined; since?: string | undefined; until?: string | undefined },
  now: number = Date.now(),
): Promise<ExportStream> {
  const farm = await requireFarm(db, scope, farmId);
  const range = herdBookRange(query, farm.timezone);
  const pages = pagesOf((page) => medicineRecordPage(db, farm.id, range, page));
  return buildExport('medicine-record', MEDICINE_RECORD_COLUMNS, farm.id, query.format ?? 'csv', pages, now);
}

/** One register entry before its animals are named, with the (at, id) it sorts by. */
interface RegisterEntry {
  at: number;
  id: string;
  row: Row;
  animalIds: string[];
}

function movementEntry(m: MovementRow): RegisterEntry {
  const animalIds = m.animal_ids === null ? [] : parseJson<string[]>(m.animal_ids, []);
  return {
    at: Number(m.at),
    id: m.id,
    animalIds,
    row: {
      record_id: m.id,
      kind: 'movement',
      at: toIso(m.at),
      direction: m.direction,
      reason: m.reason,
      other_holding: m.other_holding,
      head_count: Number(m.head_count),
      species: m.species,
      transporter: m.transporter,
      vehicle: m.vehicle,
      override_reason: m.override_reason,
      event_id: m.event_id,
      data: null,
    },
  };
}

/** A birth or death from the event log: its subject animal, and a head count from its data if it gives one. */
function eventEntry(e: Selectable<FarmEventsTable>): RegisterEntry {
  const data = parseJson<Record<string, unknown>>(e.data, {});
  const animalIds = e.subject_type === 'animal' && e.subject_id !== null ? [e.subject_id] : [];
  const counted = [data.head_count, data.count].find((n) => typeof n === 'number' && Number.isInteger(n));
  return {
    at: Number(e.at),
    id: e.id,
    animalIds,
    row: {
      record_id: e.id,
      kind: e.type,
      at: toIso(e.at),
      direction: e.type === 'birth' ? 'on' : 'off',
      reason: e.type,
      head_count: typeof counted === 'number' ? counted : Math.max(animalIds.length, 1),
      species: typeof data.species === 'string' ? data.species : null,
      event_id: e.id,
      data,
    },
  };
}

/** Walks a keyset-paged source newest first, entry by entry. */
async function* entriesOf(
  fetch: (page: PageRequest) => Promise<Page<RegisterEntry>>,
): AsyncGenerator<RegisterEntry> {
  for await (const page of pagesOf(fetch)) yield* page;
}

/** Two newest-first sources as one, newest first (ties by id, as the pages order them). */
async function* newestFirst(
  a: AsyncGenerator<RegisterEntry>,
  b: AsyncGenerator<RegisterEntry>,
): AsyncGenerator<RegisterEntry> {
  let x = await a.next();
  let y = await b.next();
  while (!x.done || !y.done) {
    const takeA =
      y.done ||
      (!x.done && (x.value.at > y.value.at || (x.value.at === y.value.at && x.value.id > y.value.id)));
    if (takeA && !x.done) {
      yield x.value;
      x = await a.next();
    } else if (!y.done) {
      yield y.value;
      y = await b.next();
    }
  }
}

/** Register entries in chunks, each chunk's animals named with one read. */
async function* registerPages(
  db: Db,
  farmId: string,
  holding: { number?: string; type?: string } | null,
  entries: AsyncGenerator<RegisterEntry>,
  size: number,
): AsyncGenerator<Row[]> {
  let chunk: RegisterEntry[] = [];
  const flush = async (): Promise<Row[]> => {
    const animals = await animalsByIds(
      db,
      farmId,
      chunk.flatMap((e) => e.animalIds),
    );
    const rows = chunk.map((e) => {
      const named = e.animalIds.map((id) => animals.get(id));
      return {
        ...Object.fromEntries(HOLDING_REGISTER_COLUMNS.map((c) => [c, null])),
        ...e.row,
        holding_number: holding?.number ?? null,
        holding_type: holding?.type ?? null,
        species: e.row.species ?? named.find((a) => a)?.species ?? null,
        animal_ids: e.animalIds,
        animal_tags: named.map((a) => a?.tag ?? null),
        animal_eids: named.map((a) => a?.eid ?? null),
      };
    });
    chunk = [];
    return rows;
  };
  for await (const entry of entries) {
    chunk.push(entry);
    if (chunk.length >= size) yield await flush();
  }
  if (chunk.length > 0) yield await flush();
}

/** GET /v1/farms/{farm}/holding-register/export. */
export async function exportHoldingRegister(
  db: Db,
  scope: Scope,
  farmId: string,
  query: { format?: ExportFormat | undefined; since?: string | undefined; until?: string | undefined },
  now: number = Date.now(),
): Promise<ExportStream> {
  const farm = await requireFarm(db, scope, farmId);
  const range = herdBookRange(query, farm.timezone);
  const holding =
    farm.holding === null ? null : parseJson<{ number?: string; type?: string } | null>(farm.holding, null);
  const movements = entriesOf((page) =>
    fetchPage(movementsBetween(db, farm.id, range), page, movementEntry, 'at'),
  );
  const events = entriesOf((page) =>
    fetchPage(eventsBetween(db, farm.id, REGISTER_EVENT_TYPES, range), page, eventEntry, 'at'),
  );
  const pages = registerPages(db, farm.id, holding, newestFirst(movements, events), 500);
  return buildExport(
    'holding-register',
    HOLDING_REGISTER_COLUMNS,
    farm.id,
    query.format ?? 'csv',
    pages,
    now,
  );
}
