/**
 * Where each device stands (docs/grazing.md): its paddock from its position, by point in polygon over the
 * farm's outlines (geometry.ts), worked out when a report or an edit moves it (`placeDevice`) and for the
 * whole farm when an outline changes (`placeFarmDevices`). A house crossing into another paddock changes
 * its stay, logs its move and moves its flock through the events service's `recordMove`. A reported position
 * leaves a paddock only once it is more than BOUNDARY_MARGIN_M outside it, so a house parked at a fence
 * does not cross it with every wobble of its GPS.
 */
import type { Trx } from '../../db/schema.ts';
import { lockRows } from '../../db/transaction.ts';
import { newId } from '../../domain/ids.ts';
import { recordFarmEvent, recordMove } from '../events/service.ts';
import { closeOpenStays, findMovable, insertStay } from '../stays/repository.ts';
import { MOVE_EVENT } from '../stays/service.ts';
import { metresOutside, type PaddockShape, paddockAt } from './geometry.ts';
import {
  devicesWithPosition,
  findPlacedDevice,
  type PlacedDevice,
  paddockShapes,
  setDevicePlace,
} from './repository.ts';

/**
 * A house that crossed into another paddock: its stay changes at `at`, the farm log gets a `move` of the
 * house (reason `position`), and the flock it holds (its group) moves with it through the events service's
 * `recordMove`. A
 * house placed for the first time (just added, or its first position) only begins its stay: being added
 * somewhere is not a move, and does not move its flock.
 */
async function houseCrossed(trx: Trx, device: PlacedDevice, to: string | null, at: number): Promise<void> {
  const first = device.placed_lat === null && device.placed_lon === null && device.paddock_id === null;
  await closeOpenStays(trx, device.id, at);
  if (to) {
    await insertStay(trx, {
      id: newId('stay', at),
      farm_id: device.farm_id,
      paddock_id: to,
      subject_type: 'house',
      subject_id: device.id,
      name: device.name,
      from_at: at,
      until_at: null,
      move_id: null,
    });
  }
  if (first) return;
  await recordFarmEvent(
    trx,
    device.farm_id,
    {
      type: MOVE_EVENT,
      subject_type: 'device',
      subject_id: device.id,
      data: { from: { paddock_id: device.paddock_id }, to: { paddock_id: to }, reason: 'position' },
      at,
    },
    at,
  );
  const flock = device.group_id
    ? await findMovable(trx, device.farm_id, 'group', device.group_id)
    : undefined;
  if (flock && flock.paddock_id !== to) {
    await recordMove(
      trx,
      device.farm_id,
      {
        subject_type: 'group',
        subject_id: flock.id,
        data: { to_paddock_id: to, reason: 'house_moved', house_id: device.id },
        at,
      },
      at,
    );
  }
}

/**
 * How far outside its paddock a reported position may be and still count as in it: a consumer GPS wanders
 * a few metres, and a house parked at a fence would otherwise log a move (and move its flock, and restart
 * the paddock's rest) each time a fix falls on the other side.
 */
export const BOUNDARY_MARGIN_M = 5;

/**
 * The paddock the device's position is in (`shapes`: the farm's outlines), or null. With `margin` (a
 * reported position), a device stays in its paddock while it is at most BOUNDARY_MARGIN_M outside it;
 * moving into a smaller paddock drawn inside it, or anywhere from no paddock, needs no margin.
 */
function paddockOf(device: PlacedDevice, shapes: PaddockShape[], margin = false): string | null {
  if (device.lat === null || device.lon === null) return null;
  const found = paddockAt(shapes, device.lat, device.lon);
  if (!margin || device.paddock_id === null || found === device.paddock_id) return found;
  const current = shapes.find((s) => s.id === device.paddock_id);
  const outside = current ? metresOutside(current, device.lat, device.lon) : null;
  return outside !== null && outside > 0 && outside <= BOUNDARY_MARGIN_M ? device.paddock_id : found;
}

/** Sets a device's paddock (and the position it was placed from); a house records the crossing. */
async function place(trx: Trx, device: PlacedDevice, paddock: string | null, at: number): Promise<void> {
  await setDevicePlace(trx, device.id, { paddock_id: paddock, lat: device.lat, lon: device.lon });
  if (paddock !== device.paddock_id && device.type === 'house') await houseCrossed(trx, device, paddock, at);
}

/**
 * Derives the device's paddock from its position, after a report (`reported`: the boundary margin holds
 * it in its paddock) or a person's edit (placed exactly where they put it) moved it. Runs in the caller's
 * transaction; the device row is already locked by the caller's update.
 */
export async function placeDevice(trx: Trx, deviceId: string, at: number, reported: boolean): Promise<void> {
  const device = await findPlacedDevice(trx, deviceId);
  if (!device) return;
  await place(trx, device, paddockOf(device, await paddockShapes(trx, device.farm_id), reported), at);
}

/**
 * After a paddock's outline changed (or a paddock was added or deleted): every device of the farm with a
 * position is placed again. Locks the devices in id order (the lock order: records of a farm).
 */
export async function placeFarmDevices(trx: Trx, farmId: string, at: number): Promise<void> {
  const seen = await devicesWithPosition(trx, farmId);
  if (seen.length === 0) return;
  await lockRows(
    trx,
    'devices',
    seen.map((d) => d.id),
  );
  // Read again under the locks: a report may have moved one in between.
  const devices = await devicesWithPosition(trx, farmId);
  const shapes = await paddockShapes(trx, farmId);
  for (const device of devices) {
    const paddock = paddockOf(device, shapes);
    if (paddock !== device.paddock_id) await place(trx, device, paddock, at);
  }
}
