import type { DeviceCaller } from '../../calls/callers.ts';
import { forgetDevice } from '../../calls/key-cache.ts';
import { BUS_CHANNELS, notify } from '../../db/notify.ts';
import { fetchPage, type Page, type PageRequest } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import { inTransaction, lockRows } from '../../db/transaction.ts';
import { invalid } from '../../domain/errors.ts';
import { defaultHouseState } from '../../domain/house-state.ts';
import { newId } from '../../domain/ids.ts';
import { parseJson } from '../../lib/json.ts';
import { hashSecret, newDeviceKey } from '../../lib/secrets.ts';
import { resolveAlertsOfSubject } from '../alerts/service.ts';
import { requireFarm, type Scope } from '../farms/access.ts';
import { placeDevice } from '../grazing/placement.ts';
import { loadScoped } from '../records/scoped.ts';
import { emitEvent } from '../webhooks/emit.ts';
import {
  type DeviceRow,
  deleteDeviceRows,
  deviceByKeyHash,
  devicesOnFarm,
  existsOnFarm,
  insertDevice,
  placeOf,
  toDevice,
  updateDeviceRow,
} from './repository.ts';
import type { CreateDeviceInput, Device, DeviceListFilters, UpdateDeviceInput } from './schemas.ts';
import { mergeState } from './state.ts';

/**
 * What else must learn of a device's key, handed in by buildApp (the external broker's logins: modules/mqtt
 * dynsec.ts), in the process that made the change.
 */
export interface DeviceKeyHooks {
  /**
   * A key is being issued: the device created, or its key rotated (the old key stops working). Called last
   * inside the change's transaction: when it throws (the broker unreachable: 503), nothing was changed.
   */
  keyIssued(deviceId: string, key: string): Promise<void>;
  /** The device was deleted (after the commit; a hook logs its own failures). */
  removed(deviceId: string): Promise<void>;
}

/** No one else to tell: the embedded broker looks keys up itself. */
export const NO_DEVICE_KEY_HOOKS: DeviceKeyHooks = Object.freeze({
  keyIssued: async () => {},
  removed: async () => {},
});

/** Throws 400 naming `param` unless the animal or group exists on the farm. */
async function checkReference(
  db: Db,
  farmId: string,
  table: 'animals' | 'animal_groups',
  id: string,
  param: string,
): Promise<void> {
  if (!(await existsOnFarm(db, table, id, farmId))) {
    const what = table === 'animals' ? 'an animal' : 'a group';
    throw invalid(param, `${param} "${id}" is not ${what} on this farm.`);
  }
}

async function checkReferences(
  db: Db,
  farmId: string,
  input: { animal_id?: string | null | undefined; group_id?: string | null | undefined },
): Promise<void> {
  if (input.animal_id) await checkReference(db, farmId, 'animals', input.animal_id, 'animal_id');
  if (input.group_id) await checkReference(db, farmId, 'animal_groups', input.group_id, 'group_id');
}

/** A new device's state: a house starts with the complete default house state, others empty. */
function initialState(type: string): Record<string, unknown> {
  return type === 'house' ? { ...defaultHouseState() } : {};
}

export async function listDevices(
  db: Db,
  scope: Scope,
  farmId: string,
  filters: DeviceListFilters,
  page: PageRequest,
): Promise<Page<Device>> {
  const farm = await requireFarm(db, scope, farmId);
  return fetchPage(devicesOnFarm(db, farm.id, filters), page, toDevice);
}

export async function getDevice(db: Db, scope: Scope, deviceId: string): Promise<Device> {
  return toDevice(await loadScoped(db, scope, 'device', deviceId));
}

/**
 * Adds a device to a farm and issues its key. The key is in the result only (it is stored hashed):
 * the caller shows it once. Emits `device.created` (without the key) in the same transaction.
 */
export async function createDevice(
  db: Db,
  scope: Scope,
  farmId: string,
  input: CreateDeviceInput,
  options: { now?: number; hooks?: DeviceKeyHooks } = {},
): Promise<Device & { device_key: string }> {
  const now = options.now ?? Date.now();
  const created = await inTransaction(db, async (trx) => {
    const farm = await requireFarm(trx, scope, farmId);
    await checkReferences(trx, farm.id, input);
    const key = newDeviceKey();
    const row: DeviceRow = {
      id: newId('device', now),
      farm_id: farm.id,
      type: input.type,
      name: input.name,
      serial: input.serial ?? null,
      animal_id: input.animal_id ?? null,
      group_id: input.group_id ?? null,
      firmware: input.firmware ?? null,
      lat: input.lat ?? null,
      lon: input.lon ?? null,
      battery: null,
      status_at: null,
      state: JSON.stringify(initialState(input.type)),
      clock_skewed: 0,
      key_hash: key.hash,
      key_prefix: key.prefix,
      last_seen_at: null,
      created_at: now,
      report_gap_ms: null,
      quiet_level: null,
      report_token: null,
      report_token_prev: null,
      paddock_id: null,
      placed_lat: null,
      placed_lon: null,
    };
    await insertDevice(trx, row);
    if (row.lat !== null && row.lon !== null) {
      await placeDevice(trx, row.id, now, false);
      Object.assign(row, await placeOf(trx, row.id));
    }
    const device = toDevice(row);
    await emitEvent(trx, farm.id, 'device.created', device, now);
    await options.hooks?.keyIssued(device.id, key.key);
    return { ...device, device_key: key.key };
  });
  return created;
}

