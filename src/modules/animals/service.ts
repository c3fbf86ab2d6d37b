import { mergedFreeFormJson } from '../../calls/input-rules.ts';
import { isUniqueViolation } from '../../db/engine.ts';
import { MAX_PAGE_SIZE, type Page, type PageRequest } from '../../db/pagination.ts';
import type { Db, Trx } from '../../db/schema.ts';
import { inTransaction, lockRows } from '../../db/transaction.ts';
import { normalizeEid } from '../../domain/eid.ts';
import { type AppError, conflict, invalid } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { isLeavingStatus, WITHDRAWAL_OVERRIDE_EVENT } from '../../domain/treatments.ts';
import { parseJson } from '../../lib/json.ts';
import { listSubjectEvents } from '../events/repository.ts';
import type { FarmEvent } from '../events/schemas.ts';
import { recordFarmEvent } from '../events/service.ts';
import { requireFarm, type Scope } from '../farms/access.ts';
import { parseDateInput } from '../records/inputs.ts';
import { requireReference } from '../records/references.ts';
import { deleteRecord, insertRecord, loadScoped, saveRecord } from '../records/scoped.ts';
import { rebuildStays, recordPlacement } from '../stays/service.ts';
import { emitEvent } from '../webhooks/emit.ts';
import { checkAsParent, checkLineage } from './lineage-rules.ts';
import {
  type AnimalRow,
  animalPage,
  animalsChangedSince,
  animalsIn,
  animalsRemovedSince,
  animalValues,
  clearAnimalsFrom,
  deleteRemovalsBefore,
  findEidHolder,
  recordRemovals,
  searchTextOf,
  toAnimal,
} from './repository.ts';
import {
  type Animal,
  type AnimalChanges,
  type AnimalChangesInput,
  type AnimalFilters,
  type CreateAnimalInput,
  MAX_CHANGES_PAGE,
  type UpdateAnimalInput,
} from './schemas.ts';
import { checkLeaving, emitWithdrawalOverridden, type HeldAnimal } from './withdrawal.ts';

/**
 * How far back a refresh's `next_since` reaches before the moment it began: a write committing later than it
 * stamped `changed_at` (a transaction up to this long) is still seen by the next refresh. An animal seen
 * twice is stored twice on the phone, which changes nothing.
 */
export const CHANGES_OVERLAP_MS = 60_000;

/**
 * How long the ids of deleted animals are kept for refreshes (`animal_removals`, pruned daily): a `since`
 * older than this gets the whole herd back, marked `full`, since the deletions before it are gone.
 */
export const REMOVALS_KEPT_MS = 90 * 86_400_000;

export const DEFAULT_ANIMAL_STATUS = 'active';

/**
 * An EID as stored: an ISO 11784 number in any reader's form becomes its 15 digits (src/domain/eid.ts),
 * anything else is kept as given, trimmed; blank is a 400 naming eid.
 */
export function storedEid(raw: string | null | undefined): string | null {
  if (raw === null || raw === undefined) return null;
  const eid = normalizeEid(raw);
  if (eid === '') throw invalid('eid', 'eid must not be blank.');
  return eid;
}

export function eidConflict(eid: string, holderId: string): AppError {
  return conflict(`Another animal (${holderId}) already has eid "${eid}"; an EID names one animal.`, 'eid');
}

async function checkEidFree(db: Db, row: AnimalRow): Promise<void> {
  if (row.eid === null) return;
  const holder = await findEidHolder(db, row.account_id, row.mode, row.eid, row.id);
  if (holder) throw eidConflict(row.eid, holder.id);
}

/** Runs a write; a race past checkEidFree still ends as the same clean 409 from the unique index. */
export async function withEidGuard<T>(eid: string | null, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (eid !== null && isUniqueViolation(err)) {
      throw conflict(`Another animal already has eid "${eid}"; an EID names one animal.`, 'eid');
    }
    throw err;
  }
}

export async function listAnimals(
  db: Db,
  scope: Scope,
  farmId: string,
  filters: AnimalFilters,
  page: PageRequest,
): Promise<Page<Animal>> {
  const farm = await requireFarm(db, scope, farmId);
  return animalPage(db, farm.id, { ...filters, now: Date.now() }, page);
}

