/** Alert queries and the one row → Alert mapping. */
import { type Expression, type Selectable, type SqlBool, sql, type Updateable } from 'kysely';
import type { Db } from '../../db/schema.ts';
import type { AlertSeverity, AlertStatus, AlertsTable } from '../../db/tables/alerts.ts';
import { ACTIVE_ALERT_PREDICATE } from '../../db/tables/alerts.ts';
import { toIso } from '../../lib/time.ts';
import type { Alert } from './schemas.ts';

export type AlertRow = Selectable<AlertsTable>;

export const ACTIVE_STATUSES: readonly AlertStatus[] = ['open', 'acknowledged'];

/** Lists sort on this rank: most urgent first. */
export const SEVERITY_RANK: Readonly<Record<AlertSeverity, number>> = { urgent: 0, watch: 1, info: 2 };

export function toAlert(row: AlertRow): Alert {
  return {
    id: row.id,
    farm_id: row.farm_id,
    severity: row.severity,
    title: row.title,
    reason: row.reason,
    rule: row.rule,
    subject_type: row.subject_type,
    subject_id: row.subject_id,
    status: row.status,
    created_at: toIso(row.created_at),
    updated_at: toIso(row.updated_at),
    acknowledged_at: toIso(row.acknowledged_at),
    resolved_at: toIso(row.resolved_at),
  };
}

export interface AlertKey {
  farmId: string;
  rule: string;
  subjectType: string;
  subjectId: string;
}

/** The active (open or acknowledged) alert for a farm, rule and subject, if there is one. */
export async function findActiveAlert(db: Db, key: AlertKey): Promise<AlertRow | undefined> {
  return db
    .selectFrom('alerts')
    .selectAll()
    .where('farm_id', '=', key.farmId)
    .where('rule', '=', key.rule)
    .where('subject_type', '=', key.subjectType)
    .where('subject_id', '=', key.subjectId)
    .where('status', 'in', ACTIVE_STATUSES)
    .executeTakeFirst();
}

/** A farm's active alerts opened by one rule, whatever their subject. */
export async function findActiveAlertsOfRule(db: Db, farmId: string, rule: string): Promise<AlertRow[]> {
  return db
    .selectFrom('alerts')
    .selectAll()
    .where('farm_id', '=', farmId)
    .where('rule', '=', rule)
    .where('status', 'in', ACTIVE_STATUSES)
    .execute();
}

/** A farm's active alerts about one subject, whatever their rule. */
export async function findActiveAlertsOfSubject(
  db: Db,
  farmId: string,
  subjectType: string,
  subjectId: string,
): Promise<AlertRow[]> {
  return db
    .selectFrom('alerts')
    .selectAll()
    .where('farm_id', '=', farmId)
    .where('subject_type', '=', subjectType)
    .where('subject_id', '=', subjectId)
    .where('status', 'in', ACTIVE_STATUSES)
    .execute();
}

/**
 * Inserts an active alert unless one is already active for its farm, rule and subject (the unique
 * partial index decides, so a concurrent transaction's alert counts too). Returns the new row, or
 * null when another active alert holds the slot. The conflict target repeats the index predicate
 * as literal SQL so both engines match it to the partial index.
 */
export async function insertActiveAlert(db: Db, row: AlertRow): Promise<AlertRow | null> {
  const inserted = await db
    .insertInto('alerts')
    .values(row)
    .onConflict((oc) =>
      oc
        .columns(['farm_id', 'rule', 'subject_type', 'subject_id'])
        .where(sql<SqlBool>`${sql.raw(ACTIVE_ALERT_PREDICATE)}`)
        .doNothing(),
    )
    .returningAll()
    .executeTakeFirst();
  return inserted ?? null;
}

/**
 * Updates an alert only while it is in one of `from` (and, optionally, at `severity`); returns the
 * updated row, or null when the alert had already moved on. Conditional updates make each
 * transition happen once even when two transactions race for it.
 */
export async function transitionAlert(
  db: Db,
  id: string,
  from: readonly AlertStatus[],
  set: Updateable<AlertsTable>,
  onlySeverity?: AlertSeverity,
): Promise<AlertRow | null> {
  let query = db.updateTable('alerts').set(set).where('id', '=', id).where('status', 'in', from);
  if (onlySeverity) query = query.where('severity', '=', onlySeverity);
  const row = await query.returningAll().executeTakeFirst();
  return row ?? null;
}

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
 * The index on last_seen_at keeps it to the silent devices; the farm's own setting is applied after.
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

