/** The houses view: each house device with its state, latest value per metric and recent commands. */
import type { Db } from '../../db/schema.ts';
import { notFound } from '../../domain/errors.ts';
import { recentCommands } from '../commands/repository.ts';
import { type DeviceRow, toDevice } from '../devices/repository.ts';
import { requireFarm, type Scope } from '../farms/access.ts';
import { latestReadings } from '../readings/service.ts';
import { loadScoped } from '../records/scoped.ts';
import { houseRows } from './repository.ts';
import type { House } from './schemas.ts';

/** How many of a house's commands the view carries. */
export const HOUSE_RECENT_COMMANDS = 10;

async function toHouses(db: Db, rows: readonly DeviceRow[]): Promise<House[]> {
  const ids = rows.map((r) => r.id);
  const [latest, commands] = await Promise.all([
    latestReadings(db, ids),
    recentCommands(db, ids, HOUSE_RECENT_COMMANDS),
  ]);
  return rows.map((row) => ({
    ...toDevice(row),
    latest_readings: latest[row.id] ?? {},
    recent_commands: commands[row.id] ?? [],
  }));
}

/** Every house on the farm, oldest first (House 1 before House 2). */
export async function getHouses(db: Db, scope: Scope, farmId: string): Promise<House[]> {
  const farm = await requireFarm(db, scope, farmId);
  const rows = await houseRows(db, farm.id);
  return toHouses(db, rows);
}

/** One house; a device that is not a house is 404 like a missing one. */
export async function getHouse(db: Db, scope: Scope, deviceId: string): Promise<House> {
  const row = await loadScoped(db, scope, 'house', deviceId);
  if (row.type !== 'house') throw notFound('house', deviceId);
  const [house] = await toHouses(db, [row]);
  if (!house) throw notFound('house', deviceId);
  return house;
}
