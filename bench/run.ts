/**
 * `npm run bench`: starts the real server (the `npm start` command from package.json, a fresh process
 * per phase so each phase's peak RSS is its own) on each engine, drives it over HTTP from this process, and prints one
 * table where every figure stands beside a reference measured in the same run on the same machine:
 *
 *   ingest, 100-reading reports, 50 devices     vs  raw inserts of the same rows through the same driver
 *   ingest, 1-reading reports, 50 devices       vs  a bare Fastify hello-world at 50 connections, measured
 *                                                   right before the phase (the machine's speed drifts)
 *   reads at 100 connections (animal, list of 50, house view, brief)  vs  hello-world at 100 connections,
 *                                                   likewise right before them
 *   the brief on 5,000 animals / 500 devices / 5 M readings, one client  vs  hello-world at 1 connection
 *     (bench/brief.ts: a farm whose devices just reported, and one whose devices all went quiet)
 *   a 5 M-reading CSV export of one device, streamed  vs  a 10,000-reading export (throughput, peak RSS;
 *     bench/export.ts: constant memory whatever the size)
 *   MQTT ingest, the same two loads over MQTT    vs  the HTTP figures (publish → stored, bench/mqtt.ts)
 *   LoRaWAN: a burst of 1,000 ChirpStack uplinks from 200 devices (+100 repeats)  vs  the HTTP 1-reading
 *                                                   ingest figure (bench/lorawan.ts; each stored once)
 *   command push latency, REST → device over MQTT (p50/p99)
 *   a 5,000-row weigh session imported over HTTP, per import (bench/weigh-session.ts; target under 1 s)
 *   peak server RSS per phase                    vs  the hello-world process
 *
 *   fleet (only with BENCH_PHASES=fleet, never in `all`): BENCH_FLEET_DEVICES simulated devices over MQTT,
 *     each once a minute, then 2,000 reports/s per 10,000 devices; on the embedded broker (one process,
 *     SQLite) and on Mosquitto (three processes, PostgreSQL): publish → stored, command delivery, every
 *     report stored once, each process's RSS and CPU (bench/fleet.ts; its settings there)
 *
 * Settings: BENCH_PHASES=all (or rules: only the alert rule phases, bench/rules.ts; reads: only the reads at
 * 100 connections; ingest: only the two HTTP ingest loads; lorawan: only the uplink burst, beside the HTTP
 * ingest figure when ingest runs too; pedigree: only the inbreeding of a 50,000-animal pedigree, bench/pedigree.ts;
 * or a comma-separated mix such as all,rules or ingest,lorawan)
 * BENCH_ENGINES=sqlite,postgres  BENCH_SECONDS=12 (per measured phase)  BENCH_READINGS=10000
 * (readings per device of the brief farms)  BENCH_REQUESTS=300 (briefs timed)  BENCH_SERVER_NODE_OPTIONS
 * (NODE_OPTIONS for the server only, e.g. heap caps or --cpu-prof)  BENCH_SERVER_ARGS (flags NODE_OPTIONS
 * refuses, e.g. --trace-gc)  BENCH_SERVER_STDOUT (a file the server's output is appended to)  BENCH_READS=list (only the reads whose
 * name holds one of these words: animal, list, house, brief)  FARMSTEAD_BENCH_PG_URL (an admin URL; a database is made
 * and dropped). Results also go to .bench-data/results-<time>.json. Never part of `npm test`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { type Engine, openDatabase } from '../src/db/database.ts';
import { freePort } from '../test/throwaway.ts';
import { BRIEF_TARGET_MS, benchBrief } from './brief.ts';
import { benchExport } from './export.ts';
import { benchFleet, FLEET_DEVICES, type FleetResult, type FleetSetup } from './fleet.ts';
import { type BenchDatabase, checkpoint, createBenchDatabase, postgresVersion } from './lib/db.ts';
import { type LoadResult, type RequestSpec, runLoad } from './lib/load.ts';
import { rawInsertReference } from './lib/raw-insert.ts';
import { pastOrigin } from './lib/reports.ts';
import {
  type RunningServer,
  startCommand,
  startHello,
  startServer,
  watchChildrenPeakRss,
} from './lib/server.ts';
import { INGEST_DEVICES, ingestLoad, type Setup, setUp } from './lib/setup.ts';
import { LORAWAN_DEVICES, LORAWAN_UPLINKS, lorawanBurst, setUpLorawan, storedUplinks } from './lorawan.ts';
import { commandPush, mqttIngest } from './mqtt.ts';
import { benchPedigree, PEDIGREE_TARGET_MS } from './pedigree.ts';
import { addBenchRules, benchQuietPass, removeBenchRules } from './rules.ts';
import { benchWeighSession } from './weigh-session.ts';

const ENGINES = (process.env.BENCH_ENGINES ?? 'sqlite,postgres')
  .split(',')
  .map((e) => e.trim())
  .filter((e): e is Engine => e === 'sqlite' || e === 'postgres');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 12);
const MEASURE_MS = SECONDS * 1000;
const WARMUP_MS = Math.min(3000, MEASURE_MS / 4);
const READ_CONNECTIONS = 100;

/**
 * The targets this table checks: each a share of its reference in the same run, per engine, except the
 * p99 bounds and the peak RSS. Issue 48 ("each process as fast as the machine allows") set the 1-reading
 * reports, GET an animal and PostgreSQL's 100-reading reports against a load generator that is not the
 * limit (autocannon, bench/lib/load.ts); the others are issue 19's ("Performance, round 2"), set when the
 * generator was a node:http client that limited the hello-world reference (the list, house view and brief
 * ratios are lower against a reference the generator no longer holds back, for the same server).
 */
