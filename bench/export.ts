/**
 * The export benchmark: GET /v1/devices/{id}/readings/export of a device with 5 million readings, through
 * HTTP against the real server (`npm start`'s command), on each engine; the reference is an export of a
 * device with 10,000 readings from a fresh server on the same database. Each export runs in its own server
 * process, so its peak RSS is its own: a streamed export's memory should not grow with the data.
 *
 *   npx node bench/export.ts       (BENCH_ENGINES=sqlite,postgres  BENCH_EXPORT_READINGS=5000000
 *                                    FARMSTEAD_BENCH_PG_URL=<admin URL>)
 *
 * `benchExport()` returns one result per engine for `npm run bench` to print.
 */
import { sql } from 'kysely';
import { type Engine, openDatabase } from '../src/db/database.ts';
import { isPostgres } from '../src/db/engine.ts';
import { createAccount } from '../src/modules/accounts/service.ts';
import { createDevice } from '../src/modules/devices/service.ts';
import { createFarm } from '../src/modules/farms/service.ts';
import { ensureReadingPartitions } from '../src/modules/readings/retention.ts';
import { createBenchDatabase } from './lib/db.ts';
import { startServer } from './lib/server.ts';

export interface ExportRun {
  readings: number;
  format: 'csv' | 'ndjson';
  seconds: number;
  bytes: number;
  readings_per_second: number;
  mb_per_second: number;
  peak_rss_mb: number;
  /** The server's peak RSS when a quarter, half and all of the export had been received (flat: constant memory). */
  peak_rss_mb_at: { quarter: number; half: number; end: number };
}

export interface ExportBenchResult {
  engine: Engine;
  build_seconds: number;
  small: ExportRun;
  large: ExportRun;
}

const METRICS = ['climate.temp_c', 'climate.humidity_pct', 'air.ammonia_ppm', 'water.flow_lpm', 'feed.kg'];

function envEngines(): Engine[] {
  return (process.env.BENCH_ENGINES ?? 'sqlite,postgres')
    .split(',')
    .map((e) => e.trim())
    .filter((e): e is Engine => e === 'sqlite' || e === 'postgres');
}

/** `n` readings for one device, one a second up to now, written with one INSERT … SELECT over a series. */
async function fillReadings(
  db: Awaited<ReturnType<typeof openDatabase>>['db'],
  device: { id: string; farm_id: string },
  n: number,
  now: number,
): Promise<void> {
  const start = now - n * 1000;
  const postgres = isPostgres(db);
  if (postgres) await ensureReadingPartitions(db, start);
  const chunk = 1_000_000;
  for (let from = 0; from < n; from += chunk) {
    const to = Math.min(n, from + chunk) - 1;
    const series = postgres
      ? sql`select generate_series(${sql.lit(from)}, ${sql.lit(to)}) as n`
      : sql`with recursive s(n) as (select ${sql.lit(from)} union all select n + 1 from s where n < ${sql.lit(to)}) select n from s`;
    const metric = sql.raw(
      `case s.n % ${METRICS.length} ${METRICS.map((m, i) => `when ${i} then '${m}'`).join(' ')} end`,
    );
    await sql`insert into readings (device_id, farm_id, metric, value, unit, at)
      select ${device.id}, ${device.farm_id}, ${metric}, 20 + (s.n % 997) / 10.0, null,
        ${sql.lit(start)} + cast(s.n as bigint) * 1000
      from (${series}) s`.execute(db);
  }
  await sql`analyze`.execute(db);
}

/** Streams one export from a fresh server, counting bytes and lines; returns its figures. */
async function timeExport(
  env: Record<string, string>,
  key: string,
  deviceId: string,
  format: 'csv' | 'ndjson',
  expected: number,
): Promise<ExportRun> {
  const server = await startServer(env);
  try {
    const started = performance.now();
    const res = await fetch(
      `http://127.0.0.1:${server.port}/v1/devices/${deviceId}/readings/export?format=${format}`,
      {
        headers: { authorization: `Bearer ${key}`, 'accept-encoding': 'identity' },
      },
    );
    if (!res.ok || !res.body) throw new Error(`export answered ${res.status}: ${await res.text()}`);
    let bytes = 0;
    let lines = 0;
    const at = { quarter: 0, half: 0, end: 0 };
    for await (const chunk of res.body) {
      bytes += chunk.length;
      for (const b of chunk) if (b === 10) lines++;
      if (!at.quarter && lines >= expected / 4) at.quarter = Math.round(server.peakRssMb());
      if (!at.half && lines >= expected / 2) at.half = Math.round(server.peakRssMb());
    }
    at.end = Math.round(server.peakRssMb());
    const seconds = (performance.now() - started) / 1000;
    const readings = format === 'csv' ? lines - 1 : lines;
    return {
      readings,
      format,
      seconds: Math.round(seconds * 100) / 100,
      bytes,
      readings_per_second: Math.round(readings / seconds),
      mb_per_second: Math.round((bytes / 2 ** 20 / seconds) * 10) / 10,
      peak_rss_mb: at.end,
      peak_rss_mb_at: at,
    };
  } finally {
    await server.stop();
  }
}

async function benchEngine(
  engine: Engine,
  large: number,
  small: number,
  log: (text: string) => void,
): Promise<ExportBenchResult> {
  const database = await createBenchDatabase(engine);
  try {
    const opened = await openDatabase(database.config);
    let key: string;
    let bigId: string;
    let smallId: string;
    const built = performance.now();
    try {
      const account = await createAccount(opened.db, { name: 'Export bench' });
      key = account.live_key;
      const scope = { accountId: account.account_id, mode: 'live' as const };
      const farm = await createFarm(opened.db, scope, { name: 'Export farm', timezone: 'UTC' });
      const big = await createDevice(opened.db, scope, farm.id, { type: 'house', name: 'Big house' });
      const little = await createDevice(opened.db, scope, farm.id, { type: 'house', name: 'Small house' });
      bigId = big.id;
      smallId = little.id;
      const now = Date.now();
      log(`${engine}: writing ${large} readings of one device, and ${small} of another`);
      await fillReadings(opened.db, { id: big.id, farm_id: farm.id }, large, now);
      await fillReadings(opened.db, { id: little.id, farm_id: farm.id }, small, now);
    } finally {
      await opened.close();
    }
    const buildSeconds = Math.round((performance.now() - built) / 100) / 10;
    log(`${engine}: built in ${buildSeconds} s; exporting`);
    const smallRun = await timeExport(database.env, key, smallId, 'csv', small);
    const largeRun = await timeExport(database.env, key, bigId, 'csv', large);
    if (largeRun.readings !== large)
      throw new Error(`the export wrote ${largeRun.readings} of ${large} readings`);
    log(`${engine}: ${JSON.stringify({ small: smallRun, large: largeRun })}`);
    return { engine, build_seconds: buildSeconds, small: smallRun, large: largeRun };
  } finally {
    await database.drop();
  }
}

export async function benchExport(
  options: { engines?: Engine[]; readings?: number; log?: (text: string) => void } = {},
): Promise<ExportBenchResult[]> {
  const engines = options.engines ?? envEngines();
  const large = options.readings ?? Number(process.env.BENCH_EXPORT_READINGS ?? 5_000_000);
  const log =
    options.log ??
    ((text: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)}  ${text}\n`));
  const results: ExportBenchResult[] = [];
  for (const engine of engines) results.push(await benchEngine(engine, large, 10_000, log));
  return results;
}

if (import.meta.main) {
  const results = await benchExport();
  console.log(JSON.stringify(results, null, 2));
}
