/**
 * Builds a large farm straight into the database for the benchmarks: the records (animals, groups,
 * paddocks, devices, alerts, tasks, latest values) in a few multi-row inserts, and the raw readings
 * with one INSERT … SELECT per device type over a generated series (generate_series on PostgreSQL, a
 * recursive CTE on SQLite), so 5 million readings take seconds, not an hour of HTTP. Readings arrive
 * device by device in time order, as the (device_id, metric, at) index likes them.
 */
import { randomInt } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { isPostgres } from '../../src/db/engine.ts';
import type { DB } from '../../src/db/schema.ts';
import { defaultHouseState } from '../../src/domain/house-state.ts';
import { newId } from '../../src/domain/ids.ts';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../src/lib/time.ts';
import { SEVERITY_RANK } from '../../src/modules/alerts/repository.ts';
import { ensureReadingPartitions } from '../../src/modules/readings/retention.ts';

export interface FarmSize {
  animals: number;
  devices: number;
  readingsPerDevice: number;
}

export interface BuiltFarm {
  animalIds: string[];
  houseIds: string[];
  deviceIds: string[];
  readings: number;
  seconds: number;
}

/** Each device type's share of the devices, and the metric its readings carry. */
const DEVICE_MIX = [
  { type: 'house', share: 0.04, metric: 'climate.temp_c', unit: '°C', base: 21, spread: 6 },
  { type: 'tracker', share: 0.8, metric: 'body.temp_c', unit: '°C', base: 38.6, spread: 0.8 },
  { type: 'water', share: 0.08, metric: 'water.tank_pct', unit: '%', base: 60, spread: 35 },
  { type: 'weather', share: 0.04, metric: 'wind.kph', unit: 'km/h', base: 5, spread: 20 },
  { type: 'guardian', share: 0.04, metric: 'device.battery_pct', unit: '%', base: 70, spread: 25 },
] as const;

/** Readings are this far apart; the series ends now (a device in 50 ends two days ago: gone quiet). */
const STEP_MS = 5 * MINUTE_MS;
const QUIET_SHIFT_MS = 2 * DAY_MS;

async function insertChunked<T extends keyof DB & string>(
  db: Kysely<DB>,
  table: T,
  rows: readonly Record<string, unknown>[],
): Promise<void> {
  const columns = Object.keys(rows[0] ?? {}).length || 1;
  const chunk = Math.max(1, Math.floor(30_000 / columns));
  for (let i = 0; i < rows.length; i += chunk) {
    // Rows are shaped per table by the caller; Kysely cannot check a table chosen at run time.
    await db
      .insertInto(table)
      .values(rows.slice(i, i + chunk) as never)
      .execute();
  }
}