/**
 * What changed among a farm's animals since `since` (every animal when absent, or when `since` is older
 * than the deletions kept: then `full`), a page at a time, and which were deleted: the field app's
 * incremental refresh (docs/offline.md).
 */
export async function animalChanges(
  db: Db,
  scope: Scope,
  farmId: string,
  input: AnimalChangesInput,
  now: number = Date.now(),
): Promise<AnimalChanges> {
  const farm = await requireFarm(db, scope, farmId);
  const asked = input.since === undefined ? 0 : Number(input.since);
  // Deletions older than REMOVALS_KEPT_MS are pruned: from before that, only the whole herd is right.
  const since = asked < now - REMOVALS_KEPT_MS ? 0 : asked;
  const limit = input.limit ?? MAX_CHANGES_PAGE;
  const [at, ...rest] = input.after?.split('_') ?? [];
  const after = at === undefined ? null : { at: Number(at), id: rest.join('_') };
  const rows = await animalsChangedSince(db, farm.id, since, after, limit);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const hasMore = rows.length > limit && last !== undefined;
  return {
    data: page.map(toAnimal),
    full: since === 0,
    removed: after === null && since > 0 ? await animalsRemovedSince(db, farm.id, since) : [],
    has_more: hasMore,
    next_after: hasMore ? `${last.changed_at}_${last.id}` : null,
    next_since: String(Math.max(0, now - CHANGES_OVERLAP_MS)),
  };
}

/** The species, breeds and statuses a farm's animals have (at most `limit` of each): what filters can match. */
export async function animalFilterValues(db: Db, scope: Scope, farmId: string, limit: number) {
  const farm = await requireFarm(db, scope, farmId);
  const [species, breed, status] = await Promise.all([
    animalValues(db, farm.id, 'species', limit),
    animalValues(db, farm.id, 'breed', limit),
    animalValues(db, farm.id, 'status', limit),
  ]);
  return { species, breed, status };
}

export async function getAnimal(db: Db, scope: Scope, id: string): Promise<Animal> {
  return toAnimal(await loadScoped(db, scope, 'animal', id));
}

/**
 * The row a new animal is stored as (defaults filled in, birth_date parsed: a bad one is a 400 naming
 * it). Its references and EID are the caller's to check (createAnimal, or the CSV import in bulk).
 */
export function newAnimalRow(
  farm: { id: string; account_id: string; mode: 'live' | 'test' },
  input: CreateAnimalInput,
  now: number,
): AnimalRow {
  const base = {
    name: input.name ?? null,
    tag: input.tag ?? null,
    eid: storedEid(input.eid),
    breed: input.breed ?? null,
  };
  return {
    id: newId('animal', now),
    farm_id: farm.id,
    account_id: farm.account_id,
    mode: farm.mode,
    species: input.species,
    ...base,
    sex: input.sex ?? null,
    birth_date: parseDateInput('birth_date', input.birth_date),
    group_id: input.group_id ?? null,
    paddock_id: input.paddock_id ?? null,
    status: input.status ?? DEFAULT_ANIMAL_STATUS,
    notes: input.notes ?? null,
    fields: JSON.stringify(input.fields ?? {}),
    search_text: searchTextOf(base),
    created_at: now,
    changed_at: now,
    withdrawal: null,
    meat_withdrawal_until: null,
    withdrawal_until: null,
    dam_id: input.dam_id ?? null,
    sire_id: input.sire_id ?? null,
    sire_name: input.sire_name ?? null,
    sire_registration: input.sire_registration ?? null,
    breeding: null,
    due_at: null,
  };
}

/** Adds an animal; writes `animal.created` in the same transaction. */
export async function createAnimal(
  db: Db,
  scope: Scope,
  farmId: string,
  input: CreateAnimalInput,
  now: number = Date.now(),
): Promise<Animal> {
  const run = async (trx: Db): Promise<Animal> => {
    const farm = await requireFarm(trx, scope, farmId);
    const row = newAnimalRow(farm, input, now);
    if (row.group_id) await requireReference(trx, farm.id, 'group', row.group_id, 'group_id');
    if (row.paddock_id) await requireReference(trx, farm.id, 'paddock', row.paddock_id, 'paddock_id');
    await checkLineage(trx, scope, row, { dam: true, sire: true });
    await checkEidFree(trx, row);
    await insertRecord(trx, 'animal', row);
    await recordPlacement(trx, 'animal', { ...row, name: row.name ?? row.tag ?? row.id });
    const animal = toAnimal(row);
    await emitEvent(trx, farm.id, 'animal.created', animal, now);
    return animal;
  };
  return withEidGuard(storedEid(input.eid), () => inTransaction(db, run));
}