export async function updateDevice(
  db: Db,
  scope: Scope,
  deviceId: string,
  input: UpdateDeviceInput,
): Promise<Device> {
  return inTransaction(db, async (trx) => {
    // Locked before it is read: a device that becomes a house gets its state merged with what is stored,
    // and an ingest report merging state at the same time must not be overwritten.
    await lockRows(trx, 'devices', deviceId);
    const device = await loadScoped(trx, scope, 'device', deviceId);
    await checkReferences(trx, device.farm_id, input);
    const patch: Partial<DeviceRow> = {};
    if (input.type !== undefined) patch.type = input.type;
    if (input.name !== undefined) patch.name = input.name;
    if (input.serial !== undefined) patch.serial = input.serial;
    if (input.animal_id !== undefined) patch.animal_id = input.animal_id;
    if (input.group_id !== undefined) patch.group_id = input.group_id;
    if (input.firmware !== undefined) patch.firmware = input.firmware;
    if (input.lat !== undefined) patch.lat = input.lat;
    if (input.lon !== undefined) patch.lon = input.lon;
    if (input.type === 'house' && device.type !== 'house') {
      // A device that becomes a house gets every part of the house state it does not report yet.
      const stored = parseJson<Record<string, unknown>>(device.state, {});
      patch.state = JSON.stringify(mergeState({ ...defaultHouseState() }, stored));
    }
    if (Object.keys(patch).length > 0) {
      await updateDeviceRow(trx, device.id, patch);
    }
    if (patch.lat !== undefined || patch.lon !== undefined) {
      // A position set by hand places the device like a reported one.
      await placeDevice(trx, device.id, Date.now(), false);
      Object.assign(patch, await placeOf(trx, device.id));
    }
    return toDevice({ ...device, ...patch });
  });
}

/** Deletes the device with its readings and commands; its key stops working at once. */
export async function deleteDevice(
  db: Db,
  scope: Scope,
  deviceId: string,
  now: number = Date.now(),
  hooks: DeviceKeyHooks = NO_DEVICE_KEY_HOOKS,
): Promise<{ id: string; deleted: true }> {
  const deleted = await inTransaction(db, async (trx) => {
    const device = await loadScoped(trx, scope, 'device', deviceId);
    // Nothing would ever report to resolve them: a deleted device's alerts resolve with it.
    const subject = { farmId: device.farm_id, type: 'device', id: device.id };
    await resolveAlertsOfSubject(trx, subject, `device ${device.name} was deleted`, now, {
      key: 'resolved.device_deleted',
      params: { device: device.name },
    });
    await deleteDeviceRows(trx, device.id);
    // Its MQTT connections (in any process) close now rather than at the next periodic check.
    await notify(trx, BUS_CHANNELS.deviceKeys, device.id);
    return { id: device.id, deleted: true as const };
  });
  forgetDevice(deleted.id);
  await hooks.removed(deleted.id);
  return deleted;
}

/** Issues a new key for the device; the old one stops working at once. */
export async function rotateDeviceKey(
  db: Db,
  scope: Scope,
  deviceId: string,
  hooks: DeviceKeyHooks = NO_DEVICE_KEY_HOOKS,
): Promise<{ id: string; device_key: string; key_prefix: string }> {
  const key = newDeviceKey();
  const device = await inTransaction(db, async (trx) => {
    const device = await loadScoped(trx, scope, 'device', deviceId);
    await updateDeviceRow(trx, device.id, { key_hash: key.hash, key_prefix: key.prefix });
    await notify(trx, BUS_CHANNELS.deviceKeys, device.id);
    await hooks.keyIssued(device.id, key.key);
    return device;
  });
  forgetDevice(device.id);
  return { id: device.id, device_key: key.key, key_prefix: key.prefix };
}

/**
 * The device a key belongs to, with its farm's account and mode, or null for an unknown, rotated or
 * deleted key. Looked up by hash (auth.ts caches it briefly; rotation and deletion clear it everywhere).
 */
export async function authenticateDevice(db: Db, token: string): Promise<Omit<DeviceCaller, 'kind'> | null> {
  if (!/^rd_[0-9A-Za-z]+$/.test(token)) return null;
  const row = await deviceByKeyHash(db, hashSecret(token));
  if (!row) return null;
  return { deviceId: row.deviceId, farmId: row.farmId, accountId: row.account_id, mode: row.mode };
}
