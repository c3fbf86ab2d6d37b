import type { Db } from '../../db/schema.ts';
import { upsertLatest } from '../../db/statements/device-latest.ts';
import { insertReadings, type ReadingValues } from '../../db/statements/readings.ts';
import { AppError, invalid } from '../../domain/errors.ts';
import { impossibleValue } from '../../domain/metrics.ts';
import { parseIso, toIso } from '../../lib/time.ts';
import type { Scope } from '../farms/access.ts';
import { loadScoped } from '../records/scoped.ts';
import { selectBuckets, selectLatest, selectReadings, toReading } from './repository.ts';
import {
  READING_AGGS,
  READING_INTERVAL_NAMES,
  READING_INTERVALS,
  READINGS_DEFAULT_LIMIT,
  READINGS_MAX_LIMIT,
  type Reading,
  type ReadingAgg,
  type ReadingInterval,
} from './schemas.ts';
import { inCatalogUnit } from './units.ts';

/** Most readings one report may carry. */
export const MAX_READINGS_PER_REPORT = 1_000;

/** A reading as a device sends it. */
export interface ReadingInput {
  metric: string;
  value: number;
  unit?: string | undefined;
  at?: string | undefined;
}

/**
 * A reading ready to store: unit resolved, time in epoch ms; its row's own columns (the readings table's
 * statement module says which: db/statements/readings.ts).
 */
export type PreparedReading = ReadingValues;

/**
 * Checks a report's readings and resolves each one's unit and time (receipt time when left out). A catalog
 * metric is stored in the catalog's unit: sent without one it takes it, sent in another the registry accepts
 * it is converted (units.ts), sent in any other it is refused. Any bad reading rejects them all, naming it
 * (`readings[17].value`, `readings[3].unit`); more than 1,000 is 413 `payload_too_large`.
 */
export function prepareReadings(inputs: readonly ReadingInput[], receivedAt: number): PreparedReading[] {
  if (inputs.length > MAX_READINGS_PER_REPORT) {
    throw new AppError(
      'payload_too_large',
      `A report may carry at most ${MAX_READINGS_PER_REPORT} readings; this one has ${inputs.length}. Send them in several reports.`,
      { param: 'readings' },
    );
  }
  // Readings of one report share few distinct times (every metric of a sample carries the same `at`).
  const parsedTimes = new Map<string, number | null>();
  return inputs.map((r, i) => {
    if (typeof r.metric !== 'string' || r.metric.trim() === '') {
      throw invalid(`readings[${i}].metric`, `readings[${i}].metric must be a non-empty metric name.`);
    }
    if (typeof r.value !== 'number' || !Number.isFinite(r.value)) {
      throw invalid(`readings[${i}].value`, `readings[${i}].value must be a finite number.`);
    }
    let at = receivedAt;
    if (r.at !== undefined) {
      let parsed = parsedTimes.get(r.at);
      if (parsed === undefined) {
        parsed = parseIso(r.at);
        parsedTimes.set(r.at, parsed);
      }
      if (parsed === null) {
        throw invalid(`readings[${i}].at`, `readings[${i}].at must be an ISO 8601 date-time.`);
      }
      at = parsed;
    }
    const stored = inCatalogUnit(r.metric, r.value, r.unit);
    if (!stored.ok) {
      throw invalid(
        `readings[${i}].unit`,
        `readings[${i}].unit: ${r.metric} is measured in ${stored.unit}; "${r.unit}" is not a unit it accepts (accepted: ${stored.accepted.join(', ')}).`,
      );
    }
    const impossible = impossibleValue(r.metric, stored.value, stored.unit);
    if (impossible !== null) {
      const sent = stored.raw ? ` (sent as ${r.value} ${r.unit})` : '';
      throw invalid(`readings[${i}].value`, `readings[${i}].value ${impossible}${sent}.`);
    }
    return {
      metric: r.metric,
      value: stored.value,
      unit: stored.unit,
      at,
      raw_value: stored.raw?.value ?? null,
      raw_unit: stored.raw?.unit ?? null,
    };
  });
}

/** The newest reading of each metric in a report (the later one in the report on a tie). */
export function newestPerMetric(readings: readonly PreparedReading[]): PreparedReading[] {
  const newest = new Map<string, PreparedReading>();
  for (const r of readings) {
    const seen = newest.get(r.metric);
    if (!seen || r.at >= seen.at) newest.set(r.metric, r);
  }
  return [...newest.values()];
}

/**
 * Stores a report's readings (one INSERT, whatever their number) and moves the device's latest value
 * per metric forward (one upsert). Call inside the report's transaction. (PostgreSQL ingest folds both
 * into its device update instead: ingest/report-statement.ts.)
 */
export async function storeReadings(
  db: Db,
  device: { id: string; farm_id: string },
  readings: readonly PreparedReading[],
): Promise<void> {
  if (readings.length === 0) return;
  await insertReadings(db, { deviceId: device.id, farmId: device.farm_id }, readings);
  await upsertLatest(db, device.id, newestPerMetric(readings));
}

export interface ReadingsOptions {
  metric?: string | undefined;
  since?: string | undefined;
  before?: string | undefined;
  limit?: number | undefined;
  /** Aggregate into buckets of this width; without it the raw readings are listed. */
  interval?: ReadingInterval | undefined;
  /** How a bucket becomes one value (default avg); only with interval. */
  agg?: ReadingAgg | undefined;
}

function timeOption(name: 'since', text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const ms = parseIso(text);
  if (ms === null) throw invalid(name, `${name} must be an ISO 8601 date-time.`);
  return ms;
}

