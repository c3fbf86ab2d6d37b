/**
 * Breeding and lineage (issue 47, docs/records.md "Breeding", "Lineage"): the breeding records are events of
 * the log with typed data, checked and applied by `withBreeding` (the client-event hook buildApp and MCP's
 * log_event hand to the events module); each female's state is folded from her records (src/domain/breeding.ts)
 * and kept on her row; the calving calendar reads it. The pedigree and the mating check are lineage.ts's.
 */
import type { Db, Trx } from '../../db/schema.ts';
import { lockRows } from '../../db/transaction.ts';
import {
  BREEDING_EVENT_TYPES,
  type BreedingEventType,
  type BreedingRecord,
  breedingSettingsOf,
  breedingSpeciesOf,
  foldBreeding,
  isBreedingEventType,
  isFemale,
  speciesTimes,
} from '../../domain/breeding.ts';
import { AppError, invalid } from '../../domain/errors.ts';
import { compileChecked, describeAjvError, firstIssue, makeAjv } from '../../lib/ajv.ts';
import { lazily } from '../../lib/compile-lazily.ts';
import { parseJson } from '../../lib/json.ts';
import { localDateText, localDayBounds } from '../../lib/local-time.ts';
import { checkLineage } from '../animals/lineage-rules.ts';
import { type AnimalRow, animalIdsInGroup, animalRowsOn } from '../animals/repository.ts';
import type { Animal } from '../animals/schemas.ts';
import { createAnimal } from '../animals/service.ts';
import type { ClientEvent, ClientEventHook, EventChangeHook, FarmEvent } from '../events/service.ts';
import { recordFarmEvent } from '../events/service.ts';
import { type FarmRow, requireFarm, type Scope } from '../farms/access.ts';
import { parseFarmDayInput, requireDone } from '../records/inputs.ts';
import { requireReference } from '../records/references.ts';
import { emitEvent } from '../webhooks/emit.ts';
import { breedingEventsOf, lastServiceBefore, saveBreeding } from './repository.ts';
import { type BirthData, BREEDING_EVENT_DATA, type ServiceData } from './schemas.ts';

const validators = lazily(() => {
  const ajv = makeAjv({ coerceTypes: false });
  const out = {} as Record<BreedingEventType, ReturnType<typeof compileChecked>>;
  for (const type of BREEDING_EVENT_TYPES) out[type] = compileChecked(ajv, BREEDING_EVENT_DATA[type]);
  return out;
});

/** A breeding record's data checked against its type's schema: a 400 naming `data.<member>`. */
function checkData(type: BreedingEventType, data: Record<string, unknown>): void {
  const validate = validators()[type];
  const issue = validate(data) ? undefined : firstIssue(validate.errors);
  if (issue) {
    const { param, message } = describeAjvError(issue, 'member', 'data');
    throw invalid(`data.${param}`, `data.${message}`);
  }
}

/** A failure of a member the hook passed on (an offspring's eid) named as the member the caller sent. */
async function underParam<T>(prefix: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof AppError && err.code === 'invalid_request') {
      throw invalid(`${prefix}.${err.param ?? 'data'}`, `${prefix}: ${err.message}`);
    }
    if (err instanceof AppError && err.code === 'conflict') {
      throw new AppError('conflict', `${prefix}: ${err.message}`, { param: `${prefix}.${err.param ?? ''}` });
    }
    throw err;
  }
}

/** The females a breeding record is about: its animal (a female), or a group's active females. */
async function femalesOf(
  trx: Db,
  farm: FarmRow,
  event: ClientEvent,
  groupAllowed: boolean,
): Promise<AnimalRow[]> {
  if (event.subject_id === null || (event.subject_type !== 'animal' && event.subject_type !== 'group')) {
    throw invalid(
      'subject_id',
      `A ${event.type} is about a female: give her id as subject_id${groupAllowed ? ' (or a group)' : ''}.`,
    );
  }
  if (event.subject_type === 'group') {
    if (!groupAllowed) throw invalid('subject_id', `A ${event.type} is about one female, not a group.`);
    await requireReference(trx, farm.id, 'group', event.subject_id, 'subject_id');
    const ids = await animalIdsInGroup(trx, farm.id, event.subject_id, 'active');
    const rows = (await animalRowsOn(trx, farm.id, ids)).filter((r) => isFemale(r.sex));
    if (rows.length === 0) throw invalid('subject_id', 'The group holds no active females.');
    return rows;
  }
  if (trx.isTransaction) await lockRows(trx as Trx, 'animals', event.subject_id);
  const [row] = await animalRowsOn(trx, farm.id, [event.subject_id]);
  if (!row) throw invalid('subject_id', `subject_id "${event.subject_id}" is not an animal on this farm.`);
  if (!isFemale(row.sex)) {
    throw invalid(
      'subject_id',
      `A ${event.type} is about a female; ${row.id} is recorded as ${row.sex ?? 'of unknown sex'}.`,
    );
  }
  return [row];
}

