/**
 * The readings' queries. Their writes (a report's readings and latest values) are the tables' statement
 * modules', db/statements/readings.ts and device-latest.ts.
 */
import { type Selectable, sql } from 'kysely';
import { isPostgres } from '../../db/engine.ts';
import type { Db } from '../../db/schema.ts';
import type { DeviceLatestTable, ReadingsTable } from '../../db/tables/devices.ts';
import { toIso } from '../../lib/time.ts';
import type { Reading, ReadingAgg } from './schemas.ts';

export type ReadingRow = Selectable<ReadingsTable>;

export function toReading(
  row: Pick<ReadingRow, 'metric' | 'value' | 'unit' | 'at'> &
    Partial<Pick<ReadingRow, 'raw_value' | 'raw_unit'>>,
): Reading {
  const reading: Reading = {
    metric: row.metric,
    value: Number(row.value),
    unit: row.unit,
    at: toIso(row.at),
  };
  // What the device sent, when it was converted into the catalog's unit (migration 0023).
  if (row.raw_value != null && row.raw_unit != null) {
    reading.raw_value = Number(row.raw_value);
    reading.raw_unit = row.raw_unit;
  }
  return reading;
}

/** The latest value of every metric of these devices, by device then metric. */
export function selectLatest(db: Db, deviceIds: readonly string[]): Promise<Selectable<DeviceLatestTable>[]> {
  return db
    .selectFrom('device_latest')
    .selectAll()
    .where('device_id', 'in', deviceIds)
    .orderBy('device_id')
    .orderBy('metric')
    .execute();
}

export interface RawReadingsFilter {
  deviceId: string;
  metric?: string | undefined;
  since?: number | undefined;
  before?: number | undefined;
  /** Results to pass over first (those of the cursor's time already shown). */
  skip: number;
  limit: number;
}

/**
 * A device's raw readings, newest first (index readings_device_at, or readings_device_metric_at). Readings
 * of one millisecond come in a fixed order (metric, value, unit), so a cursor can count its way through them:
 * readings have no id, and identical ones are interchangeable.
 */
export async function selectReadings(db: Db, filter: RawReadingsFilter): Promise<ReadingRow[]> {
  let query = db.selectFrom('readings').selectAll().where('device_id', '=', filter.deviceId);
  if (filter.metric !== undefined) query = query.where('metric', '=', filter.metric);
  if (filter.since !== undefined) query = query.where('at', '>=', filter.since);
  if (filter.before !== undefined) query = query.where('at', '<', filter.before);
  return query
    .orderBy('at', 'desc')
    .orderBy('metric')
    .orderBy('value')
    .orderBy('unit')
    .limit(filter.limit)
    .offset(filter.skip)
    .execute();
}

/** SQL aggregate functions by `agg` name (a fixed map: the name never reaches SQL text itself). */
const AGG_FUNCTIONS = { avg: 'avg', min: 'min', max: 'max', sum: 'sum' } as const;

export interface BucketFilter extends RawReadingsFilter {
  widthMs: number;
  agg: ReadingAgg;
}

/**
 * One row per (metric, bucket) that has readings, newest bucket first, computed by the database:
 * bucket = at − (at mod width), with a floored modulo so times before 1970 fall into the right bucket.
 * `last` takes the value and unit of the bucket's latest reading; the other aggregates take the
 * bucket's unit (units of one metric do not change in practice; if they do, one of them); count has none.
 */
export async function selectBuckets(
  db: Db,
  filter: BucketFilter,
): Promise<{ metric: string; bucket: number; value: number; unit: string | null }[]> {
  const width = sql.lit(filter.widthMs);
  const bucket = sql<number>`(at - ((at % ${width}) + ${width}) % ${width})`;
  const conditions = [sql`device_id = ${filter.deviceId}`];
  if (filter.metric !== undefined) conditions.push(sql`metric = ${filter.metric}`);
  if (filter.since !== undefined) conditions.push(sql`at >= ${filter.since}`);
  if (filter.before !== undefined) conditions.push(sql`at < ${filter.before}`);
  const where = sql.join(conditions, sql` and `);

  let value: ReturnType<typeof sql>;
  let unit: ReturnType<typeof sql>;
  let extra = sql``;
  if (filter.agg === 'last') {
    if (isPostgres(db)) {
      value = sql`(array_agg(value order by at desc))[1]`;
      unit = sql`(array_agg(unit order by at desc))[1]`;
    } else {
      // SQLite takes bare columns from the row that holds max(at).
      value = sql`value`;
      unit = sql`unit`;
      extra = sql`, max(at) as last_at`;
    }
  } else if (filter.agg === 'count') {
    value = sql`count(*)`;
    unit = sql`null`;
  } else {
    value = sql`${sql.raw(AGG_FUNCTIONS[filter.agg])}(value)`;
    unit = sql`max(unit)`;
  }
  const result = await sql<{ metric: string; bucket: number; value: number; unit: string | null }>`
    select metric, ${bucket} as bucket, ${value} as value, ${unit} as unit${extra}
    from readings where ${where}
    group by metric, ${bucket}
    order by bucket desc, metric
    limit ${filter.limit} offset ${filter.skip}`.execute(db);
  return result.rows.map((r) => ({
    metric: r.metric,
    bucket: Number(r.bucket),
    value: Number(r.value),
    unit: r.unit,
  }));
}

/** The tables whose rows belong to a device and a time, and are pruned by the readings' retention. */
export type DeviceTimeTable = 'readings' | 'device_positions';

/**
 * Deletes at most about `batchRows` of a device's rows in `table` before the cutoff, oldest first, in one
 * statement on the (device_id, at) index. Returns the rows deleted (0 when none are left). Readings may share
 * a time (more than a batch at the oldest: they all go); a device has one position a millisecond.
 */
export async function deleteDeviceRowsBatch(
  db: Db,
  table: DeviceTimeTable,
  deviceId: string,
  cutoff: number,
  batchRows: number,
): Promise<number> {
  const bound = await db
    .selectFrom(table)
    .select('at')
    .where('device_id', '=', deviceId)
    .where('at', '<', cutoff)
    .orderBy('at')
    .limit(1)
    .offset(batchRows)
    .executeTakeFirst();
  const upTo = bound ? bound.at : cutoff;
  let result = await db
    .deleteFrom(table)
    .where('device_id', '=', deviceId)
    .where('at', '<', upTo)
    .executeTakeFirst();
  let deleted = Number(result.numDeletedRows);
  if (deleted === 0 && bound) {
    // More than a batch of rows share the oldest time: take them all.
    result = await db
      .deleteFrom(table)
      .where('device_id', '=', deviceId)
      .where('at', '=', bound.at)
      .executeTakeFirst();
    deleted = Number(result.numDeletedRows);
  }
  return deleted;
}

/** A page of device ids after `after`, in id order (the retention job walks every device). */
export function deviceIdsAfter(db: Db, after: string, limit: number): Promise<{ id: string }[]> {
  return db.selectFrom('devices').select('id').where('id', '>', after).orderBy('id').limit(limit).execute();
}
