import type { Db } from '../../db/schema.ts';
import { METRIC_BY_NAME } from '../../domain/metrics.ts';
import { AppError, invalid } from '../../http/errors.ts';
import { parseIso } from '../../lib/time.ts';
import { loadDevice } from '../devices/repository.ts';
import type { Scope } from '../farms/access.ts';
import { insertReadings, type ReadingRow, toReading, upsertLatest } from './repository.ts';
import { READINGS_DEFAULT_LIMIT, READINGS_MAX_LIMIT, type Reading } from './schemas.ts';

/** Most readings one report may carry. */
export const MAX_READINGS_PER_REPORT = 1_000;

/** A reading as a device sends it. */
export interface ReadingInput {
  metric: string;
  value: number;
  unit?: string | undefined;
  at?: string | undefined;
}

/** A reading ready to store: unit resolved, time in epoch ms. */
export interface PreparedReading {
  metric: string;
  value: number;
  unit: string | null;
  at: number;
}

/**
 * Checks a report's readings and resolves each one's unit (the catalog's, for a known metric sent
 * without one) and time (receipt time when left out). Any bad reading rejects them all, naming it
 * (`readings[17].value`); more than 1,000 is 413 `payload_too_large`.
 */
export function prepareReadings(inputs: readonly ReadingInput[], receivedAt: number): PreparedReading[] {
  if (inputs.length > MAX_READINGS_PER_REPORT) {
    throw new AppError(
      'payload_too_large',
      `A report may carry at most ${MAX_READINGS_PER_REPORT} readings; this one has ${inputs.length}. Send them in several reports.`,
      { param: 'readings' },
    );
  }
  return inputs.map((r, i) => {
    if (typeof r.metric !== 'string' || r.metric.trim() === '') {
      throw invalid(`readings[${i}].metric`, `readings[${i}].metric must be a non-empty metric name.`);
    }
    if (typeof r.value !== 'number' || !Number.isFinite(r.value)) {
      throw invalid(`readings[${i}].value`, `readings[${i}].value must be a finite number.`);
    }
    let at = receivedAt;
    if (r.at !== undefined) {
      const parsed = parseIso(r.at);
      if (parsed === null) {
        throw invalid(`readings[${i}].at`, `readings[${i}].at must be an ISO 8601 date-time.`);
      }
      at = parsed;
    }
    return {
      metric: r.metric,
      value: r.value,
      unit: r.unit ?? METRIC_BY_NAME.get(r.metric)?.unit ?? null,
      at,
    };
  });
}

/**
 * Stores a report's readings (one multi-row INSERT) and moves the device's latest value per metric
 * forward. Call inside the report's transaction.
 */
export async function storeReadings(
  db: Db,
  device: { id: string; farm_id: string },
  readings: readonly PreparedReading[],
): Promise<void> {
  if (readings.length === 0) return;
  const rows: ReadingRow[] = readings.map((r) => ({
    device_id: device.id,
    farm_id: device.farm_id,
    metric: r.metric,
    value: r.value,
    unit: r.unit,
    at: r.at,
  }));
  await insertReadings(db, rows);
  // One row per metric (the newest; the later one in the report on a tie), as an upsert may not
  // touch the same row twice.
  const newest = new Map<string, PreparedReading>();
  for (const r of readings) {
    const seen = newest.get(r.metric);
    if (!seen || r.at >= seen.at) newest.set(r.metric, r);
  }
  await upsertLatest(
    db,
    [...newest.values()].map((r) => ({
      device_id: device.id,
      metric: r.metric,
      value: r.value,
      unit: r.unit,
      at: r.at,
    })),
  );
}

/** A device's readings, newest first, optionally one metric and from a time on. */
export async function getReadings(
  db: Db,
  scope: Scope,
  deviceId: string,
  options: { metric?: string | undefined; since?: string | undefined; limit?: number | undefined } = {},
): Promise<{ data: Reading[]; has_more: boolean }> {
  const device = await loadDevice(db, scope, deviceId);
  const limit = options.limit ?? READINGS_DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > READINGS_MAX_LIMIT) {
    throw invalid('limit', `limit must be a whole number from 1 to ${READINGS_MAX_LIMIT}.`);
  }
  let query = db
    .selectFrom('readings')
    .select(['metric', 'value', 'unit', 'at'])
    .where('device_id', '=', device.id);
  if (options.metric !== undefined) query = query.where('metric', '=', options.metric);
  if (options.since !== undefined) {
    const since = parseIso(options.since);
    if (since === null) throw invalid('since', 'since must be an ISO 8601 date-time.');
    query = query.where('at', '>=', since);
  }
  const rows = await query
    .orderBy('at', 'desc')
    .limit(limit + 1)
    .execute();
  return { data: rows.slice(0, limit).map(toReading), has_more: rows.length > limit };
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
    const rows = await db
      .selectFrom('device_latest')
      .selectAll()
      .where('device_id', 'in', unique.slice(i, i + LATEST_CHUNK))
      .orderBy('device_id')
      .orderBy('metric')
      .execute();
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
