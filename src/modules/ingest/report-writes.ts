/**
 * A report's writes as each engine makes them, chosen here so that `ingestReport` reads the same on both.
 * PostgreSQL: the device update also stores the readings and latest values, hands out the device's commands
 * and reads the device's animal, in one statement (repository.ts, touchDeviceAndStorePg). SQLite, where a
 * statement costs no round trip: the device update reads the farm and whether commands are due, then the
 * position (when the report carries lat and lon), the readings and the commands follow as statements of
 * their own (touchDevice). PostgreSQL stores the position in its one statement too.
 */
import { isPostgres } from '../../db/engine.ts';
import type { Db } from '../../db/schema.ts';
import { storePosition } from '../../db/statements/device-positions.ts';
import type { AnimalLabelRow } from '../alert-engine/repository.ts';
import type { EngineFarm } from '../alert-engine/rule-cache.ts';
import { type CommandRow, handOutCommands } from '../commands/repository.ts';
import { newestPerMetric, type PreparedReading, storeReadings } from '../readings/service.ts';
import { touchDeviceAndStorePg } from './report-statement.ts';
import { type DeviceTouch, type ReportingDevice, touchDevice } from './repository.ts';

/** The reporting device as its update found it, and the report's remaining writes. */
export interface ReportWrites {
  device: ReportingDevice;
  farm: EngineFarm;
  /** The device's animal when the device update read it (null: none); undefined: the alert engine reads it. */
  animal?: AnimalLabelRow | null;
  /** Stores the readings and moves the latest values forward (nothing left to do when the update did). */
  storeReadings(): Promise<void>;
  /** The commands handed out to the device with this report, marked delivered: call it last. */
  handOutCommands(): Promise<CommandRow[]>;
}

/**
 * Stamps the report on its device row (locking it, so one device's reports merge state in turn) and reads
 * what the report needs next. `withState`: the report carries state to merge, so the device's is read.
 * Undefined: no such device, nothing written.
 */
export async function touchReportingDevice(
  trx: Db,
  deviceId: string,
  touch: DeviceTouch,
  readings: readonly PreparedReading[],
  withState: boolean,
): Promise<ReportWrites | undefined> {
  if (isPostgres(trx)) {
    const known = await touchDeviceAndStorePg(trx, deviceId, touch, readings, newestPerMetric(readings));
    if (!known) return undefined;
    return {
      device: known.device,
      farm: known.farm,
      animal: known.animal,
      storeReadings: async () => {},
      handOutCommands: async () => known.commands,
    };
  }
  const touched = await touchDevice(trx, deviceId, touch, withState);
  if (!touched) return undefined;
  // Every reported position is kept (docs/map.md); a report without one runs no statement for it.
  if (touch.lat !== undefined && touch.lon !== undefined) {
    const { id, farm_id } = touched.device;
    await storePosition(trx, {
      device_id: id,
      farm_id,
      lat: touch.lat,
      lon: touch.lon,
      // At the time the report was made: a late report's position takes its place in the track.
      at: touch.status_at ?? touch.last_seen_at,
    });
  }
  return {
    device: touched.device,
    farm: touched.farm,
    storeReadings: () => storeReadings(trx, touched.device, readings),
    handOutCommands: async () =>
      touched.commandsDue ? handOutCommands(trx, deviceId, touch.last_seen_at) : [],
  };
}
