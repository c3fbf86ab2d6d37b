/**
 * Movements on and off the holding (issue 46, docs/records.md): the holding register. A move off marks the
 * animals gone (domain/movements.ts `statusAfterMoveOff`) and goes through the withdrawal check every leaving
 * does (animals/withdrawal.ts `checkLeaving`); a move on marks them active. Only an animal's latest movement
 * sets its status, and it must be possible (`refusedMove`: not sold twice, not back from the dead). Each movement appears in the farm
 * event log as a `movement` event and is sent as `movement.created`: all in one transaction.
 */
import type { Page, PageRequest } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import { conflict, invalid } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import {
  MOVEMENT_EVENT,
  type MovementReason,
  refusedMove,
  STATUS_AFTER_MOVE_ON,
  statusAfterMoveOff,
} from '../../domain/movements.ts';
import { checkLeaving, emitWithdrawalOverridden } from '../animals/withdrawal.ts';
import { recordFarmEvent } from '../events/record.ts';
import type { EventChangeHook } from '../events/service.ts';
import { requireFarm, type Scope } from '../farms/access.ts';
import { parseRecordAt, requireDone } from '../records/inputs.ts';
import { loadScoped } from '../records/scoped.ts';
import { lockedAnimals } from '../treatments/service.ts';
import { emitEvent } from '../webhooks/emit.ts';
import {
  insertMovement,
  type MovementRow,
  movedLater,
  movementOfEvent,
  movementPage,
  setAnimalsStatus,
  toMovement,
} from './repository.ts';
import type { CreateMovementInput, Movement } from './schemas.ts';

export async function listMovements(
  db: Db,
  scope: Scope,
  farmId: string,
  query: { since?: string | undefined; until?: string | undefined },
  page: PageRequest,
): Promise<Page<Movement>> {
  const farm = await requireFarm(db, scope, farmId);
  return movementPage(db, farm.id, rangeOf(query, farm.timezone), page);
}

/** `since`/`until` as epoch ms (each a clear 400 when it is not a date; a date alone the farm's day). */
export function rangeOf(
  query: { since?: string | undefined; until?: string | undefined },
  timeZone: string,
): {
  since?: number;
  until?: number;
} {
  return {
    ...(query.since === undefined ? {} : { since: parseRecordAt('since', query.since, timeZone) }),
    ...(query.until === undefined ? {} : { until: parseRecordAt('until', query.until, timeZone) }),
  };
}

export async function getMovement(db: Db, scope: Scope, id: string): Promise<Movement> {
  return toMovement(await loadScoped(db, scope, 'movement', id));
}

/** POST /v1/farms/{farm}/movements. */
export async function createMovement(
  db: Db,
  scope: Scope,
  farmId: string,
  input: CreateMovementInput,
  now: number = Date.now(),
): Promise<Movement> {
  const hasList = input.animal_ids !== undefined;
  if (hasList === (input.head_count !== undefined)) {
    throw invalid(
      hasList ? 'head_count' : 'animal_ids',
      'Name what moved: animal_ids, or head_count for a mob without EIDs, one of them.',
    );
  }
  return inTransaction(db, async (trx) => {
    const farm = await requireFarm(trx, scope, farmId);
    const at = parseRecordAt('at', input.at, farm.timezone);
    requireDone('at', at, now, 'a movement');
    const animals = hasList
      ? await lockedAnimals(trx, farm, { animal_ids: input.animal_ids }, 'animal_ids')
      : [];
    const leaving = input.direction === 'off';
    // The status follows each animal's latest movement: one entered late goes in the register only.
    const later = await movedLater(
      trx,
      farm.id,
      at,
      animals.map((a) => a.id),
    );
    const latest = animals.filter((a) => !later.has(a.id));
    for (const animal of latest) {
      const why = refusedMove(input.direction, animal.status);
      if (why) {
        const index = animals.indexOf(animal);
        throw conflict(
          `${animal.tag ?? animal.name ?? animal.id} cannot be moved ${input.direction}: ${why}.`,
          `animal_ids[${index}]`,
        );
      }
    }
    // Off the holding inside a meat withdrawal: refused (409) unless override_reason says why.
    const held = leaving ? checkLeaving(animals, at, input.override_reason) : [];
    const id = newId('movement', now);
    const ids = animals.map((a) => a.id);
    const row: MovementRow = {
      id,
      farm_id: farm.id,
      direction: input.direction,
      at,
      animal_ids: hasList ? JSON.stringify(ids) : null,
      head_count: hasList ? ids.length : (input.head_count ?? 0),
      species:
        input.species ??
        (animals.length > 0 && animals.every((a) => a.species === animals[0]?.species)
          ? (animals[0]?.species ?? null)
          : null),
      other_holding: input.other_holding,
      reason: input.reason,
      transporter: input.transporter ?? null,
      vehicle: input.vehicle ?? null,
      override_reason: held.length > 0 ? (input.override_reason ?? null) : null,
      event_id: null,
      created_at: now,
    };
    const event = await recordFarmEvent(
      trx,
      farm.id,
      {
        type: MOVEMENT_EVENT,
        // One animal moved: its history shows the move (and any override); a mob or a list has no one subject.
        ...(ids.length === 1 ? { subject_type: 'animal' as const, subject_id: ids[0] } : {}),
        data: {
          movement_id: id,
          direction: row.direction,
          animal_ids: ids,
          head_count: row.head_count,
          other_holding: row.other_holding,
          reason: row.reason,
          ...(row.override_reason ? { override_reason: row.override_reason } : {}),
        },
        at,
      },
      now,
    );
    row.event_id = event.id;
    await insertMovement(trx, row);
    if (latest.length > 0) {
      const status = leaving ? statusAfterMoveOff(input.reason as MovementReason) : STATUS_AFTER_MOVE_ON;
      await setAnimalsStatus(
        trx,
        farm.id,
        latest.map((a) => a.id),
        status,
        now,
      );
    }
    if (held.length > 0 && row.override_reason !== null) {
      const override = {
        action: 'movement' as const,
        override_reason: row.override_reason,
        event_id: event.id,
        animals: held,
      };
      await emitWithdrawalOverridden(trx, farm.id, override, now);
    }
    const movement = toMovement(row);
    await emitEvent(trx, farm.id, 'movement.created', movement, now);
    return movement;
  });
}

/**
 * A movement's log entry cannot be edited or deleted as a free-form event: the holding register keeps each
 * movement as recorded (an inspector reads it; a mistake is put right by another movement), and the log must
 * say what the register says. 409 naming the movement.
 */
export const movementEventChanged: EventChangeHook = async (trx, _scope, before) => {
  if (before.type.trim().toLowerCase() !== MOVEMENT_EVENT) return;
  const id = await movementOfEvent(trx, before.farm_id, before.id);
  if (id === null) return;
  throw conflict(
    `This event is the log entry of movement ${id} in the holding register, which keeps movements as recorded: record a correcting movement instead (POST /v1/farms/{farm}/movements).`,
  );
};
