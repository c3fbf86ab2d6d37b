/**
 * The weigh-session benchmark (issue 47): POST /v1/farms/{farm}/weigh-sessions/import of a 5,000-row
 * Datamars-style file (VID, EID, Weight, Date, Time, BCS) on a farm of 5,000 cattle, through HTTP against the
 * real server, on each engine: a dry run, then imports of five different sessions (each a month later, so
 * every row is matched and stored: 5,000 weight events, their event.created rows and the session). The time
 * is the request's, measured by the client on the same machine (so it holds the server's time and the
 * loopback). Target: under 1 s per 5,000-row import.
 *
 *   npx node bench/weigh-session.ts     (BENCH_ENGINES=sqlite,postgres  FARMSTEAD_BENCH_PG_URL=<admin URL>)
 *
 * `benchWeighSession()` returns one result per engine for `npm run bench` to print.
 */
import type { Engine } from '../src/db/database.ts';
import { openDatabase } from '../src/db/database.ts';
import { createAccount } from '../src/modules/accounts/service.ts';
import { createFarm } from '../src/modules/farms/service.ts';
import { createBenchDatabase } from './lib/db.ts';
import { buildFarm } from './lib/farm.ts';
import { startServer } from './lib/server.ts';

export const WEIGH_SESSION_ROWS = 5_000;
export const WEIGH_SESSION_TARGET_MS = 1_000;
const SESSIONS = 5;

export interface WeighSessionBenchResult {
  engine: Engine;
  rows: number;
  dry_run_ms: number;
  import_ms_p50: number;
  import_ms_max: number;
  stored_per_import: number;
  target_ms: number;
  met: boolean;
}

function envEngines(): Engine[] {
  return (process.env.BENCH_ENGINES ?? 'sqlite,postgres')
    .split(',')
    .map((e) => e.trim())
    .filter((e): e is Engine => e === 'sqlite' || e === 'postgres');
}

/** A session file: every animal weighed once on day `month` months after the first, a few seconds apart. */
function sessionFile(animals: ReadonlyArray<{ tag: string; eid: string }>, month: number): string {
  const lines = ['VID,EID,Weight,Date,Time,BCS'];
  for (const [i, a] of animals.entries()) {
    const kg = (300 + (i % 200) + month * 25).toFixed(1);
    const minute = Math.floor(i / 60) % 60;
    const hour = 6 + Math.floor(i / 3600);
    const clock = `${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}`;
    lines.push(
      `${a.tag},${a.eid.slice(0, 3)} ${a.eid.slice(3)},${kg},0${month + 1}/0${month + 1}/2026,${clock},3`,
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}

async function timed(
  url: string,
  key: string,
  body: unknown,
): Promise<{ ms: number; json: Record<string, unknown> }> {
  const started = performance.now();
  const res = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  const ms = performance.now() - started;
  if (res.status >= 300)
    throw new Error(`import answered ${res.status}: ${JSON.stringify(json).slice(0, 500)}`);
  return { ms, json };
}

async function benchEngine(engine: Engine, log: (text: string) => void): Promise<WeighSessionBenchResult> {
  const database = await createBenchDatabase(engine);
  try {
    const opened = await openDatabase(database.config);
    let key: string;
    let farmId: string;
    let animals: Array<{ tag: string; eid: string }>;
    try {
      const account = await createAccount(opened.db, { name: 'Weigh session bench' });
      key = account.live_key;
      const farm = await createFarm(
        opened.db,
        { accountId: account.account_id, mode: 'live' },
        { name: 'Feedlot', timezone: 'Pacific/Auckland' },
      );
      farmId = farm.id;
      log(`${engine}: building ${WEIGH_SESSION_ROWS} cattle`);
      await buildFarm(
        opened.db,
        { id: farm.id, accountId: account.account_id, mode: 'live' },
        { animals: WEIGH_SESSION_ROWS, devices: 1, readingsPerDevice: 1 },
        Date.now(),
      );
      const rows = await opened.db
        .selectFrom('animals')
        .select(['tag', 'eid'])
        .where('farm_id', '=', farm.id)
        .orderBy('tag')
        .execute();
      animals = rows.flatMap((r) => (r.tag && r.eid ? [{ tag: r.tag, eid: r.eid }] : []));
    } finally {
      await opened.close();
    }
    const server = await startServer(database.env);
    try {
      const url = `http://127.0.0.1:${server.port}/v1/farms/${farmId}/weigh-sessions/import`;
      // A first import warms the server (its statements, its JIT); then the measured ones.
      await timed(url, key, { content: sessionFile(animals, 0) });
      const dry = await timed(url, key, { content: sessionFile(animals, 1), dry_run: true });
      const times: number[] = [];
      let stored = 0;
      for (let month = 1; month <= SESSIONS; month++) {
        const { ms, json } = await timed(url, key, { content: sessionFile(animals, month) });
        times.push(ms);
        stored = Number(json.head_count);
        log(`${engine}: session ${month}: ${stored} weights in ${ms.toFixed(0)} ms`);
      }
      times.sort((a, b) => a - b);
      const p50 = times[Math.floor(times.length / 2)] as number;
      const max = times[times.length - 1] as number;
      return {
        engine,
        rows: animals.length,
        dry_run_ms: Math.round(dry.ms),
        import_ms_p50: Math.round(p50),
        import_ms_max: Math.round(max),
        stored_per_import: stored,
        target_ms: WEIGH_SESSION_TARGET_MS,
        met: max < WEIGH_SESSION_TARGET_MS && stored === animals.length,
      };
    } finally {
      await server.stop();
    }
  } finally {
    await database.drop();
  }
}

/** Runs the weigh-session benchmark on each engine (sequentially: the machine's cores are shared). */
export async function benchWeighSession(
  options: { engines?: Engine[]; log?: (text: string) => void } = {},
): Promise<WeighSessionBenchResult[]> {
  const log =
    options.log ??
    ((text: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)}  ${text}\n`));
  const results: WeighSessionBenchResult[] = [];
  for (const engine of options.engines ?? envEngines()) results.push(await benchEngine(engine, log));
  return results;
}

if (import.meta.main) {
  const results = await benchWeighSession();
  console.table(results);
  console.log(JSON.stringify(results));
}
