import type { Selectable } from 'kysely';
import { fetchPage, type Page, type PageRequest } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import type { FarmEventsTable } from '../../db/tables/records.ts';
import type { Policy } from '../../domain/permissions.ts';
import { ALERT_FARM_EVENT_TYPES, mayReadAlertFarmEvents } from '../../domain/webhook-events.ts';
import { parseJson } from '../../lib/json.ts';
import { toIso } from '../../lib/time.ts';
import type { EventFilters, FarmEvent } from './schemas.ts';

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

/**
 * The farm's event log, newest `at` first, one page (paged by (at, id)). Without alerts:read in `policy`
 * the alert engine's events are left out in SQL, so pages stay full and cursors right.
 */
export async function eventPage(
  db: Db,
  farmId: string,
  filters: EventFilters,
  page: PageRequest,
  policy: Policy | undefined,
): Promise<Page<FarmEvent>> {
  let query = db.selectFrom('farm_events').selectAll().where('farm_id', '=', farmId);
  if (!mayReadAlertFarmEvents(policy)) query = query.where('type', 'not in', ALERT_FARM_EVENT_TYPES);
  if (filters.type !== undefined) query = query.where('type', '=', filters.type);
  if (filters.subject_id !== undefined) query = query.where('subject_id', '=', filters.subject_id);
  if (filters.subject_type !== undefined) query = query.where('subject_type', '=', filters.subject_type);
  return fetchPage(query, page, toFarmEvent, 'at');
}

/** Events whose subject is this record, newest `at` first (an animal's history). */
export async function listSubjectEvents(
  db: Db,
  farmId: string,
  subjectId: string,
  limit: number,
  policy: Policy | undefined,
): Promise<FarmEvent[]> {
  let query = db
    .selectFrom('farm_events')
    .selectAll()
    .where('farm_id', '=', farmId)
    .where('subject_id', '=', subjectId);
  if (!mayReadAlertFarmEvents(policy)) query = query.where('type', 'not in', ALERT_FARM_EVENT_TYPES);
  const rows = await query.orderBy('at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  return rows.map(toFarmEvent);
}
