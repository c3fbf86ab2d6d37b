import { sql } from 'kysely';
import { fetchPage, type Page, type PageRequest } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import type { DeviceRow } from '../devices/repository.ts';

/** A house row with the text its recent commands carry (params and result, counted in SQL). */
export type HouseRow = DeviceRow & { commands_text: number | string };

/**
 * One page of a farm's house devices, oldest first (House 1 before House 2). The page budget counts each
 * house's state and the text of its `recentCommands` latest commands, so a page of houses with large
 * states and commands ends early (docs/data.md, "Memory") instead of being read whole.
 */
export function houseRowsPage(
  db: Db,
  farmId: string,
  page: PageRequest,
  recentCommands: number,
): Promise<Page<HouseRow>> {
  const query = db
    .selectFrom('devices')
    .selectAll()
    .select(
      sql<number | string>`(select coalesce(sum(length(c.params) + coalesce(length(c.result), 0)), 0)
        from commands c where c.id in (select r.id from commands r where r.device_id = devices.id
        order by r.created_at desc, r.id desc limit ${recentCommands}))`.as('commands_text'),
    )
    .where('farm_id', '=', farmId)
    .where('type', '=', 'house');
  return fetchPage(query, page, (row) => row as HouseRow, 'created_at', {
    order: 'asc',
    alsoCarries: (row) => Number(row.commands_text),
  });
}

/** Every house of a farm by id and name only (house_command's choice of house), oldest first. */
export function houseNames(db: Db, farmId: string): Promise<{ id: string; name: string }[]> {
  return db
    .selectFrom('devices')
    .select(['id', 'name'])
    .where('farm_id', '=', farmId)
    .where('type', '=', 'house')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}
