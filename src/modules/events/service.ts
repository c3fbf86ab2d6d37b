import type { Page, PageRequest } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import { inTransaction, lockRows } from '../../db/transaction.ts';
import { conflict, invalid, notFound } from '../../domain/errors.ts';
import { serverFarmEventWriter } from '../../domain/farm-events.ts';
import { mayReadFarmEvent } from '../../domain/webhook-events.ts';
import { parseJson } from '../../lib/json.ts';
import { type FarmRow, requireFarm, type Scope } from '../farms/access.ts';
import { parseRecordAt } from '../records/inputs.ts';
import { patchSubject, resolveSubject } from '../records/references.ts';
import { deleteRecord, loadScoped, saveRecord } from '../records/scoped.ts';
import {
  checkMove,
  isMovableKind,
  MOVE_EVENT,
  type MoveInput,
  rebuildStays,
  rebuildStaysOf,
} from '../stays/service.ts';
import { recordFarmEvent } from './record.ts';
import { eventPage, type FarmEventRow, toFarmEvent } from './repository.ts';
import type { CreateEventInput, EventFilters, FarmEvent, UpdateEventInput } from './schemas.ts';

export { type RecordFarmEventInput, recordFarmEvent } from './record.ts';
export { toFarmEvent } from './repository.ts';
export type { FarmEvent } from './schemas.ts';

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

/**
 * The types only the server writes are its own (src/domain/farm-events.ts): a client cannot log one, nor rename
 * an event into one (it would pass for the alert engine's escalation, or a withdrawal override).
 */
function checkClientType(type: string | undefined): void {
  const writer = type === undefined ? null : serverFarmEventWriter(type);
  if (writer !== null) {
    throw invalid('type', `type "${type}" is written only by ${writer}; log your event under another type.`);
  }
}

/**
 * An event of a type only the server writes stays as written: a client can neither edit it (nor rename it out
 * of its type, which would also take an escalation out of the alerts:read filter) nor delete it. 409, since it
 * is the event that refuses, whoever asks (as a treatment's log entry does, modules/treatments).
 */
function checkClientMayChange(row: FarmEventRow): void {
  const writer = serverFarmEventWriter(row.type);
  if (writer !== null) {
    throw conflict(
      `Event ${row.id} (${row.type}) was written by ${writer}: the log keeps it as written, so it cannot be edited or deleted.`,
    );
  }
}

/**
 * Logs a `move` event and applies it (its subject's stays, modules/stays), in one transaction: the one way a
 * move is recorded, whether it comes from the event route, MCP's log_event, a task marked done or a house's
 * flock (modules/grazing). The input is checked as `checkMove` does.
 */
export async function recordMove(db: Db, farmId: string, input: MoveInput, now: number): Promise<FarmEvent> {
  return inTransaction(db, async (trx) => {
    await checkMove(trx, farmId, MOVE_EVENT, input, now);
    const event = await recordFarmEvent(
      trx,
      farmId,
      {
        type: MOVE_EVENT,
        subject_type: input.subject_type,
        subject_id: input.subject_id,
        data: input.data,
        at: input.at,
      },
      now,
    );
    if (isMovableKind(input.subject_type) && input.subject_id) {
      await rebuildStays(trx, farmId, input.subject_type, input.subject_id);
    }
    return event;
  });
}

/** A client's event as it is about to be logged (subject checked, `at` parsed). */
export interface ClientEvent {
  type: string;
  subject_type: string | null;
  subject_id: string | null;
  /** With `override_reason` in it when the request gave one. */
  data: Record<string, unknown>;
  at: number;
  override_reason: string | null;
}

/**
 * What a client's event sets in motion above events, handed in by whoever registers the route or tool (the
 * herd book's, modules/treatments: a sale inside a withdrawal is refused, a treatment naming a medicine becomes
 * a structured treatment). Runs in the event's transaction; `log` stores the event as this module would, with
 * the data given; the hook answers the event stored. `scope` is the caller's: what the event names on other
 * farms (a service's sire) must be on a farm it sees.
 */
export type ClientEventHook = (
  trx: Db,
  farm: FarmRow,
  event: ClientEvent,
  log: (data: Record<string, unknown>) => Promise<FarmEvent>,
  now: number,
  scope: Scope,
) => Promise<FarmEvent>;