/**
 * A pregnancy check that says pregnant says something possible: at least one foetus when it counts them,
 * and `days_pregnant` within her species' gestation (390 days for a goat would make her due a year ago).
 */
function checkPregnancy(farm: FarmRow, females: readonly AnimalRow[], data: Record<string, unknown>): void {
  if (data.result !== 'pregnant') return;
  if (data.foetal_count === 0) {
    throw invalid(
      'data.foetal_count',
      'A pregnant result counts at least one foetus (or leave foetal_count out).',
    );
  }
  if (typeof data.days_pregnant !== 'number') return;
  const settings = breedingSettingsOf(parseJson<Record<string, unknown>>(farm.settings, {}));
  for (const female of females) {
    const species = breedingSpeciesOf(female.species);
    if (species === null) continue;
    const gestation = speciesTimes(species, settings).gestation_days;
    if (data.days_pregnant > gestation) {
      throw invalid(
        'data.days_pregnant',
        `data.days_pregnant ${data.days_pregnant} is longer than a ${female.species}'s gestation (${gestation} days).`,
      );
    }
  }
}

/**
 * A service's or birth's sire, checked as an animal's sire_id is, against each female, with the caller's scope
 * (a sire on a farm outside a restricted key's list is an unknown id). `kept`: the sire the record named before
 * an edit, which keeps its place wherever it is (checkLineage's `stored`).
 */
async function checkSire(
  trx: Db,
  scope: Scope,
  females: readonly AnimalRow[],
  data: { sire_id?: string; sire_name?: string },
  kept: string | null = null,
) {
  if (data.sire_id !== undefined && data.sire_name !== undefined) {
    throw invalid(
      'data.sire_name',
      'Give data.sire_id (an animal of the account) or data.sire_name, not both.',
    );
  }
  if (data.sire_id === undefined) return;
  for (const female of females) {
    await underParam('data', () =>
      checkLineage(
        trx,
        scope,
        { ...female, sire_id: data.sire_id ?? null, sire_name: null },
        { dam: false, sire: true },
        { dam_id: null, sire_id: kept },
      ),
    );
  }
}

/** Her records, as the fold reads them. */
function recordsOf(rows: Awaited<ReturnType<typeof breedingEventsOf>>, animalId: string): BreedingRecord[] {
  return rows
    .filter((r) => r.subject_id === animalId && isBreedingEventType(r.type))
    .map((r) => ({
      type: r.type as BreedingEventType,
      at: r.at,
      result: typeof r.data.result === 'string' ? r.data.result : undefined,
      days_pregnant: typeof r.data.days_pregnant === 'number' ? r.data.days_pregnant : undefined,
      calving: Array.isArray(r.data.offspring),
    }));
}

/**
 * Folds these females' breeding records again and stores each state (out-of-order records land where their
 * `at` puts them). Species the registry has no gestation for keep no state.
 */
export async function refreshBreeding(
  trx: Db,
  farm: FarmRow,
  females: readonly AnimalRow[],
  now: number,
): Promise<void> {
  const settings = breedingSettingsOf(parseJson<Record<string, unknown>>(farm.settings, {}));
  const events = await breedingEventsOf(
    trx,
    farm.id,
    females.map((f) => f.id),
  );
  for (const female of females) {
    const species = breedingSpeciesOf(female.species);
    if (species === null) continue;
    await saveBreeding(
      trx,
      female.id,
      foldBreeding(recordsOf(events, female.id), speciesTimes(species, settings), farm.timezone),
      now,
    );
  }
}

