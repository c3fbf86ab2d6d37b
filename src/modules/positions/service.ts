/**
 * Device positions (docs/map.md, "Positions and tracks"): ingest stores every position a report carries
 * (db/statements/device-positions.ts); here a device's track is read, paged or thinned, and old positions
 * are pruned with the readings' retention.
 */
import type { Kysely } from 'kysely';
import { ADVISORY_LOCK } from '../../db/locks.ts';
import type { DB, Db } from '../../db/schema.ts';
import { runAlone } from '../../db/transaction.ts';
import { invalid } from '../../domain/errors.ts';
import { parseIso, toIso } from '../../lib/time.ts';
import type { Scope } from '../farms/access.ts';
import { deleteDevicesInBatches } from '../readings/retention.ts';
import { parseDateInput } from '../records/inputs.ts';
import { loadScoped } from '../records/scoped.ts';
import { countPositions, everyNthPosition, newestPositions, type TrackRange } from './repository.ts';
import { TRACK_DEFAULT_LIMIT, TRACK_MAX_LIMIT, type Track, type TrackOptions } from './schemas.ts';

/**
 * The thinning rule: of `count` positions keep at most `limit`: every `step`-th counted from the oldest,
 * step = ⌈(count − 1) / (limit − 1)⌉, and the newest. The first and last of the range always stay, and
 * the points are spread evenly by report, so where a device reported more often (or lingered) stays denser.
 */
export function thinningStep(count: number, limit: number): number {
  if (count <= limit) return 1;
  if (limit <= 1) return count; // only index 0 and the newest: the caller keeps the newest alone
  return Math.ceil((count - 1) / (limit - 1));
}

/**
 * A device's positions, newest first. With `since` (and `thin` not false) the whole range in one answer,
 * thinned to `limit` points when it holds more; otherwise pages of `limit` positions before `before`.
 */
export async function getTrack(
  db: Db,
  scope: Scope,
  deviceId: string,
  options: TrackOptions = {},
): Promise<Track> {
  const device = await loadScoped(db, scope, 'device', deviceId);
  const limit = options.limit ?? TRACK_DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > TRACK_MAX_LIMIT) {
    throw invalid('limit', `limit must be a whole number from 1 to ${TRACK_MAX_LIMIT}.`);
  }
  const from = parseDateInput('since', options.since);
  const to = parseDateInput('until', options.until);
  if (from !== null && to !== null && to < from) throw invalid('until', 'until must not be before since.');
  let before: number | null = null;
  if (options.before !== undefined) {
    before = parseIso(options.before);
    if (before === null) {
      throw invalid(
        'before',
        'before must be an ISO 8601 time or the next_before cursor of a previous page.',
      );
    }
  }
  const range: TrackRange = { deviceId: device.id, from, to, before };
  const toPosition = (r: { lat: number; lon: number; at: number }) => ({
    lat: r.lat,
    lon: r.lon,
    at: toIso(r.at),
  });

  if (from !== null && options.thin !== false) {
    const count = await countPositions(db, range);
    if (count > limit) {
      const rows =
        limit === 1
          ? await newestPositions(db, range, 1)
          : await everyNthPosition(db, range, thinningStep(count, limit), count);
      return { data: rows.map(toPosition), has_more: false, next_before: null, thinned: true };
    }
  }
  const rows = await newestPositions(db, range, limit + 1);
  const page = rows.slice(0, limit);
  const more = rows.length > limit;
  const last = page.at(-1);
  return {
    data: page.map(toPosition),
    has_more: more,
    next_before: more && last ? toIso(last.at) : null,
    thinned: false,
  };
}

/** Positions one retention batch deletes at most. */
export const POSITION_RETENTION_BATCH_ROWS = 2_000;

/**
 * Removes positions older than `cutoff` (the readings' retention: FARMSTEAD_READINGS_RETENTION_DAYS), device
 * by device in batches, yielding between them so requests keep flowing; stops at a batch boundary when
 * `signal` aborts. On PostgreSQL one process at a time (an advisory lock; the others skip the run). A device's position on its row (lat, lon) is kept.
 */
export async function removeOldPositions(
  db: Kysely<DB>,
  cutoff: number,
  options: { batchRows?: number; signal?: AbortSignal } = {},
): Promise<number> {
  // One process at a time (the others skip the run), like the readings' retention.
  const batchRows = options.batchRows ?? POSITION_RETENTION_BATCH_ROWS;
  const run = await runAlone(db, ADVISORY_LOCK.positionRetention, (conn) =>
    deleteDevicesInBatches(conn, 'device_positions', cutoff, batchRows, options.signal),
  );
  return run.ran ? run.value : 0;
}
