import type { Selectable } from 'kysely';
import type { FarmEventsTable } from '../../db/tables/records.ts';
import { parseJson } from '../../lib/json.ts';
import { toIso } from '../../lib/time.ts';
import type { FarmEvent } from './schemas.ts';

export type FarmEventRow = Selectable<FarmEventsTable>;

export function toFarmEvent(row: FarmEventRow): FarmEvent {
  return {
    id: row.id,
    farm_id: row.farm_id,
    type: row.type,
    subject_type: row.subject_type,
    subject_id: row.subject_id,
    data: parseJson<Record<string, unknown>>(row.data, {}),
    at: toIso(row.at),
    created_at: toIso(row.created_at),
  };
}