export async function clearDeviceQuiet(db: Db, deviceId: string): Promise<void> {
  await db.updateTable('devices').set({ quiet_level: null }).where('id', '=', deviceId).execute();
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

/**
 * Returns the device's latest evaluated reading time for the metric (null if none yet) and holds
 * the watermark row for the rest of the transaction: the upsert writes the row, so on PostgreSQL a
 * second report of the same device waits here until the first commits, then reads its watermark.
 */
export async function lockWatermark(
  db: Db,
  farmId: string,
  deviceId: string,
  metric: string,
): Promise<number | null> {
  const row = await db
    .insertInto('alert_watermarks')
    .values({ device_id: deviceId, metric, farm_id: farmId, at: null })
    .onConflict((oc) =>
      oc.columns(['device_id', 'metric']).doUpdateSet((eb) => ({ farm_id: eb.ref('excluded.farm_id') })),
    )
    .returning('at')
    .executeTakeFirstOrThrow();
  return row.at === null ? null : Number(row.at);
}

export async function saveWatermark(db: Db, deviceId: string, metric: string, at: number): Promise<void> {
  await db
    .updateTable('alert_watermarks')
    .set({ at })
    .where('device_id', '=', deviceId)
    .where('metric', '=', metric)
    .execute();
}

/** What alert wording needs of an animal: its name, tag and group. */
export async function findAnimalLabel(
  db: Db,
  farmId: string,
  animalId: string,
): Promise<{ name: string | null; tag: string | null; group_id: string | null } | undefined> {
  return db
    .selectFrom('animals')
    .select(['name', 'tag', 'group_id'])
    .where('id', '=', animalId)
    .where('farm_id', '=', farmId)
    .executeTakeFirst();
}

/** A device's stored readings of a metric in [from, to], for a rate rule's window. */
export async function findWindowReadings(
  db: Db,
  deviceId: string,
  metric: string,
  from: number,
  to: number,
): Promise<Array<{ at: number; value: number }>> {
  const rows = await db
    .selectFrom('readings')
    .select(['at', 'value'])
    .where('device_id', '=', deviceId)
    .where('metric', '=', metric)
    .where('at', '>=', from)
    .where('at', '<=', to)
    .execute();
  return rows.map((r) => ({ at: Number(r.at), value: r.value }));
}

/**
 * The start of a sustained breach, kept per (device, rule) beside the watermark and read and written
 * under its lock, so separate reports and several processes see one window.
 */
export async function findBreachSince(db: Db, deviceId: string, rule: string): Promise<number | null> {
  const row = await db
    .selectFrom('alert_breaches')
    .select('since')
    .where('device_id', '=', deviceId)
    .where('rule', '=', rule)
    .executeTakeFirst();
  return row ? Number(row.since) : null;
}

export async function saveBreachSince(
  db: Db,
  key: { farmId: string; deviceId: string; rule: string },
  since: number | null,
): Promise<void> {
  if (since === null) {
    await db
      .deleteFrom('alert_breaches')
      .where('device_id', '=', key.deviceId)
      .where('rule', '=', key.rule)
      .execute();
    return;
  }
  await db
    .insertInto('alert_breaches')
    .values({ device_id: key.deviceId, rule: key.rule, farm_id: key.farmId, since })
    .onConflict((oc) => oc.columns(['device_id', 'rule']).doUpdateSet({ since }))
    .execute();
}

/** A page of a farm's alerts in list order (most urgent, then newest), `limit` rows. */
export async function findAlertsPage(
  db: Db,
  farmId: string,
  status: 'active' | 'all' | AlertStatus,
  condition: Expression<SqlBool>,
  limit: number,
): Promise<AlertRow[]> {
  let query = db.selectFrom('alerts').selectAll().where('farm_id', '=', farmId);
  if (status === 'active') query = query.where('status', 'in', ACTIVE_STATUSES);
  else if (status !== 'all') query = query.where('status', '=', status);
  return query
    .where(condition)
    .orderBy('severity_rank', 'asc')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
