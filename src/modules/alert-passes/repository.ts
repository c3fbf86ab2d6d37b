/** The queries of the background passes: device.quiet (quiet.ts) and group.intake_drop (intake.ts). */
import { type SqlBool, sql } from 'kysely';
import type { Db } from '../../db/schema.ts';
import { ACTIVE_ALERT_PREDICATE } from '../../db/tables/alerts.ts';
import type { AlertRow } from '../alerts/repository.ts';

/** A device the quiet pass looks at, with its farm's settings and the quiet alert it has now. */
export interface QuietCandidateRow {
  id: string;
  farm_id: string;
  type: string;
  name: string;
  last_seen_at: number;
  report_gap_ms: number | null;
  quiet_level: 'watch' | 'urgent' | null;
  settings: string;
}

/**
 * The quiet pass's one query: devices silent past the least any farm can set (`floorMs`) and past 3 ×
 * their usual interval (`unknownMs` when it is not known yet), that have no quiet alert yet or have a watch one that may now be urgent.
 * It reads the devices table whole (no index on last_seen_at, so that a report's device update changes no
 * index: migration 0048; 100,000 devices in 30–50 ms); the farm's own setting is applied after.
 */
export async function findQuietCandidates(
  db: Db,
  now: number,
  opts: {
    floorMs: number;
    factor: number;
    unknownMs: number;
    urgentMs: number;
    urgentTypes: readonly string[];
    farmId?: string | undefined;
  },
): Promise<QuietCandidateRow[]> {
  let query = db
    .selectFrom('devices as d')
    .innerJoin('farms as f', 'f.id', 'd.farm_id')
    .select([
      'd.id',
      'd.farm_id',
      'd.type',
      'd.name',
      'd.last_seen_at',
      'd.report_gap_ms',
      'd.quiet_level',
      'f.settings',
    ])
    .where('d.last_seen_at', '<=', now - opts.floorMs)
    .where(
      sql<SqlBool>`d.last_seen_at + coalesce(${opts.factor} * d.report_gap_ms, ${opts.unknownMs}) <= ${now}`,
    )
    .where((eb) =>
      eb.or([
        eb('d.quiet_level', 'is', null),
        eb.and([
          eb('d.quiet_level', '=', 'watch'),
          eb('d.type', 'in', opts.urgentTypes),
          eb('d.last_seen_at', '<=', now - opts.urgentMs),
        ]),
      ]),
    );
  if (opts.farmId !== undefined) query = query.where('d.farm_id', '=', opts.farmId);
  const rows = await query.execute();
  return rows.map((r) => ({ ...r, last_seen_at: Number(r.last_seen_at) }));
}

/**
 * Sets a device's quiet level, only if it has not reported since the pass read it: a report that
 * commits first wins (the device is not quiet), and this row lock makes a later report wait and then
 * see the level, so its ingest resolves the alert.
 */
export async function markDeviceQuiet(
  db: Db,
  deviceId: string,
  lastSeenAt: number,
  level: 'watch' | 'urgent',
): Promise<boolean> {
  const row = await db
    .updateTable('devices')
    .set({ quiet_level: level })
    .where('id', '=', deviceId)
    .where('last_seen_at', '=', lastSeenAt)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Marks many devices quiet at once (see markDeviceQuiet): each only if it still has no quiet level and
 * has not reported since the pass read it. Returns the ids marked.
 */
export async function markDevicesQuiet(
  db: Db,
  devices: ReadonlyArray<{ id: string; last_seen_at: number }>,
  level: 'watch' | 'urgent',
): Promise<Set<string>> {
  if (devices.length === 0) return new Set();
  const pairs = sql.join(devices.map((d) => sql`(${d.id}, ${d.last_seen_at})`));
  const rows = await db
    .updateTable('devices')
    .set({ quiet_level: level })
    .where('quiet_level', 'is', null)
    .where(sql<SqlBool>`(id, last_seen_at) in (${pairs})`)
    .returning('id')
    .execute();
  return new Set(rows.map((r) => r.id));
}

/** insertActiveAlert for many rows in one statement; returns the rows inserted. */
export async function insertActiveAlerts(db: Db, rows: readonly AlertRow[]): Promise<AlertRow[]> {
  if (rows.length === 0) return [];
  return db
    .insertInto('alerts')
    .values([...rows])
    .onConflict((oc) =>
      oc
        .columns(['farm_id', 'rule', 'subject_type', 'subject_id'])
        .where(sql<SqlBool>`${sql.raw(ACTIVE_ALERT_PREDICATE)}`)
        .doNothing(),
    )
    .returningAll()
    .execute();
}

/** Forgets every quiet mark on a farm's devices (device.quiet was turned off and its alerts resolved). */
export async function clearFarmQuiet(db: Db, farmId: string): Promise<void> {
  await db
    .updateTable('devices')
    .set({ quiet_level: null })
    .where('farm_id', '=', farmId)
    .where('quiet_level', 'is not', null)
    .execute();
}

/** A group the intake roll-up watches: it has a head count and house or water devices in it. */
export interface IntakeGroupRow {
  group_id: string;
  group_name: string;
  head_count: number;
  farm_id: string;
  timezone: string;
  settings: string;
  device_id: string;
}

/** Groups with a head count and their house and water devices (`devices.group_id`), one row per device. */
export async function findIntakeGroups(
  db: Db,
  deviceTypes: readonly string[],
  farmId?: string,
): Promise<IntakeGroupRow[]> {
  let query = db
    .selectFrom('animal_groups as g')
    .innerJoin('devices as d', 'd.group_id', 'g.id')
    .innerJoin('farms as f', 'f.id', 'g.farm_id')
    .select([
      'g.id as group_id',
      'g.name as group_name',
      'g.head_count',
      'g.farm_id',
      'f.timezone',
      'f.settings',
      'd.id as device_id',
    ])
    .where('g.head_count', '>', 0)
    .where('d.type', 'in', deviceTypes)
    .orderBy('g.id');
  if (farmId !== undefined) query = query.where('g.farm_id', '=', farmId);
  const rows = await query.execute();
  return rows.map((r) => ({ ...r, head_count: Number(r.head_count) }));
}

/** The readings of some metrics of some devices in [from, to). */
export async function findReadingsBetween(
  db: Db,
  deviceIds: readonly string[],
  metrics: readonly string[],
  from: number,
  to: number,
): Promise<Array<{ metric: string; value: number; at: number }>> {
  if (deviceIds.length === 0) return [];
  const rows = await db
    .selectFrom('readings')
    .select(['metric', 'value', 'at'])
    .where('device_id', 'in', deviceIds)
    .where('metric', 'in', metrics)
    .where('at', '>=', from)
    .where('at', '<', to)
    .execute();
  return rows.map((r) => ({ metric: r.metric, value: Number(r.value), at: Number(r.at) }));
}
