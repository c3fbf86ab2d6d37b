/**
 * The brief's reads. Each is one indexed query over a farm's current state (active alerts, open tasks,
 * devices, latest values, paddocks); raw readings are touched only for the few devices that have been
 * silent for a while, and then only their last few readings of one metric.
 */
import { sql } from 'kysely';
import { isPostgres } from '../../db/engine.ts';
import { pgTexts } from '../../db/pg-arrays.ts';
import type { Db } from '../../db/schema.ts';
import { ACTIVE_ALERT_STATUSES } from '../../domain/statuses.ts';
import { CLOSED_TASK_STATUSES } from '../../domain/tasks.ts';
import { DAY_MS } from '../../lib/time.ts';
import { type AlertRow, SEVERITY_RANK } from '../alerts/repository.ts';
import type { TaskRow } from '../tasks/repository.ts';

export interface AlertCounts {
  urgent: number;
  watch: number;
  info: number;
}

/** Active (open or acknowledged) alerts, most severe first, oldest first within a severity. */
export async function activeAlerts(
  db: Db,
  farmId: string,
  limit: number,
): Promise<{ rows: AlertRow[]; counts: AlertCounts }> {
  const [rows, grouped] = await Promise.all([
    db
      .selectFrom('alerts')
      .selectAll()
      .where('farm_id', '=', farmId)
      .where('status', 'in', ACTIVE_ALERT_STATUSES)
      .orderBy('severity_rank')
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit)
      .execute(),
    db
      .selectFrom('alerts')
      .select(['severity_rank', (eb) => eb.fn.countAll<number>().as('n')])
      .where('farm_id', '=', farmId)
      .where('status', 'in', ACTIVE_ALERT_STATUSES)
      .groupBy('severity_rank')
      .execute(),
  ]);
  const counts: AlertCounts = { urgent: 0, watch: 0, info: 0 };
  for (const g of grouped) {
    if (g.severity_rank === SEVERITY_RANK.urgent) counts.urgent = Number(g.n);
    else if (g.severity_rank === SEVERITY_RANK.watch) counts.watch = Number(g.n);
    else counts.info += Number(g.n);
  }
  return { rows, counts };
}

/** Alert subjects that have an active alert, as `rule subject_id` keys, for de-duplicating items. */
export async function activeAlertKeys(db: Db, farmId: string): Promise<Set<string>> {
  const rows = await db
    .selectFrom('alerts')
    .select(['rule', 'subject_id'])
    .where('farm_id', '=', farmId)
    .where('status', 'in', ACTIVE_ALERT_STATUSES)
    .execute();
  return new Set(rows.map((r) => `${r.rule} ${r.subject_id}`));
}

/**
 * Open tasks due before the end of today (farm time), earliest due first, so the overdue ones come
 * before those due today; at most `limit` rows, with exact counts of both (domain/tasks.ts `taskDue`'s
 * rule in SQL: overdue before today's start, due today from it).
 */
export async function dueTasks(
  db: Db,
  farmId: string,
  today: { start: number; end: number },
  limit: number,
): Promise<{ rows: TaskRow[]; overdue: number; dueToday: number }> {
  const open = db
    .selectFrom('tasks')
    .where('farm_id', '=', farmId)
    .where('due_at', '<', today.end)
    .where('status', 'not in', [...CLOSED_TASK_STATUSES]);
  const [rows, counts] = await Promise.all([
    open.selectAll().orderBy('due_at').orderBy('id').limit(limit).execute(),
    open
      .select([
        sql<number>`sum(case when due_at < ${today.start} then 1 else 0 end)`.as('overdue'),
        sql<number>`sum(case when due_at >= ${today.start} then 1 else 0 end)`.as('due_today'),
      ])
      .executeTakeFirst(),
  ]);
  return { rows, overdue: Number(counts?.overdue ?? 0), dueToday: Number(counts?.due_today ?? 0) };
}

/** What the brief needs of every device (the state only of houses). */
export interface BriefDeviceRow {
  id: string;
  type: string;
  name: string;
  animal_id: string | null;
  group_id: string | null;
  battery: number | null;
  last_seen_at: number | null;
  created_at: number;
  state: string | null;
}

