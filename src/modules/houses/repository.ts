import type { Db } from '../../db/schema.ts';
import type { DeviceRow } from '../devices/repository.ts';

/** A farm's house devices, oldest first (House 1 before House 2). */
export function houseRows(db: Db, farmId: string): Promise<DeviceRow[]> {
  return db
    .selectFrom('devices')
    .selectAll()
    .where('farm_id', '=', farmId)
    .where('type', '=', 'house')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}