export async function buildFarm(
  db: Kysely<DB>,
  farm: { id: string; accountId: string; mode: 'live' | 'test' },
  size: FarmSize,
  now: number = Date.now(),
): Promise<BuiltFarm> {
  const started = performance.now();
  const created = now - 60 * DAY_MS;
  const paddocks = Array.from({ length: Math.max(4, Math.round(size.animals / 125)) }, (_, i) => ({
    id: newId('paddock', created),
    farm_id: farm.id,
    name: `Paddock ${i + 1}`,
    acres: 10 + (i % 7),
    geometry: null,
    rest_days_target: 30,
    last_grazed_at: now - (20 + (i % 30)) * DAY_MS,
    created_at: created,
  }));
  const groups = Array.from({ length: Math.max(2, Math.round(size.animals / 250)) }, (_, i) => ({
    id: newId('group', created),
    farm_id: farm.id,
    name: `Herd ${i + 1}`,
    species: 'cattle',
    kind: 'herd',
    head_count: null,
    hatch_date: null,
    paddock_id: paddocks[i % paddocks.length]?.id ?? null,
    created_at: created,
  }));
  // EIDs are unique per account: each built farm draws its own 6-digit block.
  const eidBlock = randomInt(100_000, 1_000_000);
  const animals = Array.from({ length: size.animals }, (_, i) => {
    const name = i % 3 === 0 ? `Cow ${i}` : null;
    const tag = String(1000 + i);
    const eid = `982${eidBlock}${String(i).padStart(6, '0')}`;
    return {
      id: newId('animal', created + i),
      farm_id: farm.id,
      account_id: farm.accountId,
      mode: farm.mode,
      species: 'cattle',
      name,
      tag,
      eid,
      sex: i % 2 ? 'female' : 'male',
      breed: 'Angus',
      birth_date: now - (400 + (i % 2000)) * DAY_MS,
      group_id: groups[i % groups.length]?.id ?? null,
      paddock_id: null,
      status: 'active',
      notes: null,
      fields: '{}',
      search_text: [name, tag, eid, 'angus'].filter(Boolean).join('\n').toLowerCase(),
      created_at: created + i,
    };
  });

  const devices: Record<string, unknown>[] = [];
  const houseIds: string[] = [];
  const trackers: string[] = [];
  let n = 0;
  for (const mix of DEVICE_MIX) {
    const count = Math.max(1, Math.round(size.devices * mix.share));
    for (let i = 0; i < count && devices.length < size.devices; i++, n++) {
      const id = newId('device', created + n);
      const quiet = n % 50 === 49;
      if (mix.type === 'house') houseIds.push(id);
      if (mix.type === 'tracker') trackers.push(id);
      devices.push({
        id,
        farm_id: farm.id,
        type: mix.type,
        name: `${mix.type[0]?.toUpperCase()}${mix.type.slice(1)} ${i + 1}`,
        serial: quiet ? 'quiet' : null,
        animal_id: mix.type === 'tracker' ? (animals[i % animals.length]?.id ?? null) : null,
        group_id: null,
        firmware: '1.4.2',
        lat: null,
        lon: null,
        battery: 50 + (n % 50),
        state: mix.type === 'house' ? JSON.stringify(defaultHouseState()) : '{}',
        key_hash: `bench:${id}`,
        key_prefix: 'rd_benc',
        last_seen_at: now - (quiet ? QUIET_SHIFT_MS : 0),
        created_at: created + n,
      });
    }
  }

  await insertChunked(db, 'paddocks', paddocks);
  await insertChunked(db, 'animal_groups', groups);
  await insertChunked(db, 'animals', animals);
  await insertChunked(db, 'devices', devices);

  // Alerts: a few dozen active (the brief ranks them), many more resolved.
  const alerts = Array.from({ length: 60 + 600 }, (_, i) => {
    const active = i < 60;
    const severity = i % 6 === 0 ? 'urgent' : i % 6 < 4 ? 'watch' : 'info';
    const subject = trackers[i % Math.max(1, trackers.length)] ?? houseIds[0] ?? '';
    const at = now - (i + 1) * HOUR_MS;
    return {
      id: newId('alert', at),
      farm_id: farm.id,
      severity,
      severity_rank: SEVERITY_RANK[severity],
      title: `Bench alert ${i}`,
      reason: `Reading ${i} crossed a line`,
      rule: active ? `bench.rule${i}` : 'animal.fever',
      subject_type: 'device',
      subject_id: subject,
      status: active ? (i % 5 === 0 ? 'acknowledged' : 'open') : 'resolved',
      created_at: at,
      updated_at: at,
      acknowledged_at: active && i % 5 === 0 ? at : null,
      resolved_at: active ? null : at + HOUR_MS,
    };
  });
  await insertChunked(db, 'alerts', alerts);
  const tasks = Array.from({ length: 40 + 400 }, (_, i) => {
    const open = i < 40;
    const at = now - (i + 2) * DAY_MS;
    return {
      id: newId('task', at),
      farm_id: farm.id,
      title: `Check water line ${i}`,
      notes: null,
      due_at: open ? now - 6 * HOUR_MS + i * HOUR_MS : at + DAY_MS,
      assignee: null,
      status: open ? 'open' : 'done',
      subject_type: null,
      subject_id: null,
      alert_id: null,
      done_at: open ? null : at + DAY_MS,
      created_at: at,
    };
  });
  await insertChunked(db, 'tasks', tasks);

  // The raw readings: per device type, one INSERT … SELECT over devices × a series of n.
  const perDevice = size.readingsPerDevice;
  const end = now;
  const start = end - (perDevice - 1) * STEP_MS;
  const postgres = isPostgres(db);
  // The months the series covers get their partitions (as the partitions job made them back then).
  if (postgres) await ensureReadingPartitions(db, start - QUIET_SHIFT_MS);
  const series = postgres
    ? sql`select generate_series(0, ${sql.lit(perDevice - 1)}) as n`
    : sql`with recursive s(n) as (select 0 union all select n + 1 from s where n < ${sql.lit(perDevice - 1)}) select n from s`;
  let readings = 0;
  for (const mix of DEVICE_MIX) {
    // A smooth daily wave plus a small wobble, so aggregates have something to show.
    const value = sql`${sql.lit(mix.base)} + ${sql.lit(mix.spread / 2)} * ((s.n % 288) - 144) / 144.0 + (s.n % 7) * 0.01`;
    const at = sql`${sql.lit(start)} + cast(s.n as bigint) * ${sql.lit(STEP_MS)} - (case when d.serial = 'quiet' then ${sql.lit(QUIET_SHIFT_MS)} else 0 end)`;
    const result = await sql`insert into readings (device_id, farm_id, metric, value, unit, at)
      select d.id, d.farm_id, ${mix.metric}, ${value}, ${mix.unit}, ${at}
      from devices d cross join (${series}) s
      where d.farm_id = ${farm.id} and d.type = ${mix.type}
      order by d.id, s.n`.execute(db);
    readings += Number(result.numAffectedRows ?? 0);
  }
  // The latest value per device and metric, as ingest keeps it.
  const last = perDevice - 1;
  const latest = devices.map((d) => {
    const mix = DEVICE_MIX.find((m) => m.type === d.type) ?? DEVICE_MIX[0];
    return {
      device_id: d.id as string,
      metric: mix.metric,
      value: mix.base + ((mix.spread / 2) * ((last % 288) - 144)) / 144 + (last % 7) * 0.01,
      unit: mix.unit,
      at: start + last * STEP_MS - (d.serial === 'quiet' ? QUIET_SHIFT_MS : 0),
    };
  });
  await insertChunked(db, 'device_latest', latest);
  // Fresh statistics, as autovacuum (PostgreSQL) or a long-running database would have them.
  await sql`analyze`.execute(db);

  return {
    animalIds: animals.map((a) => a.id),
    houseIds,
    deviceIds: devices.map((d) => d.id as string),
    readings,
    seconds: (performance.now() - started) / 1000,
  };
}