/** A birth: each offspring created with its dam, sire and birth date; a birth weight becomes a `weight` event. */
async function recordBirth(
  trx: Db,
  farm: FarmRow,
  dam: AnimalRow,
  event: ClientEvent,
  data: BirthData,
  log: (data: Record<string, unknown>) => Promise<FarmEvent>,
  now: number,
) {
  const service =
    data.sire_id || data.sire_name ? null : await lastServiceBefore(trx, farm.id, dam.id, event.at);
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const sire = {
    sire_id: data.sire_id ?? str(service?.sire_id),
    sire_name: data.sire_name ?? str(service?.sire_name),
    sire_registration: data.sire_registration ?? str(service?.sire_registration),
  };
  const scope: Scope = { accountId: farm.account_id, mode: farm.mode, farms: null };
  const born: Animal[] = [];
  for (const [i, young] of data.offspring.entries()) {
    const input = {
      species: dam.species,
      sex: young.sex,
      // The day of the birth on the farm, as a birth date given alone is stored (midnight UTC of that day):
      // a calf born in the small hours in Auckland is born on the farm's day, not on UTC's day before.
      birth_date: localDateText(event.at, farm.timezone),
      dam_id: dam.id,
      paddock_id: dam.paddock_id,
      status: young.alive ? 'active' : 'dead',
      ...(young.tag ? { tag: young.tag } : {}),
      ...(young.eid ? { eid: young.eid } : {}),
      ...(young.name ? { name: young.name } : {}),
      ...(sire.sire_id ? { sire_id: sire.sire_id } : {}),
      ...(sire.sire_name && !sire.sire_id ? { sire_name: sire.sire_name } : {}),
      ...(sire.sire_registration && !sire.sire_id ? { sire_registration: sire.sire_registration } : {}),
    };
    born.push(await underParam(`data.offspring[${i}]`, () => createAnimal(trx, scope, farm.id, input, now)));
  }
  const logged = await log({ ...event.data, offspring_ids: born.map((a) => a.id) });
  for (const [i, animal] of born.entries()) {
    const kg = data.offspring[i]?.weight_kg;
    if (kg !== undefined) {
      await recordFarmEvent(
        trx,
        farm.id,
        {
          type: 'weight',
          subject_type: 'animal',
          subject_id: animal.id,
          data: { kg, source: 'birth' },
          at: event.at,
        },
        now,
      );
    }
    await emitEvent(trx, farm.id, 'animal.born', { animal, dam_id: dam.id, event_id: logged.id }, now);
  }
  return logged;
}

/**
 * The breeding records' rules over the events module's (see ClientEventHook): `heat`, `service`,
 * `pregnancy_check`, `abortion`, `weaning` and a `birth` with `offspring` have typed data, checked (a 400 naming
 * the member), and move their females' breeding state in the event's transaction; a birth creates its
 * offspring. A `birth` without `offspring` (the spec's free-form event) and every other type go to `next`.
 */
export function withBreeding(next: ClientEventHook): ClientEventHook {
  return async (trx, farm, event, log, now, scope) => {
    const type = event.type;
    if (!isBreedingEventType(type) || (type === 'birth' && !Object.hasOwn(event.data, 'offspring'))) {
      return next(trx, farm, event, log, now, scope);
    }
    const { override_reason: _kept, ...data } = event.data;
    checkData(type, data);
    // Something that happened: a service, a check or a birth next year is a plan (a task), not a record.
    requireDone('at', event.at, now, `a ${type.replace('_', ' ')}`);
    if (type === 'weaning') {
      // Weaned as a group: each of its active females ends her fresh days (her calf weaned with her).
      if (event.subject_type === 'group' && event.subject_id !== null) {
        await requireReference(trx, farm.id, 'group', event.subject_id, 'subject_id');
        const ids = await animalIdsInGroup(trx, farm.id, event.subject_id, 'active');
        const rows = (await animalRowsOn(trx, farm.id, ids)).filter((r) => isFemale(r.sex));
        const logged = await log({ ...event.data, animal_ids: rows.map((r) => r.id) });
        await refreshBreeding(trx, farm, rows, now);
        return logged;
      }
      const logged = await log(event.data);
      if (event.subject_type === 'animal' && event.subject_id !== null) {
        const rows = (await animalRowsOn(trx, farm.id, [event.subject_id])).filter((r) => isFemale(r.sex));
        await refreshBreeding(trx, farm, rows, now);
      }
      return logged;
    }
    const females = await femalesOf(trx, farm, event, type === 'service');
    if (type === 'birth') {
      const [dam] = females as [AnimalRow];
      await checkSire(trx, scope, females, data as BirthData);
      const logged = await recordBirth(trx, farm, dam, event, data as BirthData, log, now);
      await refreshBreeding(trx, farm, females, now);
      return logged;
    }
    if (type === 'pregnancy_check') checkPregnancy(farm, females, data);
    if (type === 'service') {
      const service = data as ServiceData;
      await checkSire(trx, scope, females, service);
      // A date alone is the bull's last day in: until its end on the farm.
      const out = parseFarmDayInput('data.until', service.until, farm.timezone);
      const until =
        out.at === null ? null : out.date === null ? out.at : localDayBounds(out.at, farm.timezone).end - 1;
      if (until !== null && until < event.at) {
        throw invalid('data.until', 'data.until (when the bull came out) is before at (when he went in).');
      }
    }
    const stored =
      event.subject_type === 'group' ? { ...event.data, animal_ids: females.map((f) => f.id) } : event.data;
    const logged = await log(stored);
    await refreshBreeding(trx, farm, females, now);
    return logged;
  };
}

