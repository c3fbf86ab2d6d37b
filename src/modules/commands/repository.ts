import type { Selectable } from 'kysely';
import type { CommandsTable } from '../../db/tables/devices.ts';
import { parseJson } from '../../lib/json.ts';
import { toIso } from '../../lib/time.ts';
import type { Command } from './schemas.ts';

export type CommandRow = Selectable<CommandsTable>;

export function toCommand(row: CommandRow): Command {
  return {
    id: row.id,
    farm_id: row.farm_id,
    device_id: row.device_id,
    command: row.command,
    params: parseJson<Record<string, unknown>>(row.params, {}),
    status: row.status,
    result: parseJson<Record<string, unknown> | null>(row.result, null),
    created_at: toIso(row.created_at),
    delivered_at: toIso(row.delivered_at),
    done_at: toIso(row.done_at),
    expires_at: toIso(row.expires_at),
    delivery_attempts: row.delivery_attempts,
    redeliver_after_s: row.redeliver_after_s,
  };
}

/** Oldest first, the order a device should carry commands out in. */
export function byCreation(a: CommandRow, b: CommandRow): number {
  return a.created_at - b.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