/**
 * Updates any subset of fields. A change of paddock_id or group_id logs a `move` event on the animal
 * in the same transaction, so its history keeps where it was.
 */
export async function updateAnimal(
  db: Db,
  scope: Scope,
  id: string,
  patch: UpdateAnimalInput,
  now: number = Date.now(),
): Promise<Animal> {
  const run = async (trx: Trx): Promise<Animal> => {
    // Locked before it is read: the whole row is written back and `fields` merges into what is stored.
    await lockRows(trx, 'animals', id);
    const row = await loadScoped(trx, scope, 'animal', id);
    const next: AnimalRow = { ...row };
    if (patch.species !== undefined) next.species = patch.species;
    if (patch.name !== undefined) next.name = patch.name;
    if (patch.tag !== undefined) next.tag = patch.tag;
    if (patch.eid !== undefined) next.eid = storedEid(patch.eid);
    if (patch.sex !== undefined) next.sex = patch.sex;
    if (patch.breed !== undefined) next.breed = patch.breed;
    if (patch.birth_date !== undefined) next.birth_date = parseDateInput('birth_date', patch.birth_date);
    if (patch.group_id !== undefined) next.group_id = patch.group_id;
    if (patch.paddock_id !== undefined) next.paddock_id = patch.paddock_id;
    if (patch.status !== undefined) next.status = patch.status;
    if (patch.dam_id !== undefined) next.dam_id = patch.dam_id;
    if (patch.sire_id !== undefined) next.sire_id = patch.sire_id;
    if (patch.sire_name !== undefined) next.sire_name = patch.sire_name;
    if (patch.sire_registration !== undefined) next.sire_registration = patch.sire_registration;
    // A sire from the herd replaces an outside one named before (and the reverse), unless both are sent.
    if (patch.sire_id && patch.sire_name === undefined) {
      next.sire_name = null;
      if (patch.sire_registration === undefined) next.sire_registration = null;
    }
    if (patch.sire_name && patch.sire_id === undefined) next.sire_id = null;
    // Sold or slaughtered inside its meat withdrawal: refused (409) unless override_reason says why.
    const leaving = next.status !== row.status && isLeavingStatus(next.status);
    const held = leaving ? checkLeaving([row], now, patch.override_reason) : [];
    if (patch.notes !== undefined) next.notes = patch.notes;
    if (patch.fields !== undefined) {
      // Members merge one level deep; null removes a member; `fields: null` clears everything.
      const merged: Record<string, unknown> =
        patch.fields === null ? {} : { ...parseJson<Record<string, unknown>>(row.fields, {}) };
      for (const [key, value] of Object.entries(patch.fields ?? {})) {
        if (value === null) delete merged[key];
        else merged[key] = value;
      }
      // Capped as stored, after the merge: PATCHes of new members would otherwise grow it without bound.
      next.fields = mergedFreeFormJson('fields', merged, row.fields);
    }
    next.search_text = searchTextOf(next);
    next.changed_at = now;

    const groupChanged = next.group_id !== row.group_id;
    const paddockChanged = next.paddock_id !== row.paddock_id;
    if (groupChanged && next.group_id) {
      await requireReference(trx, row.farm_id, 'group', next.group_id, 'group_id');
    }
    if (paddockChanged && next.paddock_id) {
      await requireReference(trx, row.farm_id, 'paddock', next.paddock_id, 'paddock_id');
    }
    if (next.eid !== row.eid) await checkEidFree(trx, next);
    await checkLineage(
      trx,
      scope,
      next,
      {
        dam: next.dam_id !== row.dam_id || next.species !== row.species,
        sire: next.sire_id !== row.sire_id || next.species !== row.species,
      },
      row,
    );
    if (next.sex !== row.sex || next.species !== row.species) await checkAsParent(trx, scope, next);

    await saveRecord(trx, 'animal', next);
    if (groupChanged || paddockChanged) {
      await recordMove(trx, row, { group_id: next.group_id, paddock_id: next.paddock_id }, null, now);
    }
    if (paddockChanged) await rebuildStays(trx, row.farm_id, 'animal', row.id);
    if (held.length > 0 && patch.override_reason !== undefined) {
      await recordStatusOverride(trx, row, next.status, patch.override_reason, held, now);
    }
    return toAnimal(next);
  };
  return withEidGuard(storedEid(patch.eid), () => inTransaction(db, run));
}

