/**
 * Treatments (issue 46, docs/records.md): a medicine given to animals, one record per animal, each with the
 * withdrawal it sets (src/domain/withdrawal.ts, under the farm's rules). Giving one takes stock from its batch,
 * writes the animal's withdrawal on the animal (modules/animals/withdrawal.ts), appears in the farm event log
 * and is sent as `treatment.created`: all in one transaction.
 */
import type { Page, PageRequest } from '../../db/pagination.ts';
import type { Db, Trx } from '../../db/schema.ts';
import { inTransaction, lockRows } from '../../db/transaction.ts';
import { invalid } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { TREATMENT_EVENT, type TreatmentRoute } from '../../domain/treatments.ts';
import { computeWithdrawal, FOODS, lastDoseAt, withdrawalRulesOf } from '../../domain/withdrawal.ts';
import { parseJson } from '../../lib/json.ts';
import { DAY_MS, toIso } from '../../lib/time.ts';
import { type AnimalRow, animalIdsInGroup, animalRowsOn } from '../animals/repository.ts';
import { addAnimalWithdrawal, type WithdrawalSource } from '../animals/withdrawal.ts';
import { recordFarmEvent } from '../events/record.ts';
import { type FarmRow, requireFarm, type Scope } from '../farms/access.ts';
import {
  type BatchRow,
  findBatch,
  labelOf,
  type MedicineRow,
  roundStock,
  useFromBatch,
} from '../medicines/repository.ts';
import { parseRecordAt, requireDone } from '../records/inputs.ts';
import { referenceError, requireReference } from '../records/references.ts';
import { findScoped, loadScoped } from '../records/scoped.ts';
import { emitEvent } from '../webhooks/emit.ts';
import {
  insertTreatments,
  type StoredTreatmentWithdrawal,
  type TreatmentRow,
  toTreatment,
  treatmentPage,
} from './repository.ts';
import {
  type CreateTreatmentInput,
  MAX_TREATED_ANIMALS,
  type Treatment,
  type TreatmentFilters,
} from './schemas.ts';

/** What is given, whoever asks: the REST body less its animals, or a `treatment` event's data. */
export interface GivenMedicine {
  medicine_id: string;
  batch_id?: string | undefined;
  dose: number;
  dose_unit: string;
  route: TreatmentRoute;
  site?: string | undefined;
  at: number;
  course?: { doses: number; every_hours: number } | undefined;
  reason?: string | undefined;
  given_by?: string | undefined;
  vet?: string | undefined;
  override_reason?: string | null | undefined;
}

/** How the parameters are named in errors: the REST body's members, or `data.` of a logged event. */
export interface ParamNames {
  at: string;
  medicine_id: string;
  batch_id: string;
  dose_unit: string;
  animals: string;
}

const BODY_PARAMS: ParamNames = {
  at: 'at',
  medicine_id: 'medicine_id',
  batch_id: 'batch_id',
  dose_unit: 'dose_unit',
  animals: 'animal_ids',
};

export async function listTreatments(
  db: Db,
  scope: Scope,
  farmId: string,
  filters: TreatmentFilters,
  page: PageRequest,
): Promise<Page<Treatment>> {
  const farm = await requireFarm(db, scope, farmId);
  return treatmentPage(db, farm.id, filters, page);
}

export async function listAnimalTreatments(
  db: Db,
  scope: Scope,
  animalId: string,
  page: PageRequest,
): Promise<Page<Treatment>> {
  const animal = await loadScoped(db, scope, 'animal', animalId);
  return treatmentPage(db, animal.farm_id, { animal_id: animal.id }, page);
}

export async function getTreatment(db: Db, scope: Scope, id: string): Promise<Treatment> {
  return toTreatment(await loadScoped(db, scope, 'treatment', id));
}

/** The farm's medicine named by `medicine_id`: one elsewhere, or none, is the same 400. */
export async function requireMedicine(
  db: Db,
  scope: Scope,
  farm: FarmRow,
  id: string,
  param: string,
): Promise<MedicineRow> {
  const row = await findScoped(db, scope, 'medicine', id);
  if (!row || row.farm_id !== farm.id)
    throw invalid(param, `${param} "${id}" is not a medicine on this farm.`);
  return row;
}

/**
 * The animals treated or checked, locked for the write of their withdrawal: the ids given (each must be on
 * the farm: 400 naming its index), or a group's active animals.
 */