const TARGETS = {
  sqlite: { ingest100: 0.7, ingest1: 0.1, animal: 0.3, list: 0.25, house: 0.35, brief: 0.1 },
  postgres: { ingest100: 0.6, ingest1: 0.06, animal: 0.3, list: 0.2, house: 0.25, brief: 0.08 },
} as const satisfies Record<Engine, Record<string, number>>;
/** p99 of 1-reading reports at 50 connections (issue 48). */
const INGEST1_P99_MS: Record<Engine, number> = { sqlite: 25, postgres: 30 };
/** p99 of GET an animal at 100 connections, SQLite (issue 19). */
const SINGLE_READ_P99_MS = 15;
const PEAK_RSS_MB = 250;
const pct = (share: number) => `≥ ${Math.round(share * 100)}%`;

interface Row {
  engine: string;
  what: string;
  value: string;
  reference: string;
  ratio: string;
  p50: string;
  p99: string;
  rss: string;
  target: string;
  met: boolean | null;
}

const rows: Row[] = [];
const raw: Record<string, unknown> = {};
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits });
const ms = (n: number) => `${n < 10 ? n.toFixed(2) : n.toFixed(1)} ms`;
const log = (text: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)}  ${text}\n`);

/** Warms the server up (results dropped), then measures. */
async function measure(
  server: RunningServer,
  connections: number,
  next: ((worker: number) => RequestSpec) | RequestSpec,
  durationMs = MEASURE_MS,
): Promise<LoadResult> {
  await runLoad({ port: server.port, connections, durationMs: WARMUP_MS, next });
  const result = await runLoad({ port: server.port, connections, durationMs, next });
  const bad = Object.entries(result.statusCounts).filter(([status]) => Number(status) >= 300);
  if (bad.length > 0 || result.errors > 0) {
    throw new Error(`unexpected answers: ${JSON.stringify(result.statusCounts)}, ${result.errors} errors`);
  }
  return result;
}

/** Hello-world's one request, built once by the load generator (bench/lib/load.ts). */
const HELLO_REQUEST: RequestSpec = { method: 'GET', path: '/' };

interface Hello {
  c1: LoadResult;
  rssMb: number;
}

/** Hello-world at one connection (the brief's reference) and its process's peak RSS, at the start. */
async function measureHello(): Promise<Hello> {
  log('reference: bare Fastify hello-world');
  const hello = await startHello();
  try {
    const c1 = await measure(hello, 1, HELLO_REQUEST, MEASURE_MS / 2);
    return { c1, rssMb: hello.peakRssMb() };
  } finally {
    await hello.stop();
  }
}

/**
 * Hello-world at `connections`, measured right before the phase it is the reference of: on a shared machine
 * its speed drifts by as much as 2× within minutes, and a reference from the start of a ten-minute run
 * would measure another machine than the phase does.
 */
async function helloBeside(engine: Engine, connections: number): Promise<LoadResult> {
  log(`${engine}: reference: bare Fastify hello-world at ${connections} connections`);
  const hello = await startHello();
  try {
    const result = await measure(hello, connections, HELLO_REQUEST, MEASURE_MS / 2);
    raw[`${engine}.hello${connections}`] = result;
    return result;
  } finally {
    await hello.stop();
  }
}

async function withServer<T>(
  database: BenchDatabase,
  fn: (server: RunningServer) => Promise<T>,
): Promise<{ result: T; rssMb: number }> {
  const server = await startServer(database.env);
  try {
    const result = await fn(server);
    return { result, rssMb: server.peakRssMb() };
  } finally {
    await server.stop();
  }
}

async function storedReadings(database: BenchDatabase, farmId: string): Promise<number> {
  const opened = await openDatabase(database.config, { migrate: false });
  try {
    const row = await opened.db
      .selectFrom('readings')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('farm_id', '=', farmId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  } finally {
    await opened.close();
  }
}

/**
 * BENCH_PHASES=rules: ingest of 100-reading reports as today (the reference), then with 20 rules of the
 * farm's own and for_s on every default rule (within 15 %); and the device.quiet pass over 100,000
 * devices (under 1 s).
 */
async function benchRules(engine: Engine, database: BenchDatabase, setup: Setup): Promise<number> {
  const farmId = setup.ingestDevices[0]?.farm_id ?? '';
  const origin = pastOrigin();
  // Four half-length loads in the order defaults, rules, rules, defaults: a drift of the machine, or the
  // readings table growing from load to load, weighs on both sides alike instead of on the second.
  let shift = 0;
  const load = async (what: string) => {
    log(`${engine}: ingest, 100-reading reports, ${what}`);
    const at = origin + 30 * 86_400_000 * shift++;
    return withServer(database, (server) =>
      measure(server, INGEST_DEVICES, ingestLoad(setup, at, 100), MEASURE_MS / 2),
    );
  };
  const defaults1 = await load("default rules (today's figure)");
  await addBenchRules(database, setup.accountId, farmId);
  const ruled1 = await load('20 custom rules and for_s on every default rule');
  const ruled2 = await load('20 custom rules and for_s on every default rule, again');
  await removeBenchRules(database, setup.accountId, farmId);
  const defaults2 = await load('default rules, again');
  const perSecond = (a: { result: LoadResult }, b: { result: LoadResult }) =>
    ((a.result.perSecond + b.result.perSecond) / 2) * 100;
  const before = perSecond(defaults1, defaults2);
  const after = perSecond(ruled1, ruled2);
  rows.push({
    engine,
    what: 'ingest, 100-reading reports, 20 custom rules + for_s on the defaults (readings/s)',
    value: fmt(after),
    reference: `${fmt(before)}/s with the defaults only`,
    ratio: `${fmt((after / before) * 100)}%`,
    p50: ms(ruled2.result.p50Ms),
    p99: ms(ruled2.result.p99Ms),
    rss: `${fmt(Math.max(ruled1.rssMb, ruled2.rssMb))} MB`,
    target: '≥ 85% of today',
    met: after >= before * 0.85,
  });
  raw[`${engine}.rules.ingest`] = { defaults: [defaults1, defaults2], ruled: [ruled1, ruled2] };
  log(`${engine}: device.quiet pass over 100,000 devices`);
  const quiet = await benchQuietPass(database, setup.accountId);
  rows.push({
    engine,
    what: `device.quiet pass, ${fmt(quiet.devices)} devices, ${fmt(quiet.silent)} newly silent (first pass; steady pass)`,
    value: `${ms(quiet.firstPassMs)}; ${ms(quiet.steadyPassMs)}`,
    reference: `${fmt(quiet.opened)} alerts opened`,
    ratio: '',
    p50: '',
    p99: '',
    rss: '',
    target: '< 1 s',
    met: quiet.firstPassMs < 1000 && quiet.steadyPassMs < 1000,
  });
  raw[`${engine}.rules.quiet`] = quiet;
  // Where the phases after this one start their readings: past all of this phase's (each load covers at
  // most a few days of its 30), or they would all be late for the alert engine, which then evaluates nothing.
  return origin + 30 * 86_400_000 * shift;
}

/** Authenticated reads at 100 connections on the typical farm (BENCH_PHASES=reads runs only these); its peak RSS. */
async function benchReads(engine: Engine, database: BenchDatabase, setup: Setup): Promise<number> {
  log(`${engine}: reads at ${READ_CONNECTIONS} connections`);
  const auth = { authorization: `Bearer ${setup.liveKey}` };
  const { animalIds, houseIds, farmId: typicalId } = setup.typical;
  let n = 0;
  const reads: [string, () => RequestSpec][] = [
    [
      'GET an animal',
      () => ({ method: 'GET', path: `/v1/animals/${animalIds[n++ % animalIds.length]}`, headers: auth }),
    ],
    [
      'GET a list of 50 animals',
      () => ({ method: 'GET', path: `/v1/farms/${typicalId}/animals?limit=50`, headers: auth }),
    ],
    [
      'GET a house view',
      () => ({ method: 'GET', path: `/v1/houses/${houseIds[n++ % houseIds.length]}`, headers: auth }),
    ],
    [
      'GET the brief (300 animals, 30 devices)',
      () => ({ method: 'GET', path: `/v1/farms/${typicalId}/brief`, headers: auth }),
    ],
  ];
  // BENCH_READS=list (or animal, house, brief, comma-separated): only those reads, e.g. to profile one.
  const only = process.env.BENCH_READS?.split(',').map((w) => w.trim());
  // Each read's own word: "animal" is GET an animal only, not the list of 50 animals or the brief.
  const word = (name: string) => ['list', 'house', 'brief', 'animal'].find((w) => name.includes(w));
  const chosen = only ? reads.filter(([name]) => only.includes(word(name) ?? '')) : reads;
  const reference = await helloBeside(engine, READ_CONNECTIONS);
  const readResults = await withServer(database, async (server) => {
    const out: [string, LoadResult][] = [];
    for (const [name, next] of chosen) {
      out.push([name, await measure(server, READ_CONNECTIONS, next, MEASURE_MS / 2)]);
    }
    return out;
  });
  for (const [name, result] of readResults.result) {
    const share = result.perSecond / reference.perSecond;
    const wanted = TARGETS[engine][(word(name) ?? 'animal') as 'animal' | 'list' | 'house' | 'brief'];
    // GET an animal on SQLite also has a p99 target.
    const p99Bound = engine === 'sqlite' && word(name) === 'animal' ? SINGLE_READ_P99_MS : null;
    rows.push({
      engine,
      what: `${name}, ${READ_CONNECTIONS} connections (req/s)`,
      value: fmt(result.perSecond),
      reference: `${fmt(reference.perSecond)} hello-world/s`,
      ratio: `${fmt(share * 100)}%`,
      p50: ms(result.p50Ms),
      p99: ms(result.p99Ms),
      rss: `${fmt(readResults.rssMb)} MB`,
      target: p99Bound === null ? pct(wanted) : `${pct(wanted)}, p99 ≤ ${p99Bound} ms`,
      met: share >= wanted && (p99Bound === null || result.p99Ms <= p99Bound),
    });
  }
  raw[`${engine}.reads`] = readResults;
  return readResults.rssMb;
}

/**
 * The two HTTP ingest loads (BENCH_PHASES=ingest runs only these): 100-reading reports against raw inserts of
 * the same rows, and 1-reading reports against hello-world; each server's peak RSS goes to `phaseRss`.
 */
async function benchIngest(
  engine: Engine,
  database: BenchDatabase,
  setup: Setup,
  origin: number,
  phaseRss: number[],
): Promise<{ readingsPerSecond: number; reportsPerSecond: number }> {
  const farmId = setup.ingestDevices[0]?.farm_id ?? '';
  // 1. Ingest, 100-reading reports from 50 devices at once, alert rules on.
  log(`${engine}: ingest, 100-reading reports`);
  await checkpoint(database);
  const ingest100 = await withServer(database, (server) =>
    measure(server, INGEST_DEVICES, ingestLoad(setup, origin, 100)),
  );
  phaseRss.push(ingest100.rssMb);
  const stored = await storedReadings(database, farmId);
  log(`${engine}: raw inserts of the same rows (reference)`);
  await checkpoint(database);
  const reference = await rawInsertReference(database, setup.ingestDevices, {
    durationMs: MEASURE_MS,
    warmupMs: WARMUP_MS,
    origin: origin + 60 * 86_400_000,
    reportSize: 100,
  });
  const readingsPerSecond = ingest100.result.perSecond * 100;
  const share100 = readingsPerSecond / reference.rowsPerSecond;
  rows.push({
    engine,
    what: 'ingest, 100-reading reports, 50 devices (readings/s)',
    value: fmt(readingsPerSecond),
    reference: `${fmt(reference.rowsPerSecond)} raw inserts/s`,
    ratio: `${fmt(share100 * 100)}%`,
    p50: ms(ingest100.result.p50Ms),
    p99: ms(ingest100.result.p99Ms),
    rss: `${fmt(ingest100.rssMb)} MB`,
    target: pct(TARGETS[engine].ingest100),
    met: share100 >= TARGETS[engine].ingest100,
  });
  raw[`${engine}.ingest100`] = { ...ingest100, reference, storedReadings: stored };

  // 2. Ingest, 1-reading reports.
  const hello50 = await helloBeside(engine, INGEST_DEVICES);
  log(`${engine}: ingest, 1-reading reports`);
  await checkpoint(database);
  const ingest1 = await withServer(database, (server) =>
    measure(server, INGEST_DEVICES, ingestLoad(setup, origin + 30 * 86_400_000, 1)),
  );
  phaseRss.push(ingest1.rssMb);
  const share = ingest1.result.perSecond / hello50.perSecond;
  rows.push({
    engine,
    what: 'ingest, 1-reading reports, 50 devices (reports/s)',
    value: fmt(ingest1.result.perSecond),
    reference: `${fmt(hello50.perSecond)} hello-world/s`,
    ratio: `${fmt(share * 100)}%`,
    p50: ms(ingest1.result.p50Ms),
    p99: ms(ingest1.result.p99Ms),
    rss: `${fmt(ingest1.rssMb)} MB`,
    target: `${pct(TARGETS[engine].ingest1)}, p99 ≤ ${INGEST1_P99_MS[engine]} ms`,
    met: share >= TARGETS[engine].ingest1 && ingest1.result.p99Ms <= INGEST1_P99_MS[engine],
  });
  raw[`${engine}.ingest1`] = ingest1;
  // What the database itself allows for 1-reading reports: a transaction per row, no HTTP, no engine.
  await checkpoint(database);
  const reference1 = await rawInsertReference(database, setup.ingestDevices, {
    durationMs: MEASURE_MS,
    warmupMs: WARMUP_MS,
    origin: origin + 90 * 86_400_000,
    reportSize: 1,
  });
  rows.push({
    engine,
    what: '(reference) 1-row transactions through the same driver (/s)',
    value: fmt(reference1.rowsPerSecond),
    reference: '',
    ratio: `ingest ${fmt((ingest1.result.perSecond / reference1.rowsPerSecond) * 100)}%`,
    p50: ms(reference1.p50Ms),
    p99: ms(reference1.p99Ms),
    rss: '',
    target: '',
    met: null,
  });
  raw[`${engine}.raw1`] = reference1;
  return { readingsPerSecond, reportsPerSecond: ingest1.result.perSecond };
}

const PHASES = (process.env.BENCH_PHASES ?? 'all').split(',').map((p) => p.trim());
/** The embedded broker's process stays under this at 10,000 devices reporting every minute (issue 48). */
const FLEET_RSS_MB = 320;
/** Publish → stored p99 at the burst; a command reaching its device, p99. */
const FLEET_BURST_P99_MS = 500;
const FLEET_COMMAND_P99_MS = 1_000;

/** BENCH_PHASES=fleet: the fleet on each set-up (BENCH_FLEET_SETUPS=embedded,mosquitto), bench/fleet.ts. */
async function benchFleetPhase(): Promise<void> {
  const setups = (process.env.BENCH_FLEET_SETUPS ?? 'embedded,mosquitto')
    .split(',')
    .map((s) => s.trim())
    .filter((s): s is FleetSetup => s === 'embedded' || s === 'mosquitto');
  for (const setup of setups) {
    const r = await benchFleet(setup, log);
    raw[`fleet.${setup}`] = r;
    fleetRows(r);
  }
}

function fleetRows(r: FleetResult): void {
  const engine = r.setup === 'embedded' ? 'sqlite' : 'postgres';
  const where = r.setup === 'embedded' ? 'embedded broker, 1 process' : `Mosquitto, ${r.processes} processes`;
  const n = fmt(r.devices);
  const perProcess = (p: FleetResult['burst']) =>
    p.processes.map((x) => `${x.name} ${fmt(x.rssMb)} MB ${fmt(x.cpuPct)}%`).join('; ');
  const serversPeak = (p: FleetResult['burst']) =>
    Math.max(...p.processes.filter((x) => x.name !== 'mosquitto').map((x) => x.rssMb));
  rows.push(
    {
      engine,
      what: `fleet, ${where}: ${n} devices connect (connections/s; ${fmt(r.connectFailures)} failed, ${fmt(r.disconnects)} lost later)`,
      value: fmt(r.connected / r.connectSeconds),
      reference: `${fmt(r.connected)} of ${n} in ${fmt(r.connectSeconds, 1)} s`,
      ratio: '',
      p50: '',
      p99: '',
      rss: `${fmt(r.rssConnectedMb)} MB`,
      target: '',
      met: r.connected === r.devices ? null : false,
    },
    {
      engine,
      what: `fleet, ${where}: server RSS before / connected / after one QoS 1 report each (MB, all processes)`,
      value: `${fmt(r.rssBeforeMb)} / ${fmt(r.rssConnectedMb)} / ${fmt(r.rssReportedMb)}`,
      reference: `${n} reports answered in ${fmt(r.reportEachSeconds, 1)} s`,
      ratio: `${fmt(((r.rssConnectedMb - r.rssBeforeMb) * 1024) / r.devices, 1)} KB a device`,
      p50: '',
      p99: '',
      rss: `${fmt(r.rssReportedMb)} MB`,
      target: r.setup === 'embedded' ? `< ${FLEET_RSS_MB} MB` : '',
      met: r.setup === 'embedded' ? r.rssReportedMb < FLEET_RSS_MB : null,
    },
    {
      engine,
      what: `fleet, ${where}: each device once a minute, publish → stored (reports/s)`,
      value: fmt(r.steady.perSecond, 1),
      reference: perProcess(r.steady),
      ratio: `generator ${fmt(r.steady.generatorCpuPct)}% CPU`,
      p50: ms(r.steady.p50Ms),
      p99: ms(r.steady.p99Ms),
      rss: `${fmt(serversPeak(r.steady))} MB`,
      target: r.setup === 'embedded' ? `RSS < ${FLEET_RSS_MB} MB` : '',
      met: r.setup === 'embedded' ? serversPeak(r.steady) < FLEET_RSS_MB : null,
    },
  );
  // BENCH_FLEET_BURST_S=0: no burst, no row.
  if (r.burst.published > 0) {
    rows.push({
      engine,
      what: `fleet, ${where}: burst of ${fmt((2_000 * r.devices) / 10_000)} reports/s, publish → stored (reports/s)`,
      value: fmt(r.burst.perSecond),
      reference: perProcess(r.burst),
      ratio: `generator ${fmt(r.burst.generatorCpuPct)}% CPU`,
      p50: ms(r.burst.p50Ms),
      p99: ms(r.burst.p99Ms),
      rss: `${fmt(serversPeak(r.burst))} MB`,
      target: `p99 < ${FLEET_BURST_P99_MS} ms`,
      met: r.burst.p99Ms < FLEET_BURST_P99_MS && r.burst.unanswered === 0,
    });
  }
  rows.push(
    {
      engine,
      what: `fleet, ${where}: a command, REST → its device (${fmt(r.command.arrived)} of ${fmt(r.command.sent)} arrived)`,
      value: ms(r.command.p50Ms),
      reference: '',
      ratio: '',
      p50: ms(r.command.p50Ms),
      p99: ms(r.command.p99Ms),
      rss: '',
      target: `p99 < ${FLEET_COMMAND_P99_MS} ms`,
      met: r.command.arrived === r.command.sent && r.command.p99Ms < FLEET_COMMAND_P99_MS,
    },
    {
      engine,
      what: `fleet, ${where}: every report stored once (readings stored / published)`,
      value: fmt(r.stored.readingsStored),
      reference: `${fmt(r.stored.readingsPublished)} published`,
      ratio: '',
      p50: '',
      p99: '',
      rss: '',
      target: 'equal',
      met: r.stored.readingsStored === r.stored.readingsPublished,
    },
  );
}

/**
 * The LoRaWAN uplink burst (bench/lorawan.ts) on a fresh server, beside `reportsPerSecond` (the HTTP
 * 1-reading ingest figure of this run) when there is one.
 */
async function benchLorawan(
  engine: Engine,
  database: BenchDatabase,
  reportsPerSecond: number | null,
  phaseRss: number[],
): Promise<void> {
  // Its own devices, so no watermark to stay ahead of; network server times of the last few minutes, as
  // a real burst's would be (a device clock check must not take them for a skewed clock).
  const origin = Date.now() - 10 * 60_000;
  log(`${engine}: LoRaWAN, ${LORAWAN_UPLINKS} uplinks from ${LORAWAN_DEVICES} devices`);
  const setup = await setUpLorawan(database);
  await checkpoint(database);
  const burst = await withServer(database, (server) => lorawanBurst(server.port, setup, origin));
  phaseRss.push(burst.rssMb);
  const stored = await storedUplinks(database, setup.farmId);
  const result = burst.result;
  rows.push({
    engine,
    what: `LoRaWAN uplinks, ${fmt(LORAWAN_UPLINKS)} from ${LORAWAN_DEVICES} devices + ${LORAWAN_UPLINKS / 10} repeats (uplinks/s)`,
    value: fmt(result.perSecond),
    reference:
      reportsPerSecond === null ? '-' : `${fmt(reportsPerSecond)}/s 1-reading reports over /v1/ingest`,
    ratio: reportsPerSecond === null ? '-' : `${fmt((result.perSecond / reportsPerSecond) * 100)}%`,
    p50: ms(result.p50Ms),
    p99: ms(result.p99Ms),
    rss: `${fmt(burst.rssMb)} MB`,
    target: `each stored once (${fmt(stored)} of ${fmt(LORAWAN_UPLINKS)})`,
    met: stored === LORAWAN_UPLINKS && result.errors === 0,
  });
  raw[`${engine}.lorawan`] = { ...result, stored };
}

async function benchEngine(engine: Engine, hello: Hello): Promise<void> {
  const phaseRss: number[] = [];
  const database = await createBenchDatabase(engine);
  try {
    log(`${engine}: setting up (account, 50 house devices, a typical farm)`);
    const setup = await setUp(database);
    // Readings of later phases come after the rules phase's (its return), so none is late.
    const start = PHASES.includes('rules') ? await benchRules(engine, database, setup) : pastOrigin();
    if (PHASES.includes('reads') && !PHASES.includes('all')) await benchReads(engine, database, setup);
    if (PHASES.includes('ingest') && !PHASES.includes('all')) {
      const ingest = await benchIngest(engine, database, setup, start, phaseRss);
      if (PHASES.includes('lorawan')) {
        await benchLorawan(engine, database, ingest.reportsPerSecond, phaseRss);
      }
    } else if (PHASES.includes('lorawan') && !PHASES.includes('all')) {
      await benchLorawan(engine, database, null, phaseRss);
    }
    if (!PHASES.includes('all')) return;
    const origin = start;
    const http = await benchIngest(engine, database, setup, origin, phaseRss);
    const readingsPerSecond = http.readingsPerSecond;
    await benchLorawan(engine, database, http.reportsPerSecond, phaseRss);

    // 2b. The same two ingest loads over MQTT (publish → stored), and command push latency.
    log(`${engine}: MQTT ingest and command push`);
    const mqttPort = await freePort();
    const mqttServer = await startServer({
      ...database.env,
      FARMSTEAD_MQTT_PORT: String(mqttPort),
      FARMSTEAD_MQTT_RATE: '100000',
    });
    try {
      const load = { durationMs: MEASURE_MS, warmupMs: WARMUP_MS };
      const mqtt100 = await mqttIngest(mqttPort, setup.ingestDevices, {
        ...load,
        origin: origin + 90 * 86_400_000,
        size: 100,
      });
      const mqtt1 = await mqttIngest(mqttPort, setup.ingestDevices, {
        ...load,
        origin: origin + 120 * 86_400_000,
        size: 1,
      });
      const device = setup.ingestDevices[0] as { id: string; key: string };
      const push = await commandPush(mqttServer.port, mqttPort, setup.liveKey, device, 200);
      const rss = `${fmt(mqttServer.peakRssMb())} MB`;
      rows.push(
        {
          engine,
          what: 'MQTT ingest, 100-reading reports, 50 devices (readings/s)',
          value: fmt(mqtt100.perSecond * 100),
          reference: `${fmt(readingsPerSecond)}/s over HTTP`,
          ratio: `${fmt(((mqtt100.perSecond * 100) / readingsPerSecond) * 100)}%`,
          p50: ms(mqtt100.p50Ms),
          p99: ms(mqtt100.p99Ms),
          rss,
          target: '-',
          met: mqtt100.errors === 0 ? null : false,
        },
        {
          engine,
          what: 'MQTT ingest, 1-reading reports, 50 devices (reports/s)',
          value: fmt(mqtt1.perSecond),
          reference: `${fmt(http.reportsPerSecond)}/s over HTTP`,
          ratio: `${fmt((mqtt1.perSecond / http.reportsPerSecond) * 100)}%`,
          p50: ms(mqtt1.p50Ms),
          p99: ms(mqtt1.p99Ms),
          rss,
          target: '-',
          met: mqtt1.errors === 0 ? null : false,
        },
        {
          engine,
          what: 'command push, REST → device over MQTT (latency)',
          value: ms(push.p50Ms),
          reference: '-',
          ratio: '-',
          p50: ms(push.p50Ms),
          p99: ms(push.p99Ms),
          rss,
          target: 'p99 < 1 s',
          met: push.p99Ms < 1_000,
        },
      );
      raw[`${engine}.mqtt`] = { mqtt100, mqtt1, push };
    } finally {
      await mqttServer.stop();
    }

    // 3. Authenticated reads at 100 connections, on a typical farm (300 animals, 30 devices).
    phaseRss.push(await benchReads(engine, database, setup));
  } finally {
    await database.drop();
  }

  // 4. The brief on a big farm: 5,000 animals, 500 devices, 5 million readings (bench/brief.ts, with
  // its own database and server; this process watches that server's peak RSS).
  const watcher = watchChildrenPeakRss();
  const briefs = await benchBrief({ engines: [engine], log });
  const briefRss = watcher.stop();
  phaseRss.push(briefRss);
  for (const brief of briefs) {
    rows.push({
      engine,
      what: `the brief (${brief.scenario}), ${fmt(brief.animals)} animals / ${fmt(brief.devices)} devices / ${fmt(brief.readings)} readings, 1 client (ms)`,
      value: ms(brief.ms_p50),
      reference: `${ms(hello.c1.p50Ms)} hello-world`,
      ratio: `${fmt(brief.ms_p50 / hello.c1.p50Ms, 1)}×`,
      p50: ms(brief.ms_p50),
      p99: ms(brief.ms_p99),
      rss: `${fmt(briefRss)} MB`,
      target: `p99 ≤ ${BRIEF_TARGET_MS} ms`,
      met: brief.ms_p99 <= BRIEF_TARGET_MS,
    });
  }
  raw[`${engine}.brief`] = { briefs, rssMb: briefRss };

  // 5. A 5 M-reading export (bench/export.ts, its own database; a fresh server per export).
  const [exported] = await benchExport({ engines: [engine], log });
  if (exported) {
    const { small, large } = exported;
    rows.push({
      engine,
      what: `readings export, CSV, ${fmt(large.readings)} readings of one device, streamed (readings/s)`,
      value: fmt(large.readings_per_second),
      reference: `${fmt(small.readings_per_second)} /s, ${fmt(small.peak_rss_mb)} MB for ${fmt(small.readings)} readings`,
      ratio: `${fmt(large.peak_rss_mb / small.peak_rss_mb, 2)}× RSS`,
      p50: '',
      p99: '',
      rss: `${fmt(large.peak_rss_mb)} MB`,
      target: 'RSS ≤ 1.25× the small export',
      met: large.peak_rss_mb <= small.peak_rss_mb * 1.25,
    });
    raw[`${engine}.export`] = exported;
  }

  // 6. A 5,000-row weigh session imported over HTTP (bench/weigh-session.ts, its own database and server).
  const [weighed] = await benchWeighSession({ engines: [engine], log });
  if (weighed) {
    rows.push({
      engine,
      what: `weigh session import, ${fmt(weighed.rows)} rows (Datamars CSV) matched and stored (ms per import)`,
      value: ms(weighed.import_ms_p50),
      reference: `${ms(weighed.dry_run_ms)} dry run`,
      ratio: '',
      p50: ms(weighed.import_ms_p50),
      p99: ms(weighed.import_ms_max),
      rss: '',
      target: `< ${fmt(weighed.target_ms)} ms`,
      met: weighed.met,
    });
    raw[`${engine}.weigh_session`] = weighed;
  }

  const peak = Math.max(...phaseRss);
  rows.push({
    engine,
    what: 'peak server RSS over all phases',
    value: `${fmt(peak)} MB`,
    reference: `${fmt(hello.rssMb)} MB hello-world`,
    ratio: `${fmt(peak / hello.rssMb, 1)}×`,
    p50: '',
    p99: '',
    rss: `${fmt(peak)} MB`,
    target: `≤ ${PEAK_RSS_MB} MB`,
    met: peak <= PEAK_RSS_MB,
  });
}

function printTable(): void {
  const headers = [
    'engine',
    'measurement',
    'result',
    'reference (same run)',
    'ratio',
    'p50',
    'p99',
    'peak RSS',
    'target',
    'met',
  ];
  const body = rows.map((r) => [
    r.engine,
    r.what,
    r.value,
    r.reference,
    r.ratio,
    r.p50,
    r.p99,
    r.rss,
    r.target,
    r.met === null ? '' : r.met ? 'yes' : 'no',
  ]);
  const widths = headers.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  process.stdout.write(`${line(headers)}\n${line(widths.map((w) => '-'.repeat(w)))}\n`);
  for (const b of body) process.stdout.write(`${line(b)}\n`);
}

/** 6. Inbreeding of a 50,000-animal pedigree, in-process (bench/pedigree.ts): the same for either engine. */
function pedigreePhase(): void {
  log('pedigree: inbreeding of a 50,000-animal pedigree');
  const result = benchPedigree();
  rows.push({
    engine: '-',
    what: `inbreeding coefficients of a ${fmt(result.animals)}-animal pedigree, 15 generations (ms)`,
    value: ms(result.ms),
    reference: `mean F ${fmt(result.mean_inbreeding * 100, 2)} %, max ${fmt(result.max_inbreeding * 100, 1)} %`,
    ratio: '-',
    p50: ms(result.ms),
    p99: '',
    rss: '',
    target: `< ${fmt(PEDIGREE_TARGET_MS)} ms`,
    met: result.ms < PEDIGREE_TARGET_MS,
  });
  raw.pedigree = result;
}

async function main(): Promise<void> {
  const sqliteVersion = (
    new DatabaseSync(':memory:').prepare('select sqlite_version() as v').get() as { v: string }
  ).v;
  const machine = {
    cpus: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown'}`,
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    sqlite: sqliteVersion,
    postgres: ENGINES.includes('postgres') ? await postgresVersion() : null,
    loadAverage: os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' '),
  };
  const command = startCommand();
  const nodeOptions = process.env.BENCH_SERVER_NODE_OPTIONS;
  const server = [
    ...Object.keys(command.env).map((name) => `${name}=…`),
    ...(nodeOptions ? [`NODE_OPTIONS="${nodeOptions}"`] : []),
    'node',
    ...command.nodeArgs,
    path.relative(process.cwd(), command.script),
    ...command.args,
  ].join(' ');
  log(`machine: ${JSON.stringify(machine)}; server: ${server}`);
  const started = performance.now();
  if (PHASES.includes('all') || PHASES.includes('pedigree')) pedigreePhase();
  // BENCH_PHASES=fleet or pedigree alone: no hello-world and no engine set-up.
  if (PHASES.some((p) => p !== 'fleet' && p !== 'pedigree')) {
    const hello = await measureHello();
    raw.hello = hello;
    for (const engine of ENGINES) await benchEngine(engine, hello);
  }
  if (PHASES.includes('fleet')) {
    log(`fleet: ${fmt(FLEET_DEVICES)} devices`);
    await benchFleetPhase();
  }
  process.stdout.write(
    `\nFarmstead benchmarks: ${machine.cpus}, ${machine.memoryGb} GB, Node ${machine.node}, SQLite ${machine.sqlite}` +
      `${machine.postgres ? `, PostgreSQL ${machine.postgres}` : ''}; load average at start ${machine.loadAverage}; ` +
      `${SECONDS} s per phase; server: \`${server}\`; the load generator runs on the same cores.\n\n`,
  );
  printTable();
  const dir = path.resolve(import.meta.dirname, '../.bench-data');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `results-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, JSON.stringify({ machine, server, rows, raw }, null, 2));
  process.stdout.write(
    `\n(${((performance.now() - started) / 60_000).toFixed(1)} min; details in ${path.relative(process.cwd(), file)})\n`,
  );
}

await main();
