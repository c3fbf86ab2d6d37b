/**
 * A farm's medicine cabinet (issue 46, docs/records.md): its medicines with the label's withdrawal periods and
 * licensed species, and their batches with stock and expiry. Treatments (modules/treatments) take stock out.
 */
import type { Page, PageRequest } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import { inTransaction, lockRows } from '../../db/transaction.ts';
import { conflict, invalid } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { localDayBounds } from '../../lib/local-time.ts';
import { requireFarm, type Scope } from '../farms/access.ts';
import { parseDateInput, parseFarmDayInput } from '../records/inputs.ts';
import { insertRecord, loadScoped, saveRecord } from '../records/scoped.ts';
import { batchesOf, insertBatch, type MedicineRow, medicinePage, toMedicine } from './repository.ts';
import type { CreateBatchInput, CreateMedicineInput, Medicine, UpdateMedicineInput } from './schemas.ts';

export async function listMedicines(
  db: Db,
  scope: Scope,
  farmId: string,
  page: PageRequest,
): Promise<Page<Medicine>> {
  const farm = await requireFarm(db, scope, farmId);
  return medicinePage(db, farm.id, page);
}

/** The medicine with its batches. */
export async function medicineWithBatches(db: Db, row: MedicineRow): Promise<Medicine> {
  const batches = await batchesOf(db, [row.id]);
  return toMedicine(row, batches.get(row.id) ?? []);
}

export async function getMedicine(db: Db, scope: Scope, id: string): Promise<Medicine> {
  return medicineWithBatches(db, await loadScoped(db, scope, 'medicine', id));
}

/** Species names as given, without blanks twice over (a label names a species once). */
function speciesList(param: string, list: readonly string[] | null | undefined): string | null {
  if (list === undefined || list === null) return null;
  const seen = new Set<string>();
  for (const [i, species] of list.entries()) {
    const key = species.trim().toLowerCase();
    if (key === '') throw invalid(`${param}[${i}]`, `${param}[${i}] must name a species.`);
    if (seen.has(key)) throw invalid(`${param}[${i}]`, `${param} names "${species}" twice.`);
    seen.add(key);
  }
  return JSON.stringify(list.map((s) => s.trim()));
}

/** A label's periods per species, each species named once in any case ("sheep" and "Sheep" are one). */
function speciesPeriods(periods: Record<string, unknown> | null | undefined): string | null {
  if (periods === undefined || periods === null) return null;
  const seen = new Set<string>();
  for (const species of Object.keys(periods)) {
    const key = species.trim().toLowerCase();
    const param = `species_withdrawal.${species}`;
    if (key === '') throw invalid(param, 'species_withdrawal must name each species.');
    if (seen.has(key)) throw invalid(param, `species_withdrawal names "${species}" twice.`);
    seen.add(key);
  }
  return JSON.stringify(periods);
}

export async function createMedicine(
  db: Db,
  scope: Scope,
  farmId: string,
  input: CreateMedicineInput,
  now: number = Date.now(),
): Promise<Medicine> {
  const farm = await requireFarm(db, scope, farmId);
  const row: MedicineRow = {
    id: newId('medicine', now),
    farm_id: farm.id,
    name: input.name,
    unit: input.unit,
    active_ingredient: input.active_ingredient ?? null,
    form: input.form ?? null,
    withdrawal: JSON.stringify(input.withdrawal),
    species_withdrawal: speciesPeriods(input.species_withdrawal),
    licensed_species: speciesList('licensed_species', input.licensed_species),
    low_stock_at: input.low_stock_at ?? null,
    created_at: now,
  };
  await insertRecord(db, 'medicine', row);
  return toMedicine(row, []);
}

/**
 * Updates any subset of a medicine. Treatments already given keep the withdrawal they were given with: a
 * label corrected later changes the next treatment, not the record of the last.
 */
export async function updateMedicine(
  db: Db,
  scope: Scope,
  id: string,
  patch: UpdateMedicineInput,
): Promise<Medicine> {
  return inTransaction(db, async (trx) => {
    await lockRows(trx, 'medicines', id);
    const row = await loadScoped(trx, scope, 'medicine', id);
    const next: MedicineRow = { ...row };
    if (patch.name !== undefined) next.name = patch.name;
    if (patch.unit !== undefined && patch.unit.trim().toLowerCase() !== row.unit.trim().toLowerCase()) {
      // Stock is kept in the unit: 126 ml bought must not become 126 tablets.
      const batches = (await batchesOf(trx, [row.id])).get(row.id) ?? [];
      if (batches.length > 0) {
        throw conflict(
          `${row.name} has ${batches.length === 1 ? 'a batch' : `${batches.length} batches`} in ${row.unit}: its unit cannot change (add the other form as a medicine of its own).`,
          'unit',
        );
      }
    }
    if (patch.unit !== undefined) next.unit = patch.unit;
    if (patch.active_ingredient !== undefined) next.active_ingredient = patch.active_ingredient;
    if (patch.form !== undefined) next.form = patch.form;
    if (patch.withdrawal !== undefined) next.withdrawal = JSON.stringify(patch.withdrawal);
    if (patch.species_withdrawal !== undefined) {
      next.species_withdrawal = speciesPeriods(patch.species_withdrawal);
    }
    if (patch.licensed_species !== undefined) {
      next.licensed_species = speciesList('licensed_species', patch.licensed_species);
    }
    if (patch.low_stock_at !== undefined) next.low_stock_at = patch.low_stock_at;
    await saveRecord(trx, 'medicine', next);
    return medicineWithBatches(trx, next);
  });
}

/**
 * A label's expiry: a date alone ("EXP 2026-12-02") is usable through that whole day on the farm, so it is
 * stored as the day's last millisecond there (shown in the farm's zone, it is still that day); a date-time
 * is that instant.
 */
function expiryOf(text: string, timeZone: string): number {
  const { at, date } = parseFarmDayInput('expiry', text, timeZone);
  return date === null ? (at as number) : localDayBounds(at as number, timeZone).end - 1;
}

/** Adds a batch (bought stock) to a medicine; answers the medicine with its batches. */
export async function addBatch(
  db: Db,
  scope: Scope,
  medicineId: string,
  input: CreateBatchInput,
  now: number = Date.now(),
): Promise<Medicine> {
  const medicine = await loadScoped(db, scope, 'medicine', medicineId);
  const farm = await requireFarm(db, scope, medicine.farm_id);
  await insertBatch(db, {
    id: newId('batch', now),
    farm_id: medicine.farm_id,
    medicine_id: medicine.id,
    batch: input.batch,
    expiry: expiryOf(input.expiry, farm.timezone),
    quantity: input.quantity,
    used: 0,
    supplier: input.supplier ?? null,
    purchased_at: parseDateInput('purchased_at', input.purchased_at),
    proof_of_purchase: input.proof_of_purchase ?? null,
    created_at: now,
  });
  return medicineWithBatches(db, medicine);
}
