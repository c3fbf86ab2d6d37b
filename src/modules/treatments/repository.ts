import type { Selectable } from 'kysely';
import { fetchPage, type Page, type PageRequest } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import type { TreatmentsTable } from '../../db/tables/herd-book.ts';
import { FOODS } from '../../domain/withdrawal.ts';
import { parseJson } from '../../lib/json.ts';
import { toIso } from '../../lib/time.ts';
import type { WithdrawalSource } from '../animals/withdrawal.ts';
import type { Treatment, TreatmentFilters } from './schemas.ts';

export type TreatmentRow = Selectable<TreatmentsTable>;

/** What `treatments.withdrawal` holds: the names when it was given and the withdrawal it set, food by food. */
export interface StoredTreatmentWithdrawal {
  medicine: string;
  batch: string | null;
  sources: WithdrawalSource[];
  /** Who was treated, as the animal was then: the medicine record names it after the animal is deleted. */
  animal?: { tag: string | null; eid: string | null; name: string | null; species: string };
}

export function toTreatment(row: TreatmentRow): Treatment {
  const stored = parseJson<StoredTreatmentWithdrawal>(row.withdrawal, {
    medicine: '',
    batch: null,
    sources: [],
  });
  const untilOf = (food: string) => toIso(stored.sources.find((s) => s.food === food)?.until ?? null);
  const lastDose = Number(row.at) + (row.course_doses - 1) * Number(row.course_every_hours) * 3_600_000;
  return {
    id: row.id,
    farm_id: row.farm_id,
    animal_id: row.animal_id,
    medicine_id: row.medicine_id,
    medicine: stored.medicine,
    batch_id: row.batch_id,
    batch: stored.batch,
    dose: Number(row.dose),
    dose_unit: row.dose_unit,
    route: row.route,
    site: row.site,
    at: toIso(row.at),
    course: { doses: row.course_doses, every_hours: Number(row.course_every_hours) },
    last_dose_at: toIso(lastDose),
    reason: row.reason,
    given_by: row.given_by,
    vet: row.vet,
    override_reason: row.override_reason,
    withdrawal_until: { meat: untilOf('meat'), milk: untilOf('milk'), eggs: untilOf('eggs') },
    because: FOODS.flatMap((food) => stored.sources.filter((s) => s.food === food)).map((s) => ({
      ...s,
      until: toIso(s.until),
    })),
    event_id: row.event_id,
    created_at: toIso(row.created_at),
  };
}

export async function insertTreatments(db: Db, rows: readonly TreatmentRow[]): Promise<void> {
  // 20 columns a row: 500 rows stay under either engine's parameter limit.
  for (let i = 0; i < rows.length; i += 500) {
    await db
      .insertInto('treatments')
      .values(rows.slice(i, i + 500))
      .execute();
  }
}

/** A farm's treatments, newest first, one page. */
export async function treatmentPage(
  db: Db,
  farmId: string,
  filters: TreatmentFilters,
  page: PageRequest,
): Promise<Page<Treatment>> {
  let query = db.selectFrom('treatments').selectAll().where('farm_id', '=', farmId);
  if (filters.animal_id !== undefined) query = query.where('animal_id', '=', filters.animal_id);
  if (filters.medicine_id !== undefined) query = query.where('medicine_id', '=', filters.medicine_id);
  return fetchPage(query, page, toTreatment);
}

/** The treatments of an animal (their withdrawal sources rebuild the animal's after one is deleted). */
export async function treatmentsOfAnimal(db: Db, animalId: string): Promise<TreatmentRow[]> {
  return db.selectFrom('treatments').selectAll().where('animal_id', '=', animalId).execute();
}

/** The treatments whose log entry is this event (one per animal of a logged `treatment` on a group). */
export async function treatmentIdsOfEvent(db: Db, eventId: string): Promise<string[]> {
  const rows = await db.selectFrom('treatments').select('id').where('event_id', '=', eventId).execute();
  return rows.map((r) => r.id);
}

export async function deleteTreatmentRow(db: Db, id: string): Promise<void> {
  await db.deleteFrom('treatments').where('id', '=', id).execute();
}

/** The withdrawal sources a treatment set, as stored with it. */
export function sourcesOf(row: Pick<TreatmentRow, 'withdrawal'>): WithdrawalSource[] {
  return parseJson<StoredTreatmentWithdrawal>(row.withdrawal, { medicine: '', batch: null, sources: [] })
    .sources;
}
