import type { Selectable } from 'kysely';
import type { FarmsTable } from '../../db/tables/foundation.ts';
import { parseJson } from '../../lib/json.ts';
import { toIso } from '../../lib/time.ts';
import type { Farm } from './schemas.ts';

export function toFarm(row: Selectable<FarmsTable>): Farm {
  return {
    id: row.id,
    name: row.name,
    mode: row.mode,
    timezone: row.timezone,
    lat: row.lat,
    lon: row.lon,
    acres: row.acres,
    sample: row.sample === 1,
    settings: parseJson<Record<string, unknown>>(row.settings, {}),
    created_at: toIso(row.created_at),
  };
}
