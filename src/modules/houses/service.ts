/** The houses view: each house device with its state, latest value per metric and recent commands. */
import type { Page, PageRequest } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import { notFound } from '../../domain/errors.ts';
import { recentCommands } from '../commands/repository.ts';
import { type DeviceRow, toDevice } from '../devices/repository.ts';
import { requireFarm, type Scope } from '../farms/access.ts';
import { latestReadings } from '../readings/service.ts';
import { loadScoped } from '../records/scoped.ts';
import { houseNames, houseRowsPage } from './repository.ts';
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

/**
 * One page of the farm's houses, oldest first (House 1 before House 2): a farm of fewer houses than the
 * page's `limit` with ordinary states is answered whole; a large one pages like every list (`has_more`,
 * `next_before`), within the same 2 MiB budget, which here counts each house's recent commands too.
 */
export async function getHouses(
  db: Db,
  scope: Scope,
  farmId: string,
  page: PageRequest,
): Promise<Page<House>> {
  const farm = await requireFarm(db, scope, farmId);
  const rows = await houseRowsPage(db, farm.id, page, HOUSE_RECENT_COMMANDS);
  const data = await toHouses(
    db,
    rows.data.map(({ commands_text: _text, ...row }) => row),
  );
  return { ...rows, data };
}

/** Every house of the farm by id and name (no state, no commands), oldest first. */
export async function listHouseNames(
  db: Db,
  scope: Scope,
  farmId: string,
): Promise<{ id: string; name: string }[]> {
  const farm = await requireFarm(db, scope, farmId);
  return houseNames(db, farm.id);
}

/** One house; a device that is not a house is 404 like a missing one. */
export async function getHouse(db: Db, scope: Scope, deviceId: string): Promise<House> {
  const row = await loadScoped(db, scope, 'house', deviceId);
  if (row.type !== 'house') throw notFound('house', deviceId);
  const [house] = await toHouses(db, [row]);
  if (!house) throw notFound('house', deviceId);
  return house;
}
