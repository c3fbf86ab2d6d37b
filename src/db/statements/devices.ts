/**
 * The devices table as ingest touches it: which columns a report sets, how (the smoothed gap between
 * reports, the replaced report token), and which it reads back. The SQLite update (one report) and
 * PostgreSQL's report statements (one report, or a group: modules/ingest/report-statement.ts) both take their
 * columns from here, so a new column a report sets is one edit: DeviceTouch and, when a report may leave it
 * out, TOUCH_OPTIONAL. The rest of the devices table is written by its CRUD module (modules/devices), the
 * commands hand-out and the quiet pass (see ARCHITECTURE.md, "Who writes which table").
 */
import { type RawBuilder, sql } from 'kysely';
import type { PgArrayType } from '../pg-arrays.ts';
import type { DevicesTable } from '../tables/devices.ts';

/**
 * The columns a report may carry or leave out, with their PostgreSQL array types: the group statement keeps
 * a column a report leaves out as it was.
 */
export const TOUCH_OPTIONAL = {
  battery: 'float8',
  lat: 'float8',
  lon: 'float8',
  firmware: 'text',
} as const satisfies { readonly [K in keyof DevicesTable]?: PgArrayType };

export type TouchOptional = keyof typeof TOUCH_OPTIONAL;

/** The columns a report may leave out, in statement order. */
export const TOUCH_OPTIONAL_COLUMNS = Object.keys(TOUCH_OPTIONAL) as TouchOptional[];

/**
 * What a report sets on its device row (last_seen_at always, and from it the smoothed gap between reports;
 * the rest when the report carries them, unless the row holds newer ones: `status_at`).
 */
export type DeviceTouch = {
  last_seen_at: number;
  /** The report's own random token (alerts/recent-readings.ts); the row keeps the one it replaces. */
  report_token: string;
  /**
   * When the report's battery, lat, lon and firmware were read (its `at`, never after receipt): given
   * whenever it carries any of them. A row whose `status_at` is later keeps its own.
   */
  status_at?: number;
} & { [K in TouchOptional]?: NonNullable<DevicesTable[K]> };

/**
 * Whether a report's status (read at `at`) is at least as new as the row's: a late report's battery,
 * position and firmware do not replace newer ones. `row` qualifies the column where the statement needs it.
 */
export function statusIsNewer(at: unknown, row = sql``): RawBuilder<boolean> {
  return sql<boolean>`(${row}status_at is null or ${row}status_at <= ${at})`;
}

/**
 * The device's usual gap between reports, for device.quiet: each new gap weighs a fifth, so the value
 * follows a mean of roughly its last ten gaps (as the brief's usual interval does) without reading
 * them back. Computed in the UPDATE from the old row, so it costs no statement.
 */
export function reportGap(now: number | RawBuilder<number>): RawBuilder<number | null> {
  return sql<
    number | null
  >`case when last_seen_at is null or last_seen_at >= ${now} then report_gap_ms when report_gap_ms is null then ${now} - last_seen_at else report_gap_ms * 0.8 + (${now} - last_seen_at) * 0.2 end`;
}

/**
 * The SET of one report's device update: what it carries (unless the row's status is newer), the gap, and
 * the token it replaces.
 */
export function touchColumns(touch: DeviceTouch) {
  const { status_at, ...given } = touch;
  // Every right-hand side reads the row as it was, so report_token_prev gets the replaced token and each
  // status column is judged by the status_at before this report's.
  const set: Record<string, unknown> = {
    ...given,
    report_gap_ms: reportGap(touch.last_seen_at),
    report_token_prev: sql<string | null>`report_token`,
  };
  if (status_at === undefined) return set;
  const newer = statusIsNewer(status_at);
  for (const column of TOUCH_OPTIONAL_COLUMNS) {
    if (touch[column] !== undefined)
      set[column] = sql`case when ${newer} then ${touch[column]} else ${sql.ref(column)} end`;
  }
  set.status_at = sql`case when ${newer} then ${status_at} else status_at end`;
  return set;
}

/**
 * The device's columns a report reads on SQLite (the service, the readings, the alert engine): not its key,
 * place or battery, and its state only when the report carries some to merge into it. In isolation the
 * update took 12.4 µs returning every column and 9.6 µs returning these.
 */
export const REPORTING_DEVICE_COLUMNS = [
  'id',
  'farm_id',
  'name',
  'type',
  'animal_id',
  'group_id',
  'quiet_level',
  'report_token',
  'report_token_prev',
  'clock_skewed',
] as const satisfies ReadonlyArray<keyof DevicesTable>;

/**
 * The position columns a report that carries a position reads back (the new position, and the one the
 * device's paddock was derived from): only when they differ does the report place the device again
 * (modules/grazing), so a report at the same position, or without one, costs no statement more.
 */
export const PLACING_DEVICE_COLUMNS = [
  'lat',
  'lon',
  'placed_lat',
  'placed_lon',
] as const satisfies ReadonlyArray<keyof DevicesTable>;
