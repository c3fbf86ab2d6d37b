/**
 * Correcting the medicine record (docs/records.md "Treatments"): a treatment recorded by mistake taken back
 * whole, and its log entry kept from being edited as a free-form event instead.
 */
import type { Db } from '../../db/schema.ts';
import { inTransaction, lockRows } from '../../db/transaction.ts';
import { conflict } from '../../domain/errors.ts';
import { TREATMENT_EVENT } from '../../domain/treatments.ts';
import { parseJson } from '../../lib/json.ts';
import { rebuildAnimalWithdrawal } from '../animals/withdrawal.ts';
import type { EventChangeHook } from '../events/service.ts';
import type { Scope } from '../farms/access.ts';
import { findBatch, useFromBatch } from '../medicines/repository.ts';
import { deleteRecord, findScoped, loadScoped, saveRecord } from '../records/scoped.ts';
import { emitEvent } from '../webhooks/emit.ts';
import {
  deleteTreatmentRow,
  sourcesOf,
  toTreatment,
  treatmentIdsOfEvent,
  treatmentsOfAnimal,
} from './repository.ts';

/**
 * DELETE /v1/treatments/{id}: a treatment recorded by mistake (the wrong animal, the wrong dose) taken back
 * whole, in one transaction: its stock returned to its batch, the animal's withdrawal made again from the
 * treatments it still has, its log entry removed once no other treatment shares it, `treatment.deleted`
 * sent. Giving the right one is a new treatment.
 */
export async function deleteTreatment(
  db: Db,
  scope: Scope,
  id: string,
  now: number = Date.now(),
): Promise<{ id: string; deleted: true }> {
  return inTransaction(db, async (trx) => {
    const found = await loadScoped(trx, scope, 'treatment', id);
    await lockRows(trx, 'animals', found.animal_id);
    if (found.batch_id !== null) await lockRows(trx, 'medicine_batches', found.batch_id);
    // Read again under the locks: a concurrent delete of the same treatment finds it gone.
    const row = await loadScoped(trx, scope, 'treatment', id);
    const treatment = toTreatment(row);
    await deleteTreatmentRow(trx, row.id);
    if (row.batch_id !== null) {
      const batch = await findBatch(trx, row.medicine_id, row.batch_id);
      if (batch) await useFromBatch(trx, batch, -(Number(row.dose) * row.course_doses));
    }
    const others = await treatmentsOfAnimal(trx, row.animal_id);
    await rebuildAnimalWithdrawal(trx, row.animal_id, others.flatMap(sourcesOf), now);
    if (row.event_id !== null) {
      const sharing = await treatmentIdsOfEvent(trx, row.event_id);
      const entry = sharing.length === 0 ? undefined : await findScoped(trx, scope, 'event', row.event_id);
      if (sharing.length === 0) await deleteRecord(trx, 'event', row.event_id);
      else if (entry) {
        // A treatment logged on a group: its one log entry stays for the others, without this one's id.
        const data = parseJson<Record<string, unknown>>(entry.data, {});
        const kept = (Array.isArray(data.treatment_ids) ? data.treatment_ids : sharing).filter(
          (t) => t !== row.id,
        );
        await saveRecord(trx, 'event', { ...entry, data: JSON.stringify({ ...data, treatment_ids: kept }) });
      }
    }
    await emitEvent(trx, row.farm_id, 'treatment.deleted', treatment, now);
    return { id: row.id, deleted: true as const };
  });
}

/**
 * A structured treatment's log entry cannot be edited or deleted as a free-form event: the record and the
 * log would disagree (the withdrawal and stock stay as given). 409 naming the treatments to correct instead.
 */
export const treatmentEventChanged: EventChangeHook = async (trx, _scope, before) => {
  // Logged in any case ("Treatment"), it was made a treatment all the same (event-hook.ts).
  if (before.type.trim().toLowerCase() !== TREATMENT_EVENT) return;
  const ids = await treatmentIdsOfEvent(trx, before.id);
  if (ids.length === 0) return;
  throw conflict(
    `This event is the log entry of treatment ${ids.join(', ')}: to correct it, DELETE /v1/treatments/{id} and give the right one.`,
  );
};