/**
 * What an event's edit or deletion sets in motion above events (the herd book's, modules/breeding: a breeding
 * record's female has her state folded again). Runs in the edit's transaction after the row is saved or
 * deleted, for every event (the hook reads only the farm it needs): `before` is the event as it was, `after`
 * as it is now (null when it was deleted).
 */
export type EventChangeHook = (
  trx: Db,
  scope: Scope,
  before: FarmEvent,
  after: FarmEvent | null,
  now: number,
) => Promise<void>;

/**
 * Logs an event from a client: the subject, when of a known kind, must be on the same farm. `override_reason`
 * is kept in the event's data. `hook`, when given, decides how it is stored (see ClientEventHook).
 */
export async function createEvent(
  db: Db,
  scope: Scope,
  farmId: string,
  input: CreateEventInput,
  now: number = Date.now(),
  hook?: ClientEventHook,
): Promise<FarmEvent> {
  checkClientType(input.type);
  const run = async (trx: Db): Promise<FarmEvent> => {
    const farm = await requireFarm(trx, scope, farmId);
    const subject = await resolveSubject(trx, farm.id, input.subject_type ?? null, input.subject_id ?? null);
    const overrideReason = input.override_reason ?? null;
    const fields = {
      ...subject,
      data: overrideReason === null ? (input.data ?? {}) : { ...input.data, override_reason: overrideReason },
      at: input.at === undefined ? now : parseRecordAt('at', input.at, farm.timezone),
    };
    const log = async (data: Record<string, unknown>): Promise<FarmEvent> => {
      const event = { ...fields, data };
      // A move to a paddock moves its animal or group (grazing), in this transaction.
      if (await checkMove(trx, farm.id, input.type, event, now)) return recordMove(trx, farm.id, event, now);
      return recordFarmEvent(trx, farm.id, { type: input.type, ...event }, now);
    };
    if (!hook) return log(fields.data);
    return hook(trx, farm, { type: input.type, ...fields, override_reason: overrideReason }, log, now, scope);
  };
  return inTransaction(db, run);
}

export async function updateEvent(
  db: Db,
  scope: Scope,
  id: string,
  patch: UpdateEventInput,
  onChange?: EventChangeHook,
): Promise<FarmEvent> {
  checkClientType(patch.type);
  return inTransaction(db, async (trx) => {
    // Locked before it is read: the row is written back from what was read.
    await lockRows(trx, 'farm_events', id);
    const row = await loadReadable(trx, scope, id);
    checkClientMayChange(row);
    const next: FarmEventRow = { ...row };
    if (patch.type !== undefined) next.type = patch.type;
    if (patch.data !== undefined) next.data = JSON.stringify(patch.data ?? {});
    if (patch.at !== undefined) {
      next.at = parseRecordAt('at', patch.at, (await requireFarm(trx, scope, row.farm_id)).timezone);
    }
    Object.assign(next, await patchSubject(trx, row.farm_id, row, patch));
    // Only what a move is made of is checked again: an old move to a paddock since deleted can still be edited.
    const reshaped = [patch.type, patch.data, patch.at, patch.subject_id, patch.subject_type].some(
      (member) => member !== undefined,
    );
    const stored = { ...next, data: parseJson<Record<string, unknown>>(next.data, {}) };
    const moves = reshaped && (await checkMove(trx, row.farm_id, next.type, stored, Date.now()));
    await saveRecord(trx, 'event', next);
    // A move changed (or is one no longer): its subjects' stays follow (before and after the change).
    if (reshaped && (moves || row.type === MOVE_EVENT)) {
      await rebuildStaysOf(trx, row.farm_id, row);
      if (next.subject_id !== row.subject_id) await rebuildStaysOf(trx, row.farm_id, next);
    }
    const after = toFarmEvent(next);
    if (onChange) await onChange(trx, scope, toFarmEvent(row), after, Date.now());
    return after;
  });
}

/** Deletes the event; a deleted move no longer counts in its subject's stays; `onChange` as updateEvent's. */
export async function deleteEvent(
  db: Db,
  scope: Scope,
  id: string,
  onChange?: EventChangeHook,
): Promise<{ id: string; deleted: true }> {
  return inTransaction(db, async (trx) => {
    const row = await loadReadable(trx, scope, id);
    checkClientMayChange(row);
    await deleteRecord(trx, 'event', row.id);
    if (row.type === MOVE_EVENT) await rebuildStaysOf(trx, row.farm_id, row);
    if (onChange) await onChange(trx, scope, toFarmEvent(row), null, Date.now());
    return { id: row.id, deleted: true as const };
  });
}
