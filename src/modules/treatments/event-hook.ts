/**
 * The herd book's rules for the spec's free-form farm events (`POST /v1/farms/{farm}/events`, MCP's
 * `log_event`), handed to the events module as its client-event hook by buildApp and the MCP tool, since
 * events sits below animals and treatments:
 *  - a `sale` or `slaughter` of an animal, or of a group (each of its active animals), inside its meat
 *    withdrawal is refused with 409 `withdrawal_active` unless `override_reason` is given; then the reason is
 *    kept in the event's data and `withdrawal.overridden` is sent;
 *  - a `treatment` whose data names a `medicine_id` also becomes a structured treatment (one per animal of its
 *    subject), its data checked as the treatments route checks its body, linked to the event, which keeps
 *    the data as given plus `treatment_ids`;
 *  - both are records of something done: dated later than now (beyond a clock's few minutes), a 400.
 * Every other event is logged exactly as before.
 */
import { invalid } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { isLeavingEventType, TREATMENT_EVENT } from '../../domain/treatments.ts';
import { compileChecked, describeAjvError, firstIssue, makeAjv } from '../../lib/ajv.ts';
import { lazily } from '../../lib/compile-lazily.ts';
import { checkLeaving, emitWithdrawalOverridden, type LeavingAction } from '../animals/withdrawal.ts';
import type { ClientEvent, ClientEventHook } from '../events/service.ts';
import { requireDone } from '../records/inputs.ts';
import { TreatmentEventData, type TreatmentEventDataInput } from './schemas.ts';
import { type GivenMedicine, giveMedicine, lockedAnimals, requireMedicine } from './service.ts';

const DATA_PARAMS = {
  at: 'at',
  medicine_id: 'data.medicine_id',
  batch_id: 'data.batch_id',
  dose_unit: 'data.dose_unit',
  animals: 'subject_id',
};

/** The animals an event is about: its animal, or its group's active animals; none for other subjects. */
function targetOf(event: ClientEvent): { animal_ids?: string[]; group_id?: string } | null {
  if (event.subject_id === null) return null;
  if (event.subject_type === 'animal') return { animal_ids: [event.subject_id] };
  if (event.subject_type === 'group') return { group_id: event.subject_id };
  return null;
}

const validateData = lazily(() => compileChecked(makeAjv({ coerceTypes: false }), TreatmentEventData));

/** A logged treatment's data read as a medicine given, checked as the treatments route checks its body. */
function givenFromData(data: Record<string, unknown>, unit: string, event: ClientEvent): GivenMedicine {
  const validate = validateData();
  const issue = validate(data) ? undefined : firstIssue(validate.errors);
  if (issue) {
    const { param, message } = describeAjvError(issue, 'member', 'data');
    throw invalid(`data.${param}`, `data.${message}`);
  }
  const checked = data as TreatmentEventDataInput;
  return {
    ...checked,
    dose_unit: checked.dose_unit ?? unit,
    route: checked.route ?? 'other',
    at: event.at,
    override_reason: event.override_reason,
  };
}

export const herdBookEventHook: ClientEventHook = async (trx, farm, event, log, now) => {
  const target = targetOf(event);
  if (isLeavingEventType(event.type) && target) {
    requireDone('at', event.at, now, `a ${event.type.trim().toLowerCase()}`);
    const animals = await lockedAnimals(trx, farm, target, 'subject_id');
    const held = checkLeaving(animals, event.at, event.override_reason);
    const logged = await log(event.data);
    if (held.length > 0 && event.override_reason !== null) {
      const action = event.type.trim().toLowerCase() as LeavingAction;
      const override = { action, override_reason: event.override_reason, event_id: logged.id, animals: held };
      await emitWithdrawalOverridden(trx, farm.id, override, now);
    }
    return logged;
  }
  const data = event.data;
  // A treatment naming a medicine is a medicine record: checked whole (a dose of "5" or none is a 400 naming
  // data.dose), never logged as free text that looks recorded but sets no withdrawal.
  if (event.type.trim().toLowerCase() !== TREATMENT_EVENT || !Object.hasOwn(data, 'medicine_id')) {
    return log(data);
  }
  requireDone('at', event.at, now, 'a treatment');
  if (typeof data.medicine_id !== 'string') {
    throw invalid('data.medicine_id', 'data.medicine_id must be the id of one of the farm’s medicines.');
  }
  if (!target) {
    throw invalid(
      'subject_id',
      'A treatment naming a medicine_id is about an animal or a group: give its subject_id.',
    );
  }
  // Scope is the farm's: the caller has already reached it.
  const scope = { accountId: farm.account_id, mode: farm.mode, farms: null };
  const medicine = await requireMedicine(trx, scope, farm, data.medicine_id, 'data.medicine_id');
  const given = givenFromData(data, medicine.unit, event);
  const animals = await lockedAnimals(trx, farm, target, 'subject_id');
  const ids = animals.map(() => newId('treatment', now));
  const logged = await log({ ...data, treatment_ids: ids });
  await giveMedicine(
    trx,
    farm,
    medicine,
    animals,
    given,
    { params: DATA_PARAMS, eventId: logged.id, ids },
    now,
  );
  return logged;
};
