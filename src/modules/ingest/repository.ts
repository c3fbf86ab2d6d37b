/** Ingest's own statements: on PostgreSQL a report's device, readings, latest values and farm in one. */
import { type RawBuilder, type Selectable, sql } from 'kysely';
import type { Db } from '../../db/schema.ts';
import type { DevicesTable } from '../../db/tables/devices.ts';
import type { FarmsTable } from '../../db/tables/foundation.ts';
import type { PreparedReading } from '../readings/service.ts';

export type DeviceRow = Selectable<DevicesTable>;
export type FarmRow = Selectable<FarmsTable>;

/** What a report sets on its device row (last_seen_at always; the rest when the report carries them). */
export interface DeviceTouch {
  last_seen_at: number;
  /** The device's usual gap between reports, smoothed (an expression over the row's own columns). */
  report_gap_ms: RawBuilder<number | null>;
  battery?: number;
  lat?: number;
  lon?: number;
  firmware?: string;
}

/**
 * PostgreSQL: one statement (data-modifying CTEs) instead of four round trips: it updates the device
 * (locking its row, so concurrent reports of one device queue here), inserts the readings (`unnest`
 * arrays, a fixed handful of parameters whatever their number), moves the latest value per metric forward
 * (`latest` holds one row per metric) and reads the device's farm. Readings and latest values are written
 * only when the device exists (they join the updated row). Undefined: no such device, nothing written.
 */
export async function touchDeviceAndStorePg(
  trx: Db,
  deviceId: string,
  touch: DeviceTouch,
  readings: readonly PreparedReading[],
  latest: readonly PreparedReading[],
): Promise<{ device: DeviceRow; farm: FarmRow } | undefined> {
  const sets = sql.join(
    Object.entries(touch).map(([column, value]) => sql`${sql.ref(column)} = ${value}`),
    sql`, `,
  );
  const cols = (rows: readonly PreparedReading[]) => ({
    metrics: rows.map((r) => r.metric),
    values: rows.map((r) => r.value),
    units: rows.map((r) => r.unit),
    ats: rows.map((r) => r.at),
  });
  const r = cols(readings);
  const l = cols(latest);
  const result = await sql<DeviceRow & { farm_row: FarmRow }>`
    with d as (
      update devices set ${sets} where id = ${deviceId} returning *
    ), stored as (
      insert into readings (device_id, farm_id, metric, value, unit, at)
      select d.id, d.farm_id, r.metric, r.value, r.unit, r.at
      from d, unnest(${r.metrics}::text[], ${r.values}::float8[], ${r.units}::text[], ${r.ats}::int8[])
        as r(metric, value, unit, at)
    ), moved as (
      insert into device_latest (device_id, metric, value, unit, at)
      select d.id, l.metric, l.value, l.unit, l.at
      from d, unnest(${l.metrics}::text[], ${l.values}::float8[], ${l.units}::text[], ${l.ats}::int8[])
        as l(metric, value, unit, at)
      on conflict (device_id, metric) do update
        set value = excluded.value, unit = excluded.unit, at = excluded.at
        where excluded.at >= device_latest.at
    )
    select d.*, to_jsonb(f.*) as farm_row from d join farms f on f.id = d.farm_id`.execute(trx);
  const row = result.rows[0];
  if (!row) return undefined;
  const { farm_row: farm, ...device } = row;
  return { device, farm };
}
