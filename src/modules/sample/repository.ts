/** The sample farm's direct reads and writes: clearing it for a reset, and its seed's outbox rows. */
import type { Db } from '../../db/schema.ts';
import type { DevicePositionsTable } from '../../db/tables/devices.ts';
import { SEQ_NEVER_STREAMED } from '../../db/tables/foundation.ts';
import { ACTIVE_ALERT_STATUSES } from '../../domain/statuses.ts';
import { animalIdsOf, recordRemovals } from '../animals/repository.ts';
import type { Scope } from '../farms/access.ts';
import { bumpRulesVersion } from '../rules/repository.ts';

/**
 * Deletes everything the sample farm holds, keeping the farm row, its webhooks and their deliveries.
 * Devices go first (their readings, latest values and commands cascade with them), then what points
 * at animals, groups and paddocks, then those.
 */
export async function clearFarmContents(db: Db, farmId: string): Promise<void> {
  await db.deleteFrom('devices').where('farm_id', '=', farmId).execute();
  await db.deleteFrom('commands').where('farm_id', '=', farmId).execute();
  await db.deleteFrom('alerts').where('farm_id', '=', farmId).execute();
  await db.deleteFrom('alert_watermarks').where('farm_id', '=', farmId).execute();
  await db.deleteFrom('alert_breaches').where('farm_id', '=', farmId).execute();
  await db.deleteFrom('rules').where('farm_id', '=', farmId).execute();
  await bumpRulesVersion(db, farmId);
  await db.deleteFrom('tasks').where('farm_id', '=', farmId).execute();
  await db.deleteFrom('farm_events').where('farm_id', '=', farmId).execute();
  // The herd book: treatments refer to medicines (and batches, which go with their medicine).
  await db.deleteFrom('treatments').where('farm_id', '=', farmId).execute();
  await db.deleteFrom('medicines').where('farm_id', '=', farmId).execute();
  await db.deleteFrom('movements').where('farm_id', '=', farmId).execute();
  await db.deleteFrom('weigh_sessions').where('farm_id', '=', farmId).execute();
  await recordRemovals(db, farmId, await animalIdsOf(db, farmId), Date.now());
  await db.deleteFrom('animals').where('farm_id', '=', farmId).execute();
  await db.deleteFrom('animal_groups').where('farm_id', '=', farmId).execute();
  await db.deleteFrom('paddocks').where('farm_id', '=', farmId).execute();
}

/** The farm's outbox rows not yet dispatched (so the seed can tell its own rows apart). */
export async function pendingOutboxIds(db: Db, farmId: string): Promise<Set<string>> {
  const rows = await db
    .selectFrom('outbox')
    .select('id')
    .where('farm_id', '=', farmId)
    .where('dispatched_at', 'is', null)
    .execute();
  return new Set(rows.map((r) => r.id));
}

/**
 * Marks the seed's own outbox rows dispatched, never streamed and read by the notification planner, so no
 * webhook, live stream or person gets them.
 */
export async function markSeedEventsDispatched(
  db: Db,
  farmId: string,
  pendingBefore: ReadonlySet<string>,
  now: number,
): Promise<void> {
  let query = db
    .updateTable('outbox')
    .set({ dispatched_at: now, seq: SEQ_NEVER_STREAMED, notified_at: now })
    .where('farm_id', '=', farmId)
    .where('dispatched_at', 'is', null);
  if (pendingBefore.size > 0) query = query.where('id', 'not in', [...pendingBefore]);
  await query.execute();
}

/** Which of these EIDs the account already uses among its animals in the scope's mode. */
export async function takenEids(db: Db, scope: Scope, eids: readonly string[]): Promise<Set<string>> {
  if (eids.length === 0) return new Set();
  const rows = await db
    .selectFrom('animals')
    .select('eid')
    .where('account_id', '=', scope.accountId)
    .where('mode', '=', scope.mode)
    .where('eid', 'in', [...eids])
    .execute();
  return new Set(rows.map((r) => r.eid).filter((e): e is string => e !== null));
}

/** The id of the farm's active alert under a rule (the oldest, if several subjects have one). */
export async function findActiveAlertId(db: Db, farmId: string, rule: string): Promise<string | null> {
  const row = await db
    .selectFrom('alerts')
    .select('id')
    .where('farm_id', '=', farmId)
    .where('rule', '=', rule)
    .where('status', 'in', ACTIVE_ALERT_STATUSES)
    .orderBy('created_at')
    .orderBy('id')
    .executeTakeFirst();
  return row?.id ?? null;
}

/** A device's seeded track history at once (the day's own positions come through ingest). */
export async function insertSampleTrack(db: Db, rows: readonly DevicePositionsTable[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('device_positions').values(rows).execute();
}
