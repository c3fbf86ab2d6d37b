/**
 * Alert rule benchmarks (BENCH_PHASES=rules): the cost of a farm's own rules and of `for_s` on ingest,
 * and the device.quiet pass over 100,000 devices.
 */
import { sql } from 'kysely';
import { FARM_CHANGE_HOOKS } from '../src/app.ts';
import { openDatabase } from '../src/db/database.ts';
import type { Db } from '../src/db/schema.ts';
import { newId } from '../src/domain/ids.ts';
import { RULE_NAMES } from '../src/domain/rules.ts';
import { checkQuietDevices } from '../src/modules/alert-passes/quiet.ts';
import type { Scope } from '../src/modules/farms/access.ts';
import { createFarm, updateFarm } from '../src/modules/farms/service.ts';
import { createRule, deleteRule, listRules } from '../src/modules/rules/service.ts';
import type { BenchDatabase } from './lib/db.ts';

/** Metrics of the bench reports (bench/lib/reports.ts) the custom rules watch, and their normal band. */
const WATCHED: ReadonlyArray<readonly [string, number]> = [
  ['climate.humidity_pct', 90],
  ['climate.co2_ppm', 3000],
  ['power.solar_w', 2000],
  ['power.load_w', 500],
  ['birds.inside', 2000],
];

/** Runs `work` on a connection of its own to the bench database, as the bench account's live mode. */
async function asBenchAccount<T>(
  database: BenchDatabase,
  accountId: string,
  work: (db: Db, scope: Scope) => Promise<T>,
): Promise<T> {
  const opened = await openDatabase(database.config, { migrate: false });
  try {
    return await work(opened.db, { accountId, mode: 'live' });
  } finally {
    await opened.close();
  }
}

/**
 * Gives the farm 20 rules of its own on the metrics the bench reports carry (threshold and rate,
 * some scoped to houses, a few sustained) and `for_s` on every default rule.
 */
export async function addBenchRules(
  database: BenchDatabase,
  accountId: string,
  farmId: string,
): Promise<void> {
  await asBenchAccount(database, accountId, async (db, scope) => {
    for (let i = 0; i < 20; i++) {
      const [metric, line] = WATCHED[i % WATCHED.length] as readonly [string, number];
      const base = {
        name: `bench.rule.${i}`,
        metric,
        ...(i % 2 === 0 ? { device_type: 'house' as const } : {}),
      };
      if (i % 4 === 3) {
        await createRule(db, scope, farmId, { ...base, kind: 'rate', change: line, window_s: 3600 });
      } else {
        await createRule(db, scope, farmId, {
          ...base,
          direction: 'above',
          watch: line,
          urgent: line * 1.2,
          clear: line * 0.8,
          ...(i % 3 === 0 ? { for_s: 600 } : {}),
        });
      }
    }
    const rules = Object.fromEntries(RULE_NAMES.map((name) => [name, { for_s: 300 }]));
    await updateFarm(db, scope, farmId, { settings: { rules } }, FARM_CHANGE_HOOKS);
  });
}

/** Takes addBenchRules back: deletes its 20 rules and the farm's rule overrides (`for_s`). */
export async function removeBenchRules(
  database: BenchDatabase,
  accountId: string,
  farmId: string,
): Promise<void> {
  await asBenchAccount(database, accountId, async (db, scope) => {
    const { data } = await listRules(db, scope, farmId);
    for (const rule of data) {
      if (rule.id && rule.name.startsWith('bench.rule.')) await deleteRule(db, scope, rule.id);
    }
    // The bench farm had no settings before addBenchRules gave it its overrides.
    await updateFarm(db, scope, farmId, { settings: null }, FARM_CHANGE_HOOKS);
  });
}

export interface QuietPassFigures {
  devices: number;
  silent: number;
  firstPassMs: number;
  opened: number;
  steadyPassMs: number;
}

/**
 * 100,000 devices on 100 farms, 1 % of them silent for 2 h (the rest reported within their usual
 * 5 minutes): the first pass opens their alerts, a second finds nothing new. Both timed.
 */
export async function benchQuietPass(
  database: BenchDatabase,
  accountId: string,
  devices = 100_000,
): Promise<QuietPassFigures> {
  return asBenchAccount(database, accountId, async (db, scope) => {
    const now = Date.now();
    const farms: string[] = [];
    for (let f = 0; f < 100; f++) farms.push((await createFarm(db, scope, { name: `Quiet bench ${f}` })).id);
    const silentEvery = 100;
    for (let start = 0; start < devices; start += 1000) {
      const rows = [];
      for (let i = start; i < Math.min(devices, start + 1000); i++) {
        const silent = i % silentEvery === 0;
        rows.push({
          id: newId('device', now),
          farm_id: farms[i % farms.length] as string,
          type: i % 10 === 0 ? 'house' : 'tag',
          name: `Device ${i}`,
          serial: null,
          animal_id: null,
          group_id: null,
          firmware: null,
          lat: null,
          lon: null,
          battery: null,
          state: '{}',
          key_hash: `bench-${i}-${now}`,
          key_prefix: 'rd_bench',
          last_seen_at: silent ? now - 2 * 3_600_000 : now - (i % 300) * 1000,
          created_at: now - 86_400_000,
          report_gap_ms: 300_000,
          quiet_level: null,
        });
      }
      await db.insertInto('devices').values(rows).execute();
    }
    if (database.engine === 'postgres') await sql`analyze devices`.execute(db);
    let t0 = performance.now();
    const first = await checkQuietDevices(db, now);
    const firstPassMs = performance.now() - t0;
    t0 = performance.now();
    await checkQuietDevices(db, now + 1000);
    const steadyPassMs = performance.now() - t0;
    return {
      devices,
      silent: Math.ceil(devices / silentEvery),
      firstPassMs,
      opened: first.opened,
      steadyPassMs,
    };
  });
}