/**
 * A status change to sold or slaughtered inside the meat withdrawal, overridden: the reason goes into the
 * animal's history (a `withdrawal_override` event) and out as `withdrawal.overridden`.
 */
async function recordStatusOverride(
  trx: Db,
  row: AnimalRow,
  status: string,
  reason: string,
  held: HeldAnimal[],
  now: number,
): Promise<void> {
  const event = await recordFarmEvent(
    trx,
    row.farm_id,
    {
      type: WITHDRAWAL_OVERRIDE_EVENT,
      subject_type: 'animal',
      subject_id: row.id,
      data: { action: 'status', from: row.status, status, override_reason: reason, animals: held },
      at: now,
    },
    now,
  );
  await emitWithdrawalOverridden(
    trx,
    row.farm_id,
    { action: 'status', override_reason: reason, event_id: event.id, animals: held },
    now,
  );
}

/** Logs an animal's move from where `row` says it was to `to`; `reason` says why when not a PATCH. */
export async function recordMove(
  db: Db,
  row: Pick<AnimalRow, 'id' | 'farm_id' | 'group_id' | 'paddock_id'>,
  to: { group_id: string | null; paddock_id: string | null },
  reason: string | null,
  now: number,
): Promise<FarmEvent> {
  return recordFarmEvent(
    db,
    row.farm_id,
    {
      type: 'move',
      subject_type: 'animal',
      subject_id: row.id,
      data: {
        from: { group_id: row.group_id, paddock_id: row.paddock_id },
        to,
        ...(reason ? { reason } : {}),
      },
      at: now,
    },
    now,
  );
}

/**
 * Takes every animal out of a group or paddock that is being deleted: clears the reference and logs a
 * `move` for each (reason `group_deleted` or `paddock_deleted`). Runs in the caller's transaction.
 */
export async function removeAnimalsFrom(
  trx: Db,
  farmId: string,
  field: 'group_id' | 'paddock_id',
  id: string,
  now: number,
): Promise<void> {
  const animals = await animalsIn(trx, farmId, field, id);
  const reason = field === 'group_id' ? 'group_deleted' : 'paddock_deleted';
  for (const animal of animals) {
    const to = { group_id: animal.group_id, paddock_id: animal.paddock_id, [field]: null };
    await recordMove(trx, animal, to, reason, now);
  }
  await clearAnimalsFrom(trx, field, id, now);
}

/** Deletes the animal. Its farm events stay in the log (history is not rewritten). */
export async function deleteAnimal(db: Db, scope: Scope, id: string): Promise<{ id: string; deleted: true }> {
  const row = await loadScoped(db, scope, 'animal', id);
  await inTransaction(db, async (trx) => {
    await deleteRecord(trx, 'animal', row.id);
    await recordRemovals(trx, row.farm_id, [row.id], Date.now());
  });
  return { id: row.id, deleted: true };
}

/** The animal's farm events (treatments, weights, moves…), newest first. */
export async function getAnimalHistory(
  db: Db,
  scope: Scope,
  animalId: string,
  limit = 50,
): Promise<FarmEvent[]> {
  const row = await loadScoped(db, scope, 'animal', animalId);
  return listSubjectEvents(
    db,
    row.farm_id,
    row.id,
    Math.min(Math.max(1, Math.floor(limit)), MAX_PAGE_SIZE),
    scope.policy,
  );
}

/** Forgets the ids of animals deleted more than REMOVALS_KEPT_MS ago (the daily job); returns how many. */
export async function pruneAnimalRemovals(db: Db, now: number): Promise<number> {
  return deleteRemovalsBefore(db, now - REMOVALS_KEPT_MS);
}
