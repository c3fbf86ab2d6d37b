/**
 * The brief benchmark: GET /v1/farms/{farm}/brief on a farm with 5,000 animals, 500 devices and
 * 5 million readings, through HTTP against the real server (`src/main.ts serve`), one client, on
 * each engine. The farm is written straight into a fresh database with bulk inserts
 * (bench/lib/farm.ts: bench data only; the sample farm goes through the services). Two farms per
 * engine: one whose devices have just reported, and one whose devices all went silent 2 hours ago (the
 * most work the quiet-device check can do). Target: p99 under 50 ms on SQLite.
 *
 *   npx node bench/brief.ts        (BENCH_ENGINES=sqlite,postgres  BENCH_READINGS=10000 per device
 *                                    BENCH_REQUESTS=300  FARMSTEAD_BENCH_PG_URL=<admin URL>)
 *
 * `benchBrief()` returns one result per engine for `npm run bench` to print.
 */
import type { Engine } from '../src/db/database.ts';
import { openDatabase } from '../src/db/database.ts';
import { HOUR_MS } from '../src/lib/time.ts';
import { createAccount } from '../src/modules/accounts/service.ts';
import { createFarm } from '../src/modules/farms/service.ts';
import { createBenchDatabase } from './lib/db.ts';
import { type BuiltFarm, buildFarm } from './lib/farm.ts';
import { runLoad } from './lib/load.ts';
import { startServer } from './lib/server.ts';

export interface BriefBenchResult {
  engine: Engine;
  /** `normal`: devices reported just now (a few are quiet); `all quiet`: every device silent for 2 h. */
  scenario: 'normal' | 'all quiet';
  animals: number;
  devices: number;
  readings: number;
  /** Seconds to write the farm into the database. */
  build_seconds: number;
  requests: number;
  ms_p50: number;
  ms_p99: number;
  ms_max: number;
  /** Items the brief ranked (a sanity check that it did the work). */
  items: number;
  target_ms: number;
  met: boolean;
}

export interface BriefBenchOptions {
  engines?: Engine[];
  animals?: number;
  devices?: number;
  readingsPerDevice?: number;
  requests?: number;
  log?: (text: string) => void;
}

export const BRIEF_TARGET_MS = 50;

function envEngines(): Engine[] {
  return (process.env.BENCH_ENGINES ?? 'sqlite,postgres')
    .split(',')
    .map((e) => e.trim())
    .filter((e): e is Engine => e === 'sqlite' || e === 'postgres');
}

async function benchEngine(
  engine: Engine,
  options: Required<BriefBenchOptions>,
): Promise<BriefBenchResult[]> {
  const database = await createBenchDatabase(engine);
  try {
    const opened = await openDatabase(database.config);
    let key: string;
    const farms: Array<{ scenario: BriefBenchResult['scenario']; id: string; built: BuiltFarm }> = [];
    try {
      const account = await createAccount(opened.db, { name: 'Brief bench' });
      key = account.live_key;
      // The second farm's devices all stopped reporting 2 hours ago: the brief then works out the usual
      // interval of every device (the most work its quiet-device check can do).
      for (const [scenario, shift] of [
        ['normal', 0],
        ['all quiet', 2 * HOUR_MS],
      ] as const) {
        const farm = await createFarm(
          opened.db,
          { accountId: account.account_id, mode: 'live' },
          {
            name: `Big farm (${scenario})`,
            timezone: 'America/Chicago',
            lat: 38.95,
            lon: -92.33,
            acres: 4000,
          },
        );
        options.log(
          `${engine}: building ${options.animals} animals, ${options.devices} devices, ${options.devices * options.readingsPerDevice} readings (${scenario})`,
        );
        const built = await buildFarm(
          opened.db,
          { id: farm.id, accountId: account.account_id, mode: 'live' },
          {
            animals: options.animals,
            devices: options.devices,
            readingsPerDevice: options.readingsPerDevice,
          },
          Date.now() - shift,
        );
        options.log(`${engine}: built in ${built.seconds.toFixed(1)} s`);
        farms.push({ scenario, id: farm.id, built });
      }
    } finally {
      await opened.close();
    }

    const server = await startServer(database.env);
    try {
      const results: BriefBenchResult[] = [];
      for (const { scenario, id, built } of farms) {
        const spec = {
          method: 'GET',
          path: `/v1/farms/${id}/brief`,
          headers: { authorization: `Bearer ${key}` },
        };
        const check = await fetch(`http://127.0.0.1:${server.port}${spec.path}`, { headers: spec.headers });
        if (!check.ok) throw new Error(`brief answered ${check.status}: ${await check.text()}`);
        const body = (await check.json()) as { items: unknown[] };
        await runLoad({ port: server.port, connections: 1, totalRequests: 30, next: () => spec });
        const result = await runLoad({
          port: server.port,
          connections: 1,
          totalRequests: options.requests,
          next: () => spec,
        });
        if (result.errors > 0) throw new Error(`brief errors: ${JSON.stringify(result.statusCounts)}`);
        results.push({
          engine,
          scenario,
          animals: built.animalIds.length,
          devices: built.deviceIds.length,
          readings: built.readings,
          build_seconds: Math.round(built.seconds * 10) / 10,
          requests: result.requests,
          ms_p50: Math.round(result.p50Ms * 100) / 100,
          ms_p99: Math.round(result.p99Ms * 100) / 100,
          ms_max: Math.round(result.maxMs * 100) / 100,
          items: body.items.length,
          target_ms: BRIEF_TARGET_MS,
          met: result.p99Ms <= BRIEF_TARGET_MS,
        });
      }
      return results;
    } finally {
      await server.stop();
    }
  } finally {
    await database.drop();
  }
}

/** Runs the brief benchmark on each engine (sequentially: the machine's cores are shared). */
export async function benchBrief(options: BriefBenchOptions = {}): Promise<BriefBenchResult[]> {
  const full: Required<BriefBenchOptions> = {
    engines: options.engines ?? envEngines(),
    animals: options.animals ?? 5_000,
    devices: options.devices ?? 500,
    readingsPerDevice: options.readingsPerDevice ?? Number(process.env.BENCH_READINGS ?? 10_000),
    requests: options.requests ?? Number(process.env.BENCH_REQUESTS ?? 300),
    log:
      options.log ?? ((text) => process.stderr.write(`${new Date().toISOString().slice(11, 19)}  ${text}\n`)),
  };
  const results: BriefBenchResult[] = [];
  for (const engine of full.engines) results.push(...(await benchEngine(engine, full)));
  return results;
}

if (import.meta.main) {
  const results = await benchBrief();
  console.table(results);
  console.log(JSON.stringify(results));
}