/**
 * Where a page starts: results strictly before `at` (raw reading times), passing over the first `skip`
 * of them. Readings have no id to break ties with, so the cursor counts the results of its time already
 * shown instead (a house reports 13 metrics in one millisecond); a plain ISO time is `skip` 0.
 */
interface ReadingsCursor {
  at: number;
  skip: number;
}

const CURSOR_SEPARATOR = '~';
/** Bounds the database work one cursor can ask for (readings of one device in one millisecond). */
const MAX_CURSOR_SKIP = 100_000;

function parseBefore(text: string | undefined): ReadingsCursor | null {
  if (text === undefined) return null;
  const [timeText, skipText] = text.split(CURSOR_SEPARATOR, 2) as [string, string | undefined];
  const at = parseIso(timeText);
  const skip = skipText === undefined ? 0 : /^\d{1,6}$/.test(skipText) ? Number(skipText) : -1;
  if (at === null || skip < 0 || skip > MAX_CURSOR_SKIP) {
    throw invalid('before', 'before must be an ISO 8601 time or the next_before cursor of a previous page.');
  }
  return { at, skip };
}

/**
 * The cursor after a page (`limit + 1` rows were fetched). `bound` turns the last row's time into the raw
 * upper bound of the next page: the next millisecond for readings, the bucket's end for points. The rows
 * of that time shown so far (on this page, plus those the previous cursor passed over when it pointed at
 * the same time) are passed over next.
 */
function nextCursor<T>(
  rows: T[],
  limit: number,
  cursor: ReadingsCursor | null,
  timeOf: (row: T) => number,
  bound: (time: number) => number,
): string | null {
  const last = rows[limit - 1];
  if (rows.length <= limit || last === undefined) return null;
  const time = timeOf(last);
  let shown = 0;
  for (let i = limit - 1; i >= 0 && timeOf(rows[i] as T) === time; i--) shown++;
  const at = bound(time);
  const skip = shown + (cursor && cursor.at === at ? cursor.skip : 0);
  return `${toIso(at)}${CURSOR_SEPARATOR}${skip}`;
}

/**
 * A device's readings, newest first, optionally one metric and within [since, before). With
 * `interval`, one point per metric and bucket instead (`at` = the bucket's start, newest first), the
 * value aggregated by `agg`, so a year of a sensor fits a chart (365 points at `1d`). Pages hold exactly
 * `limit` results; `next_before` continues without skipping or repeating any, also within one millisecond.
 */
export async function getReadings(
  db: Db,
  scope: Scope,
  deviceId: string,
  options: ReadingsOptions = {},
): Promise<{ data: Reading[]; has_more: boolean; next_before: string | null }> {
  const device = await loadScoped(db, scope, 'device', deviceId);
  const limit = options.limit ?? READINGS_DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > READINGS_MAX_LIMIT) {
    throw invalid('limit', `limit must be a whole number from 1 to ${READINGS_MAX_LIMIT}.`);
  }
  const since = timeOption('since', options.since);
  const cursor = parseBefore(options.before);
  const filter = {
    deviceId: device.id,
    metric: options.metric,
    since,
    before: cursor?.at,
    skip: cursor?.skip ?? 0,
    limit: limit + 1,
  };

  if (options.interval === undefined) {
    if (options.agg !== undefined) {
      throw invalid('agg', `agg needs an interval (${READING_INTERVAL_NAMES.join(', ')}).`);
    }
    const rows = await selectReadings(db, filter);
    return {
      data: rows.slice(0, limit).map(toReading),
      has_more: rows.length > limit,
      next_before: nextCursor(
        rows,
        limit,
        cursor,
        (r) => r.at,
        (at) => at + 1,
      ),
    };
  }
  const widthMs = READING_INTERVALS[options.interval];
  if (widthMs === undefined) {
    throw invalid('interval', `interval must be one of: ${READING_INTERVAL_NAMES.join(', ')}.`);
  }
  const agg = options.agg ?? 'avg';
  if (!READING_AGGS.includes(agg)) throw invalid('agg', `agg must be one of: ${READING_AGGS.join(', ')}.`);
  const rows = await selectBuckets(db, { ...filter, widthMs, agg });
  return {
    data: rows
      .slice(0, limit)
      .map((r) => toReading({ metric: r.metric, value: r.value, unit: r.unit, at: r.bucket })),
    has_more: rows.length > limit,
    // A bucket's end, unless the page was already bounded inside it (its points must stay the same).
    next_before: nextCursor(
      rows,
      limit,
      cursor,
      (r) => r.bucket,
      (bucket) => Math.min(bucket + widthMs, cursor?.at ?? Number.POSITIVE_INFINITY),
    ),
  };
}

const LATEST_CHUNK = 500;

/**
 * The latest reading of every metric of each device, keyed by device id then metric. Every requested
 * id is present (an empty object for a device that never reported). No scope check: callers pass ids
 * they have already checked.
 */
export async function latestReadings(
  db: Db,
  deviceIds: readonly string[],
): Promise<Record<string, Record<string, Reading>>> {
  const out: Record<string, Record<string, Reading>> = {};
  for (const id of deviceIds) out[id] = {};
  const unique = [...new Set(deviceIds)];
  for (let i = 0; i < unique.length; i += LATEST_CHUNK) {
    const rows = await selectLatest(db, unique.slice(i, i + LATEST_CHUNK));
    for (const row of rows) {
      const forDevice = out[row.device_id];
      // defineProperty: metric names are device-chosen text and may even be "__proto__".
      if (forDevice) {
        Object.defineProperty(forDevice, row.metric, {
          value: toReading(row),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
    }
  }
  return out;
}
