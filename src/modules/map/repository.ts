import type { Db } from '../../db/schema.ts';

/** How far back a house's move.to_paddock commands are looked for: its newest few (one is its plan). */
const MOVES_PER_HOUSE = 5;

/**
 * A house's move.to_paddock commands that may still be under way (not failed), newest first: the pending
 * ones wait to be carried out, a done one is the plan its state's `move.target_paddock_id` follows.
 */
export async function houseMoveCommands(db: Db, deviceId: string) {
  return db
    .selectFrom('commands')
    .select(['id', 'params', 'status', 'created_at'])
    .where('device_id', '=', deviceId)
    .where('command', '=', 'move.to_paddock')
    .where('status', 'in', ['queued', 'delivered', 'done'])
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(MOVES_PER_HOUSE)
    .execute();
}
