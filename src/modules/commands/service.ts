import { DEFAULT_COMMAND_EXPIRY_S, DEFAULT_COMMAND_REDELIVER_S } from '../../config.ts';
import { BUS_CHANNELS, notify } from '../../db/notify.ts';
import type { Page, PageRequest } from '../../db/pagination.ts';
import type { Db, Trx } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import { validateDeviceCommand } from '../../domain/devices.ts';
import { conflict, invalid, notFound } from '../../domain/errors.ts';
import { applyHouseCommandToState } from '../../domain/house-commands.ts';
import { readHouseState } from '../../domain/house-state.ts';
import { newId } from '../../domain/ids.ts';
import type { CommandStatus } from '../../domain/statuses.ts';
import { parseJson } from '../../lib/json.ts';
import { metrics } from '../../lib/metrics.ts';
import type { DeviceRow } from '../devices/repository.ts';
import type { Scope } from '../farms/access.ts';
import { requireReference } from '../records/references.ts';
import { loadScoped, loadScopedOnFarm } from '../records/scoped.ts';
import { emitEvent } from '../webhooks/emit.ts';
import {
  byCreation,
  type CommandRow,
  commandPage,
  commandStatusOf,
  devicesWithDueCommands,
  expireDue,
  finishDelivered,
  handOutCommands,
  insertCommand,
  lockDeviceState,
  markDeviceSeen,
  saveDeviceState,
  toCommand,
} from './repository.ts';
import type { AnswerCommandInput, Command, QueueCommandInput } from './schemas.ts';

/** Validates a command for the device's type, then checks references the domain cannot see. */
async function validateForDevice(
  db: Db,
  device: DeviceRow,
  command: string,
  params: unknown,
): Promise<Record<string, unknown>> {
  const checked = validateDeviceCommand(device.type, command, params);
  if (!checked.ok) throw invalid(checked.param, checked.message);
  const paddockId = checked.params.paddock_id;
  if (device.type === 'house' && typeof paddockId === 'string') {
    await requireReference(db, device.farm_id, 'paddock', paddockId, 'params.paddock_id');
  }
  return checked.params;
}

/**
 * The simulated effect of a sample-farm command on the house's stored state. The device row is
 * locked before its state is read, so two simulated commands (or a command and a PATCH) at once cannot
 * lose each other's change.
 */
async function simulateOnHouse(
  trx: Trx,
  deviceId: string,
  command: string,
  params: Record<string, unknown>,
): Promise<void> {
  const stored = await lockDeviceState(trx, deviceId);
  // Parts a house never reported (or removed) take their defaults so the command has a state to act on.
  const current = readHouseState(parseJson<unknown>(stored, {}));
  const next = applyHouseCommandToState(current, command, params);
  await saveDeviceState(trx, deviceId, JSON.stringify(next));
}

/**
 * Queues a command for a device (201 `queued`, emits `command.queued`). On the sample farm the
 * command skips the queue: it is `done` at once with `result.simulated: true`, a house's stored
 * state changes as the command says, and `command.done` is emitted.
 */
export async function queueCommand(
  db: Db,
  scope: Scope,
  deviceId: string,
  input: QueueCommandInput,
  options: { now?: number; defaultExpirySeconds?: number; defaultRedeliverSeconds?: number } = {},
): Promise<Command> {
  const now = options.now ?? Date.now();
  const expiresIn = input.expires_in_s ?? options.defaultExpirySeconds ?? DEFAULT_COMMAND_EXPIRY_S;
  const redeliverAfter =
    input.redeliver_after_s ?? options.defaultRedeliverSeconds ?? DEFAULT_COMMAND_REDELIVER_S;
  return inTransaction(db, async (trx) => {
    const device = await loadScopedOnFarm(trx, scope, 'device', deviceId);
    const params = await validateForDevice(trx, device, input.command, input.params);
    const simulated = device.farm_sample === 1;
    const row: CommandRow = {
      id: newId('command', now),
      farm_id: device.farm_id,
      device_id: device.id,
      command: input.command,
      params: JSON.stringify(params),
      status: simulated ? 'done' : 'queued',
      result: simulated ? JSON.stringify({ simulated: true }) : null,
      created_at: now,
      delivered_at: simulated ? now : null,
      done_at: simulated ? now : null,
      expires_at: now + expiresIn * 1000,
      delivery_attempts: simulated ? 1 : 0,
      redeliver_after_s: redeliverAfter,
      redeliver_at: null,
    };
    if (simulated && device.type === 'house') await simulateOnHouse(trx, device.id, input.command, params);
    await insertCommand(trx, row);
    metrics.commands.inc({ status: row.status });
    const command = toCommand(row);
    await emitEvent(trx, device.farm_id, simulated ? 'command.done' : 'command.queued', command, now);
    // Connected devices (MQTT, in any process) get it pushed once this transaction commits.
    if (!simulated) await notify(trx, BUS_CHANNELS.deviceCommands, device.id);
    return command;
  });
}