export async function lockedAnimals(
  trx: Db,
  farm: FarmRow,
  target: { animal_ids?: readonly string[] | undefined; group_id?: string | null | undefined },
  param: string,
): Promise<AnimalRow[]> {
  let ids: string[];
  if (target.group_id) {
    await requireReference(trx, farm.id, 'group', target.group_id, 'group_id');
    ids = await animalIdsInGroup(trx, farm.id, target.group_id, 'active');
    if (ids.length > MAX_TREATED_ANIMALS) {
      throw invalid(
        'group_id',
        `The group holds ${ids.length} animals; at most ${MAX_TREATED_ANIMALS} at once.`,
      );
    }
  } else {
    ids = [...new Set(target.animal_ids ?? [])];
  }
  // Their withdrawal is read and written back: a treatment given at the same time waits (PostgreSQL).
  if (trx.isTransaction) await lockRows(trx as Trx, 'animals', ids);
  const rows = await animalRowsOn(trx, farm.id, ids);
  const found = new Set(rows.map((r) => r.id));
  const missing = (target.animal_ids ?? []).findIndex((id) => !found.has(id));
  if (!target.group_id && missing >= 0) {
    throw referenceError('animal', target.animal_ids?.[missing] ?? '', `${param}[${missing}]`);
  }
  // In the order asked, so the answer's treatments follow the list given.
  return ids.flatMap((id) => rows.filter((r) => r.id === id));
}

/** The batch, checked: this medicine's, in its unit, not expired at `at` and holding the stock, unless overridden. */
async function checkBatch(
  db: Db,
  medicine: MedicineRow,
  given: GivenMedicine,
  animals: number,
  params: ParamNames,
): Promise<BatchRow | null> {
  if (given.batch_id === undefined) return null;
  // Its stock is read and written back: a treatment from the same batch at the same time waits (PostgreSQL),
  // so two phones syncing at once cannot both take the last of it.
  if (db.isTransaction) await lockRows(db as Trx, 'medicine_batches', given.batch_id);
  const batch = await findBatch(db, medicine.id, given.batch_id);
  if (!batch) {
    throw invalid(
      params.batch_id,
      `${params.batch_id} "${given.batch_id}" is not a batch of ${medicine.name}.`,
    );
  }
  if (given.dose_unit.trim().toLowerCase() !== medicine.unit.trim().toLowerCase()) {
    throw invalid(
      params.dose_unit,
      `${params.dose_unit} must be ${medicine.unit}, the unit ${medicine.name}'s stock is kept in.`,
    );
  }
  const overridden = Boolean(given.override_reason?.trim());
  if (Number(batch.expiry) <= given.at && !overridden) {
    throw invalid(
      params.batch_id,
      `Batch ${batch.batch} (${batch.id}) expired on ${toIso(batch.expiry)}; send override_reason to use it anyway.`,
    );
  }
  const needed = given.dose * (given.course?.doses ?? 1) * animals;
  const remaining = roundStock(Number(batch.quantity) - Number(batch.used));
  if (needed > remaining + 1e-9 && !overridden) {
    throw invalid(
      params.batch_id,
      `Batch ${batch.batch} (${batch.id}) holds ${remaining} ${medicine.unit}; this needs ${needed}. Send override_reason if the stock record is wrong.`,
    );
  }
  return batch;
}

/**
 * Gives a medicine to these animals, in the caller's transaction: a treatment each with its withdrawal, the
 * batch's stock taken, each animal's withdrawal written, `treatment.created` sent. Each appears in the farm
 * event log as a `treatment` event on its animal, unless `eventId` names the event it came from (a logged
 * `treatment` event naming a medicine: that event is its record in the log).
 */