export async function farmDevices(db: Db, farmId: string): Promise<BriefDeviceRow[]> {
  return db
    .selectFrom('devices')
    .select([
      'id',
      'type',
      'name',
      'animal_id',
      'group_id',
      'battery',
      'last_seen_at',
      'created_at',
      // A house's state is the only one the brief reads; other devices may carry large states.
      sql<string | null>`case when type = 'house' then state else null end`.as('state'),
    ])
    .where('farm_id', '=', farmId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export interface LatestValue {
  device_id: string;
  metric: string;
  value: number;
  at: number;
}

/** Latest values of the given metrics for every device on the farm (one primary-key read each). */
export async function latestOfMetrics(
  db: Db,
  farmId: string,
  metrics: readonly string[],
): Promise<LatestValue[]> {
  if (metrics.length === 0) return [];
  return db
    .selectFrom('device_latest')
    .innerJoin('devices', 'devices.id', 'device_latest.device_id')
    .select(['device_latest.device_id', 'device_latest.metric', 'device_latest.value', 'device_latest.at'])
    .where('devices.farm_id', '=', farmId)
    .where('device_latest.metric', 'in', [...metrics])
    .execute();
}

/** At most this many metrics per device are looked at for its usual interval. */
export const INTERVAL_METRICS = 16;

/**
 * The metrics each device reported last (those whose latest reading is at the device's newest reading
 * time: a report usually carries several), by name, at most INTERVAL_METRICS of them.
 */
export async function newestMetrics(db: Db, deviceIds: readonly string[]): Promise<Map<string, string[]>> {
  const newest = new Map<string, { at: number; metrics: string[] }>();
  for (let i = 0; i < deviceIds.length; i += 500) {
    const rows = await db
      .selectFrom('device_latest')
      .select(['device_id', 'metric', 'at'])
      .where('device_id', 'in', deviceIds.slice(i, i + 500))
      .execute();
    for (const row of rows) {
      const seen = newest.get(row.device_id);
      if (!seen || row.at > seen.at) newest.set(row.device_id, { at: row.at, metrics: [row.metric] });
      else if (row.at === seen.at) seen.metrics.push(row.metric);
    }
  }
  const out = new Map<string, string[]>();
  for (const [id, { metrics }] of newest) out.set(id, metrics.sort().slice(0, INTERVAL_METRICS));
  return out;
}

/** How many of a device's latest readings the usual interval is taken from. */
export const INTERVAL_SAMPLE = 10;

export interface ReadingSpan {
  /** Readings found (at most INTERVAL_SAMPLE). */
  n: number;
  oldest: number | null;
  newest: number | null;
}

/** The key of a (device, metric) pair in `recentReadingSpans`' answer. */
export const spanKey = (deviceId: string, metric: string): string => `${deviceId} ${metric}`;

/**
 * For each (device, metric): the span of its last INTERVAL_SAMPLE readings, each a short backward walk
 * of the (device_id, metric, at) index. PostgreSQL takes every pair in one statement (a lateral join
 * over arrays, planned once); SQLite, which has no lateral joins, a union of small subqueries.
 */
export async function recentReadingSpans(
  db: Db,
  targets: ReadonlyArray<{ deviceId: string; metric: string }>,
): Promise<Map<string, ReadingSpan>> {
  const out = new Map<string, ReadingSpan>();
  const put = (
    target: { deviceId: string; metric: string } | undefined,
    row: { n: number; oldest: number | null; newest: number | null },
  ) => {
    if (!target) return;
    out.set(spanKey(target.deviceId, target.metric), {
      n: Number(row.n),
      oldest: row.oldest === null ? null : Number(row.oldest),
      newest: row.newest === null ? null : Number(row.newest),
    });
  };
  if (targets.length === 0) return out;
  if (isPostgres(db)) {
    const result = await sql<{
      device_id: string;
      metric: string;
      n: number;
      oldest: number | null;
      newest: number | null;
    }>`
      select t.device_id, t.metric, count(*) as n, min(x.at) as oldest, max(x.at) as newest
      from unnest(${pgTexts(targets.map((t) => t.deviceId))}::text[], ${pgTexts(targets.map((t) => t.metric))}::text[]) as t(device_id, metric)
      cross join lateral (
        select r.at from readings r where r.device_id = t.device_id and r.metric = t.metric
        order by r.at desc limit ${sql.lit(INTERVAL_SAMPLE)}
      ) x
      group by t.device_id, t.metric`.execute(db);
    for (const row of result.rows) put({ deviceId: row.device_id, metric: row.metric }, row);
    return out;
  }
  const CHUNK = 200;
  for (let i = 0; i < targets.length; i += CHUNK) {
    const chunk = targets.slice(i, i + CHUNK);
    const parts = chunk.map(
      (t, j) =>
        sql`select ${sql.lit(j)} as i, count(*) as n, min(x.at) as oldest, max(x.at) as newest from (select at from readings where device_id = ${t.deviceId} and metric = ${t.metric} order by at desc limit ${sql.lit(INTERVAL_SAMPLE)}) x`,
    );
    const result = await sql<{
      i: number;
      n: number;
      oldest: number | null;
      newest: number | null;
    }>`${sql.join(parts, sql` union all `)}`.execute(db);
    for (const row of result.rows) put(chunk[Number(row.i)], row);
  }
  return out;
}

export interface BriefPaddockRow {
  id: string;
  name: string;
  rest_days_target: number;
  /** When it was last left (grazing's figure: the typed value or its last recorded stay, the later). */
  last_grazed_at: number;
  occupied: number;
}

/** The paddocks with a rest target, oldest first: what the brief weighs for "past rest target". */
export async function paddocksWithTarget(db: Db, farmId: string) {
  return db
    .selectFrom('paddocks')
    .select(['id', 'name', 'rest_days_target', 'last_grazed_at'])
    .where('farm_id', '=', farmId)
    .where('rest_days_target', 'is not', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** The paddocks rested longer than their own target by `now`. */
export function pastRest(paddocks: readonly BriefPaddockRow[], now: number): BriefPaddockRow[] {
  return paddocks.filter((p) => p.last_grazed_at + p.rest_days_target * DAY_MS < now);
}