/** A device's command history, newest first. */
export async function listCommands(
  db: Db,
  scope: Scope,
  deviceId: string,
  page: PageRequest,
  filters: { status?: CommandStatus | undefined } = {},
): Promise<Page<Command>> {
  const device = await loadScoped(db, scope, 'device', deviceId);
  return commandPage(db, device.id, page, filters);
}

/**
 * Hands the device the commands waiting for it, oldest first: queued ones, and delivered ones not answered
 * within their redelivery window (`redeliver_at` passed). With `everyOpen` (a new MQTT session, which may
 * have lost what was in flight) every unanswered command goes out again. Each hand-out counts in
 * `delivery_attempts` and restarts the window. One conditional UPDATE … RETURNING, so with several
 * processes a command is handed out once per window. Expired commands are never handed out.
 */
export async function pickUpCommands(
  db: Db,
  deviceId: string,
  now: number,
  options: { everyOpen?: boolean } = {},
): Promise<Command[]> {
  return deliveredCommands(await handOutCommands(db, deviceId, now, options));
}

/** Commands just handed out (marked delivered), counted and in creation order, as the device gets them. */
export function deliveredCommands(rows: CommandRow[]): Command[] {
  if (rows.length > 0) metrics.commands.inc({ status: 'delivered' }, rows.length);
  return rows.sort(byCreation).map(toCommand);
}

/** Of these devices, those with commands to hand out now (queued, or due again); for connected devices. */
export async function devicesWithCommandsDue(
  db: Db,
  deviceIds: readonly string[],
  now: number,
): Promise<string[]> {
  if (deviceIds.length === 0) return [];
  return devicesWithDueCommands(db, deviceIds, now);
}

/** GET /v1/device/commands: a poll counts as the device being seen. */
export async function pollCommands(
  db: Db,
  caller: { deviceId: string },
  now: number = Date.now(),
): Promise<Command[]> {
  return inTransaction(db, async (trx) => {
    await markDeviceSeen(trx, caller.deviceId, now);
    return pickUpCommands(trx, caller.deviceId, now);
  });
}

/**
 * A device's answer to a command it was given: stores `status` (done or failed) and `result`, sets
 * done_at and emits `command.done` / `command.failed`. Another device's command is 404; one not yet
 * delivered or already finished is 409, and nothing changes.
 */
export async function answerCommand(
  db: Db,
  caller: { deviceId: string },
  commandId: string,
  input: AnswerCommandInput,
  now: number = Date.now(),
): Promise<Command> {
  return inTransaction(db, async (trx) => {
    const row = await finishDelivered(trx, caller.deviceId, commandId, {
      status: input.status,
      result: JSON.stringify(input.result ?? {}),
      now,
    });
    if (!row) {
      const status = await commandStatusOf(trx, caller.deviceId, commandId);
      if (status === undefined) throw notFound('command', commandId);
      if (status === 'queued') {
        throw conflict(
          `Command ${commandId} has not been delivered yet; pick it up first (GET /v1/device/commands or an ingest report).`,
        );
      }
      throw conflict(`Command ${commandId} is already ${status}; it cannot be answered again.`);
    }
    metrics.commands.inc({ status: input.status });
    const command = toCommand(row);
    await emitEvent(
      trx,
      row.farm_id,
      input.status === 'done' ? 'command.done' : 'command.failed',
      command,
      now,
    );
    return command;
  });
}

/**
 * Fails every command still queued or delivered after its expiry, with `result.error = "expired"`,
 * emitting `command.failed` for each; in batches, one transaction each. Safe with several processes:
 * the UPDATE re-checks the status, so a command expires (and is announced) once. Returns how many.
 */
export async function expireDueCommands(
  db: Db,
  now: number = Date.now(),
  options: { batchSize?: number } = {},
): Promise<number> {
  const batchSize = options.batchSize ?? 200;
  let total = 0;
  for (;;) {
    const expired = await inTransaction(db, async (trx) => {
      const rows = await expireDue(trx, now, batchSize);
      for (const row of rows.sort(byCreation)) {
        await emitEvent(trx, row.farm_id, 'command.failed', toCommand(row), now);
      }
      if (rows.length > 0) metrics.commands.inc({ status: 'expired' }, rows.length);
      return rows.length;
    });
    total += expired;
    if (expired < batchSize) return total;
  }
}