export async function giveMedicine(
  trx: Db,
  farm: FarmRow,
  medicine: MedicineRow,
  animals: readonly AnimalRow[],
  given: GivenMedicine,
  options: { params?: ParamNames; eventId?: string; ids?: readonly string[] },
  now: number,
): Promise<Treatment[]> {
  const params = options.params ?? BODY_PARAMS;
  if (animals.length === 0) {
    throw invalid(params.animals, 'No animals to treat: name animal_ids, or a group with active animals.');
  }
  const unborn = animals.find((a) => a.birth_date !== null && given.at < Number(a.birth_date) - DAY_MS);
  if (unborn) {
    throw invalid(
      params.at,
      `${params.at} ${toIso(given.at)} is before ${unborn.tag ?? unborn.name ?? unborn.id} was born (${toIso(unborn.birth_date)?.slice(0, 10)}).`,
    );
  }
  const batch = await checkBatch(trx, medicine, given, animals.length, params);
  const { rules, organic: organicFarm } = withdrawalRulesOf(parseJson(farm.settings, {}));
  const label = labelOf(medicine);
  const course = given.course ?? { doses: 1, every_hours: 0 };
  const last = lastDoseAt(given.at, course);
  const rows: TreatmentRow[] = [];
  const treatments: Treatment[] = [];
  for (const [i, animal] of animals.entries()) {
    const id = options.ids?.[i] ?? newId('treatment', now);
    const fields = parseJson<Record<string, unknown>>(animal.fields, {});
    const computed = computeWithdrawal({
      label,
      species: animal.species,
      rules,
      organic: organicFarm || fields.organic === true,
      lastDoseAt: last,
    });
    const sources: WithdrawalSource[] = FOODS.flatMap((food) => {
      const c = computed[food];
      if (!c) return [];
      return [
        {
          ...c,
          treatment_id: id,
          medicine_id: medicine.id,
          medicine: medicine.name,
          batch_id: batch?.id ?? null,
          batch: batch?.batch ?? null,
        },
      ];
    });
    const row: TreatmentRow = {
      id,
      farm_id: farm.id,
      animal_id: animal.id,
      medicine_id: medicine.id,
      batch_id: batch?.id ?? null,
      dose: given.dose,
      dose_unit: given.dose_unit,
      route: given.route,
      site: given.site ?? null,
      at: given.at,
      course_doses: course.doses,
      course_every_hours: course.every_hours,
      reason: given.reason ?? null,
      given_by: given.given_by ?? null,
      vet: given.vet ?? null,
      override_reason: given.override_reason?.trim() ? given.override_reason : null,
      withdrawal: JSON.stringify({
        medicine: medicine.name,
        batch: batch?.batch ?? null,
        sources,
        animal: { tag: animal.tag, eid: animal.eid, name: animal.name, species: animal.species },
      } satisfies StoredTreatmentWithdrawal),
      event_id: options.eventId ?? null,
      created_at: now,
    };
    if (options.eventId === undefined) {
      const treatment = toTreatment(row);
      const event = await recordFarmEvent(
        trx,
        farm.id,
        {
          type: TREATMENT_EVENT,
          subject_type: 'animal',
          subject_id: animal.id,
          data: {
            treatment_id: id,
            medicine_id: medicine.id,
            medicine: medicine.name,
            batch_id: row.batch_id,
            batch: treatment.batch,
            dose: row.dose,
            dose_unit: row.dose_unit,
            route: row.route,
            course: treatment.course,
            withdrawal_until: treatment.withdrawal_until,
            ...(row.override_reason ? { override_reason: row.override_reason } : {}),
          },
          at: given.at,
        },
        now,
      );
      row.event_id = event.id;
    }
    await addAnimalWithdrawal(trx, animal, sources, now);
    rows.push(row);
    treatments.push(toTreatment(row));
  }
  await insertTreatments(trx, rows);
  if (batch) await useFromBatch(trx, batch, given.dose * course.doses * animals.length);
  for (const treatment of treatments) await emitEvent(trx, farm.id, 'treatment.created', treatment, now);
  return treatments;
}

/** POST /v1/farms/{farm}/treatments: the medicine given to a list of animals or a group, one treatment each. */
export async function createTreatments(
  db: Db,
  scope: Scope,
  farmId: string,
  input: CreateTreatmentInput,
  now: number = Date.now(),
): Promise<{ data: Treatment[] }> {
  const hasList = input.animal_ids !== undefined;
  const hasGroup = input.group_id !== undefined;
  if (hasList === hasGroup) {
    throw invalid(
      hasList ? 'group_id' : 'animal_ids',
      'Name the animals treated: animal_ids or group_id, one of them.',
    );
  }
  const { animal_ids, group_id, at, ...rest } = input;
  return inTransaction(db, async (trx) => {
    const farm = await requireFarm(trx, scope, farmId);
    const given: GivenMedicine = {
      ...rest,
      at: at === undefined ? now : parseRecordAt('at', at, farm.timezone),
    };
    requireDone('at', given.at, now, 'a treatment');
    const medicine = await requireMedicine(trx, scope, farm, input.medicine_id, 'medicine_id');
    const animals = await lockedAnimals(trx, farm, { animal_ids, group_id }, 'animal_ids');
    return { data: await giveMedicine(trx, farm, medicine, animals, given, {}, now) };
  });
}