/** Members the breeding module adds to a record's data when it stores it (not the caller's to check). */
const STORED_MEMBERS = ['override_reason', 'offspring_ids', 'animal_ids'];

/** Whether an event is a breeding record the fold reads (a birth without offspring is the spec's free-form one). */
function isTypedBreeding(event: FarmEvent): event is FarmEvent & { type: BreedingEventType } {
  return (
    isBreedingEventType(event.type) && (event.type !== 'birth' || Object.hasOwn(event.data, 'offspring'))
  );
}

/** The animals a stored breeding record is about: its subject, or a group service's `animal_ids`. */
function animalsOfRecord(event: FarmEvent): string[] {
  if (event.subject_type === 'animal' && event.subject_id !== null) return [event.subject_id];
  const ids =
    event.subject_type === 'group' && Array.isArray(event.data.animal_ids) ? event.data.animal_ids : [];
  return ids.filter((id): id is string => typeof id === 'string');
}

/**
 * A breeding record edited or deleted through the event log (`PATCH`/`DELETE /v1/events/{id}`, handed to the
 * events module by buildApp): the females it was about and those it is about now have their state, due date
 * and next heat folded again from their remaining records, in the edit's transaction. An edited record is
 * checked as a new one is when its type, data or subject changed (a 400 naming the member); a group service
 * keeps its group (its `animal_ids` were fixed when it was logged). Editing or deleting a birth neither creates
 * nor deletes offspring: the calves stay, with their dam (docs/records.md "Breeding").
 */
export const breedingEventChanged: EventChangeHook = async (trx, scope, before, after, now) => {
  const was = isTypedBreeding(before);
  const is = after !== null && isTypedBreeding(after);
  if (!was && !is) return;
  const farm = await requireFarm(trx, scope, before.farm_id);
  // Moved into the future, it is no longer a record of something done (as when logged).
  if (is && after !== null && after.at !== before.at) {
    requireDone('at', Date.parse(after.at), now, `a ${after.type.replace('_', ' ')}`);
  }
  if (is && after !== null && after.type !== 'weaning' && reshaped(before, after)) {
    const data = Object.fromEntries(Object.entries(after.data).filter(([k]) => !STORED_MEMBERS.includes(k)));
    checkData(after.type, data);
    let females: AnimalRow[];
    if (after.subject_type === 'group') {
      const sameGroup = before.subject_type === 'group' && after.subject_id === before.subject_id;
      if (!sameGroup || after.type !== 'service') {
        throw invalid(
          'subject_id',
          'A service on a group keeps its group (its females were fixed when it was logged): log a new one.',
        );
      }
      females = await animalRowsOn(trx, farm.id, animalsOfRecord(after));
    } else {
      const event = { ...after, at: Date.parse(after.at), override_reason: null };
      females = await femalesOf(trx, farm, event, false);
    }
    if (after.type === 'service' || after.type === 'birth') {
      // Only a sire checked when it was logged keeps its place (a note's data was never checked).
      const checked = was && (before.type === 'service' || before.type === 'birth');
      const kept = checked && typeof before.data.sire_id === 'string' ? before.data.sire_id : null;
      await checkSire(trx, scope, females, data, kept);
    }
  } else if (is && after !== null && reshaped(before, after)) {
    checkData(
      after.type,
      Object.fromEntries(Object.entries(after.data).filter(([k]) => k !== 'override_reason')),
    );
  }
  const ids = [
    ...new Set([...(was ? animalsOfRecord(before) : []), ...(is && after ? animalsOfRecord(after) : [])]),
  ];
  if (ids.length === 0) return;
  if (trx.isTransaction) await lockRows(trx as Trx, 'animals', ids);
  const females = (await animalRowsOn(trx, farm.id, ids)).filter((r) => isFemale(r.sex));
  await refreshBreeding(trx, farm, females, now);
};

/** Whether an edit changed what a breeding record is (its type, subject or data), not only when it was. */
function reshaped(before: FarmEvent, after: FarmEvent): boolean {
  return (
    after.type !== before.type ||
    after.subject_id !== before.subject_id ||
    after.subject_type !== before.subject_type ||
    JSON.stringify(after.data) !== JSON.stringify(before.data)
  );
}
