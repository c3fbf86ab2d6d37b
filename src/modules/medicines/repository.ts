import type { Selectable } from 'kysely';
import { fetchPage, type Page, type PageRequest } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import type { MedicineBatchesTable, MedicinesTable } from '../../db/tables/herd-book.ts';
import type { MedicineLabel } from '../../domain/withdrawal.ts';
import { parseJson } from '../../lib/json.ts';
import { toIso } from '../../lib/time.ts';
import type { LabelPeriods, Medicine, MedicineBatch } from './schemas.ts';

export type MedicineRow = Selectable<MedicinesTable>;
export type BatchRow = Selectable<MedicineBatchesTable>;

/** What the withdrawal rules read of a medicine (src/domain/withdrawal.ts). */
export function labelOf(row: MedicineRow): MedicineLabel {
  return {
    withdrawal: parseJson<LabelPeriods>(row.withdrawal, {}),
    species_withdrawal: parseJson<Record<string, LabelPeriods> | null>(row.species_withdrawal, null),
    licensed_species: parseJson<string[] | null>(row.licensed_species, null),
  };
}

/**
 * Stock to a millionth of its unit: three 0.1 ml doses from 0.3 ml leave 0, not −5.55e-17 (binary floating
 * point cannot hold 0.1 exactly).
 */
export function roundStock(amount: number): number {
  return Math.round(amount * 1e6) / 1e6;
}

export function toBatch(row: BatchRow, now: number = Date.now()): MedicineBatch {
  const quantity = Number(row.quantity);
  const used = roundStock(Number(row.used));
  return {
    id: row.id,
    medicine_id: row.medicine_id,
    batch: row.batch,
    expiry: toIso(row.expiry),
    expired: Number(row.expiry) <= now,
    quantity,
    used,
    remaining: roundStock(quantity - used),
    supplier: row.supplier,
    purchased_at: toIso(row.purchased_at),
    proof_of_purchase: row.proof_of_purchase,
    created_at: toIso(row.created_at),
  };
}

export function toMedicine(row: MedicineRow, batches: readonly BatchRow[]): Medicine {
  const label = labelOf(row);
  return {
    id: row.id,
    farm_id: row.farm_id,
    name: row.name,
    unit: row.unit,
    active_ingredient: row.active_ingredient,
    form: row.form,
    withdrawal: label.withdrawal,
    species_withdrawal: label.species_withdrawal ?? null,
    licensed_species: label.licensed_species ? [...label.licensed_species] : null,
    low_stock_at: row.low_stock_at === null ? null : Number(row.low_stock_at),
    batches: batches.map((b) => toBatch(b)),
    created_at: toIso(row.created_at),
  };
}

/** The batches of these medicines, newest first, by medicine id. */
export async function batchesOf(db: Db, medicineIds: readonly string[]): Promise<Map<string, BatchRow[]>> {
  const byMedicine = new Map<string, BatchRow[]>(medicineIds.map((id) => [id, []]));
  if (medicineIds.length === 0) return byMedicine;
  const rows = await db
    .selectFrom('medicine_batches')
    .selectAll()
    .where('medicine_id', 'in', medicineIds)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  for (const row of rows) byMedicine.get(row.medicine_id)?.push(row);
  return byMedicine;
}

/** A farm's medicines, newest first, one page, each with its batches. */
export async function medicinePage(db: Db, farmId: string, page: PageRequest): Promise<Page<Medicine>> {
  const query = db.selectFrom('medicines').selectAll().where('farm_id', '=', farmId);
  const rows = await fetchPage(query, page, (row) => row);
  const batches = await batchesOf(
    db,
    rows.data.map((r) => r.id),
  );
  return { ...rows, data: rows.data.map((row) => toMedicine(row, batches.get(row.id) ?? [])) };
}

export async function insertBatch(db: Db, row: BatchRow): Promise<void> {
  await db.insertInto('medicine_batches').values(row).execute();
}

/** The batch, if it is one of this medicine's. */
export async function findBatch(db: Db, medicineId: string, batchId: string): Promise<BatchRow | undefined> {
  return db
    .selectFrom('medicine_batches')
    .selectAll()
    .where('id', '=', batchId)
    .where('medicine_id', '=', medicineId)
    .executeTakeFirst();
}

/**
 * Takes `amount` out of a batch's stock, as read by the caller under the batch's lock (`lockRows` on
 * PostgreSQL; SQLite's transactions hold the write lock), rounded to a millionth of the unit.
 */
export async function useFromBatch(db: Db, batch: BatchRow, amount: number): Promise<void> {
  await db
    .updateTable('medicine_batches')
    .set({ used: roundStock(Number(batch.used) + amount) })
    .where('id', '=', batch.id)
    .execute();
}

/** A farm's medicines (what the brief's cabinet section reads), with their batches. */
export async function farmCabinet(
  db: Db,
  farmId: string,
): Promise<Array<{ medicine: MedicineRow; batches: BatchRow[] }>> {
  const medicines = await db
    .selectFrom('medicines')
    .selectAll()
    .where('farm_id', '=', farmId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  const batches = await batchesOf(
    db,
    medicines.map((m) => m.id),
  );
  return medicines.map((medicine) => ({ medicine, batches: batches.get(medicine.id) ?? [] }));
}
