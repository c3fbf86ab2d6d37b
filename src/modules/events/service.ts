import type { Page, PageRequest } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import { inTransaction, lockRows } from '../../db/transaction.ts';
import { invalid, notFound } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { subjectKindOfId } from '../../domain/record-kinds.ts';
import { isAlertFarmEvent, mayReadFarmEvent } from '../../domain/webhook-events.ts';
import { requireFarm, type Scope } from '../farms/access.ts';
import { parseDateInput } from '../records/inputs.ts';
import { patchSubject, resolveSubject } from '../records/references.ts';
import { deleteRecord, insertRecord, loadScoped, saveRecord } from '../records/scoped.ts';
import { emitEvent } from '../webhooks/emit.ts';
import { eventPage, type FarmEventRow, toFarmEvent } from './repository.ts';
import type { CreateEventInput, EventFilters, FarmEvent, UpdateEventInput } from './schemas.ts';

export { toFarmEvent } from './repository.ts';
export type { FarmEvent } from './schemas.ts';

export interface RecordFarmEventInput {
  type: string;
  subject_type?: string | null;
  subject_id?: string | null;
  data?: Record<string, unknown>;
  /** When it happened, epoch ms; default `now`. */
  at?: number;
}

/**
 * Writes one farm event and its `event.created` webhook event in the same transaction (the caller's
 * when `db` is one). No access check: callers have already checked the farm. Device ingest, the alert
 * engine and move logging call this; the API goes through createEvent, which checks the subject.
 */
export async function recordFarmEvent(
  db: Db,
  farmId: string,
  input: RecordFarmEventInput,
  now: number = Date.now(),
): Promise<FarmEvent> {
  const subjectId = input.subject_id ?? null;
  const row: FarmEventRow = {
    id: newId('event', now),
    farm_id: farmId,
    type: input.type,
    subject_type: input.subject_type ?? (subjectId ? subjectKindOfId(subjectId) : null),
    subject_id: subjectId,
    data: JSON.stringify(input.data ?? {}),
    at: input.at ?? now,
    created_at: now,
  };
  const run = async (trx: Db): Promise<FarmEvent> => {
    await insertRecord(trx, 'event', row);
    const event = toFarmEvent(row);
    await emitEvent(trx, farmId, 'event.created', event, now);
    return event;
  };
  return inTransaction(db, run);
}

/** The farm's event log, newest `at` first; pages by (at, id). */
export async function listEvents(
  db: Db,
  scope: Scope,
  farmId: string,
  filters: EventFilters,
  page: PageRequest,
): Promise<Page<FarmEvent>> {
  const farm = await requireFarm(db, scope, farmId);
  return eventPage(db, farm.id, filters, page, scope.policy);
}

/**
 * An event the caller may read: one the alert engine wrote is missing (404, like any id it cannot see) to a
 * caller without alerts:read.
 */
async function loadReadable(db: Db, scope: Scope, id: string): Promise<FarmEventRow> {
  const row = await loadScoped(db, scope, 'event', id);
  if (!mayReadFarmEvent(scope.policy, row.type)) throw notFound('event', id);
  return row;
}

export async function getEvent(db: Db, scope: Scope, id: string): Promise<FarmEvent> {
  return toFarmEvent(await loadReadable(db, scope, id));
}

/** The alert engine's event types are its own: a client cannot log one (it would pass for an alert). */
function checkClientType(type: string | undefined): void {
  if (type !== undefined && isAlertFarmEvent(type)) {
    throw invalid(
      'type',
      `type "${type}" is written only by the alert engine; log your event under another type.`,
    );
  }
}

/** Logs an event from a client: the subject, when of a known kind, must be on the same farm. */
export async function createEvent(
  db: Db,
  scope: Scope,
  farmId: string,
  input: CreateEventInput,
  now: number = Date.now(),
): Promise<FarmEvent> {
  checkClientType(input.type);
  const run = async (trx: Db): Promise<FarmEvent> => {
    const farm = await requireFarm(trx, scope, farmId);
    const subject = await resolveSubject(trx, farm.id, input.subject_type ?? null, input.subject_id ?? null);
    return recordFarmEvent(
      trx,
      farm.id,
      {
        type: input.type,
        ...subject,
        data: input.data ?? {},
        at: input.at === undefined ? now : parseDateInput('at', input.at),
      },
      now,
    );
  };
  return inTransaction(db, run);
}

export async function updateEvent(
  db: Db,
  scope: Scope,
  id: string,
  patch: UpdateEventInput,
): Promise<FarmEvent> {
  checkClientType(patch.type);
  return inTransaction(db, async (trx) => {
    // Locked before it is read: the row is written back from what was read.
    await lockRows(trx, 'farm_events', id);
    const row = await loadReadable(trx, scope, id);
    const next: FarmEventRow = { ...row };
    if (patch.type !== undefined) next.type = patch.type;
    if (patch.data !== undefined) next.data = JSON.stringify(patch.data ?? {});
    if (patch.at !== undefined) next.at = parseDateInput('at', patch.at);
    Object.assign(next, await patchSubject(trx, row.farm_id, row, patch));
    await saveRecord(trx, 'event', next);
    return toFarmEvent(next);
  });
}

export async function deleteEvent(db: Db, scope: Scope, id: string): Promise<{ id: string; deleted: true }> {
  const row = await loadReadable(db, scope, id);
  await deleteRecord(db, 'event', row.id);
  return { id: row.id, deleted: true };
}
