/**
 * BENCH_PHASES=fleet of `npm run bench` (issue 48, "Measured, at 10,000 devices"): a fleet of simulated
 * devices (the simulator's device models), each its own MQTT connection, spread over worker threads
 * (bench/lib/fleet-worker.ts), in two set-ups:
 *
 *   embedded   the embedded broker, one process, SQLite
 *   mosquitto  Mosquitto with dynamic security (test/mosquitto.ts), three processes on one PostgreSQL
 *
 * In each: the devices connect (BENCH_FLEET_CONNECT_RATE a second), send one QoS 1 report each (the
 * server's memory before, connected and after that report is the embedded broker's memory question), report
 * once a minute each for BENCH_FLEET_STEADY_S while commands are queued over REST and timed to their device,
 * then a burst of 2,000 reports a second (scaled by the device count below 10,000) for BENCH_FLEET_BURST_S.
 * Measured: publish → stored (the answer on the result topic leaves after the commit) p50/p99, a command's
 * REST → device p99, every report stored once (readings in the database against readings published), each
 * process's RSS and CPU from /proc, the broker's (Mosquitto's pid), and the generator's own CPU.
 *
 * Settings: BENCH_FLEET_DEVICES (default 1,000), BENCH_FLEET_SETUPS=embedded,mosquitto,
 * BENCH_FLEET_WORKERS (threads of the generator, default 2), BENCH_FLEET_CONNECT_RATE (default 2,000/s),
 * BENCH_FLEET_STEADY_S (default 60), BENCH_FLEET_BURST_S (default 60), BENCH_FLEET_COMMANDS (default 100),
 * BENCH_FLEET_CONSUMERS (FARMSTEAD_MQTT_BROKER_CONSUMERS of the processes on Mosquitto; default theirs, 4).
 * Each phase's figures are collected once every report sent has its answer (at most 3 minutes after it).
 * The open-file limit (`ulimit -n`) must exceed the device count in this process and in the server.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { openDatabase } from '../src/db/database.ts';
import { DEVICE_TYPES, type DeviceType } from '../src/domain/devices.ts';
import { createAccount } from '../src/modules/accounts/service.ts';
import { createDevice } from '../src/modules/devices/service.ts';
import { createFarm } from '../src/modules/farms/service.ts';
import { type Mosquitto, mosquittoAvailable, startMosquitto } from '../test/mosquitto.ts';
import { freePort } from '../test/throwaway.ts';
import { type BenchDatabase, createBenchDatabase } from './lib/db.ts';
import type { FleetDevice, WorkerCommand, WorkerStats } from './lib/fleet-worker.ts';
import { percentile } from './lib/load.ts';
import { type RunningServer, startServer } from './lib/server.ts';

const int = (name: string, fallback: number, least = 1) => {
  const value = Number(process.env[name] || Number.NaN);
  return Number.isFinite(value) && value >= least ? Math.floor(value) : fallback;
};
export const FLEET_DEVICES = int('BENCH_FLEET_DEVICES', 1_000);
const WORKERS = int('BENCH_FLEET_WORKERS', 2);
const CONNECT_RATE = int('BENCH_FLEET_CONNECT_RATE', 2_000);
const STEADY_S = int('BENCH_FLEET_STEADY_S', 60, 0);
const BURST_S = int('BENCH_FLEET_BURST_S', 60, 0);
const COMMANDS = int('BENCH_FLEET_COMMANDS', 100, 0);
/** The burst: 2,000 reports a second at 10,000 devices. */
const BURST_PER_10K = 2_000;
const DEVICES_PER_FARM = 500;
const PROCESSES_ON_BROKER = 3;
const TICKS_PER_SECOND = 100;

export type FleetSetup = 'embedded' | 'mosquitto';

export interface FleetResult {
  setup: FleetSetup;
  devices: number;
  processes: number;
  connectSeconds: number;
  connected: number;
  /** Devices that could not connect in 5 tries; tries that failed; connections lost afterwards. */
  connectFailures: number;
  connectRetries: number;
  disconnects: number;
  /** The servers' summed RSS (MB): before the devices, connected, after one report each. */
  rssBeforeMb: number;
  rssConnectedMb: number;
  rssReportedMb: number;
  reportEachSeconds: number;
  steady: PhaseResult;
  burst: PhaseResult;
  command: { sent: number; arrived: number; p50Ms: number; p99Ms: number };
  stored: { readingsPublished: number; readingsStored: number };
  generatorCpuPct: number;
}

export interface PhaseResult {
  seconds: number;
  published: number;
  answered: number;
  errors: number;
  unanswered: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Per process: peak RSS during the phase (MB) and CPU (% of one core). */
  processes: { name: string; rssMb: number; cpuPct: number }[];
  generatorCpuPct: number;
}

/** utime + stime (clock ticks) and VmRSS (MB) of a process, from /proc. */
function procSample(pid: number | 'self'): { ticks: number; rssMb: number } {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rss = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
    return { ticks, rssMb: rss };
  } catch {
    return { ticks: 0, rssMb: 0 };
  }
}

/** Watches processes' RSS (peak, sampled every 200 ms) and CPU over a phase. */
function watch(procs: { name: string; pid: number }[]) {
  const start = procs.map((p) => procSample(p.pid));
  const self = procSample('self');
  const peak = start.map((s) => s.rssMb);
  const began = performance.now();
  const timer = setInterval(() => {
    procs.forEach((p, i) => {
      peak[i] = Math.max(peak[i] ?? 0, procSample(p.pid).rssMb);
    });
  }, 200);
  return () => {
    clearInterval(timer);
    const seconds = (performance.now() - began) / 1000;
    const cpu = (from: number, to: number) => ((to - from) / TICKS_PER_SECOND / seconds) * 100;
    return {
      seconds,
      processes: procs.map((p, i) => {
        const end = procSample(p.pid);
        return {
          name: p.name,
          rssMb: Math.max(peak[i] ?? 0, end.rssMb),
          cpuPct: cpu(start[i]?.ticks ?? 0, end.ticks),
        };
      }),
      generatorCpuPct: cpu(self.ticks, procSample('self').ticks),
    };
  };
}

/** An account with the fleet's devices (the simulator's types in turn) on farms of DEVICES_PER_FARM. */
async function setUpFleet(
  database: BenchDatabase,
  count: number,
): Promise<{ liveKey: string; farmIds: string[]; devices: FleetDevice[] }> {
  const opened = await openDatabase(database.config);
  try {
    const db = opened.db;
    const account = await createAccount(db, { name: 'Fleet account' });
    const scope = { accountId: account.account_id, mode: 'live' as const };
    const farmIds: string[] = [];
    const devices: FleetDevice[] = [];
    for (let start = 0; start < count; start += DEVICES_PER_FARM) {
      const farm = await createFarm(db, scope, { name: `Fleet farm ${farmIds.length + 1}` });
      farmIds.push(farm.id);
      const made = await Promise.all(
        Array.from({ length: Math.min(DEVICES_PER_FARM, count - start) }, async (_, i) => {
          const type = DEVICE_TYPES[(start + i) % DEVICE_TYPES.length] as DeviceType;
          const device = await createDevice(db, scope, farm.id, { type, name: `Fleet ${type} ${start + i}` });
          return { id: device.id, key: device.device_key, type };
        }),
      );
      devices.push(...made);
    }
    return { liveKey: account.live_key, farmIds, devices };
  } finally {
    await opened.close();
  }
}

async function storedReadings(database: BenchDatabase, farmIds: string[]): Promise<number> {
  const opened = await openDatabase(database.config, { migrate: false });
  try {
    const row = await opened.db
      .selectFrom('readings')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('farm_id', 'in', farmIds)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  } finally {
    await opened.close();
  }
}

/** The generator's threads, each with a slice of the devices. */
class Fleet {
  private readonly workers: Worker[];

  constructor(url: string, devices: FleetDevice[]) {
    const size = Math.ceil(devices.length / WORKERS);
    this.workers = Array.from(
      { length: WORKERS },
      (_, w) =>
        new Worker(path.join(import.meta.dirname, 'lib/fleet-worker.ts'), {
          workerData: {
            url,
            devices: devices.slice(w * size, (w + 1) * size),
            connectPerSecond: CONNECT_RATE / WORKERS,
            seed: 1 + w,
          },
        }),
    );
  }

  private async all<T>(command: WorkerCommand): Promise<T[]> {
    return Promise.all(
      this.workers.map(
        (worker) =>
          new Promise<T>((resolve, reject) => {
            const onMessage = (message: T & { done: string }) => {
              if (message.done !== command.cmd) return;
              worker.off('message', onMessage);
              worker.off('error', reject);
              resolve(message);
            };
            worker.on('message', onMessage);
            worker.once('error', reject);
            worker.postMessage(command);
          }),
      ),
    );
  }

  async connect(): Promise<number> {
    const answers = await this.all<{ connected: number }>({ cmd: 'connect' });
    return answers.reduce((n, a) => n + a.connected, 0);
  }

  reportEach = () => this.all({ cmd: 'report-each' });
  rate = (perSecond: number) => this.all({ cmd: 'rate', perSecond: perSecond / WORKERS });

  async collect(): Promise<WorkerStats & { unanswered: number }> {
    const answers = await this.all<{ stats: WorkerStats & { unanswered: number } }>({ cmd: 'collect' });
    const out = {
      published: 0,
      answered: 0,
      errors: 0,
      publishedReadings: 0,
      readings: 0,
      latencies: [] as number[],
      commands: [] as [string, number][],
      connectFailures: 0,
      connectRetries: 0,
      disconnects: 0,
      unanswered: 0,
    };
    for (const { stats } of answers) {
      out.published += stats.published;
      out.answered += stats.answered;
      out.errors += stats.errors;
      out.publishedReadings += stats.publishedReadings;
      out.readings += stats.readings;
      out.connectFailures += stats.connectFailures;
      out.connectRetries += stats.connectRetries;
      out.disconnects += stats.disconnects;
      out.unanswered += stats.unanswered;
      for (const l of stats.latencies) out.latencies.push(l);
      for (const c of stats.commands) out.commands.push(c);
    }
    return out;
  }

  async stop(): Promise<void> {
    await this.all({ cmd: 'stop' });
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}

/** Queues `count` commands over REST (spread over `seconds`, across the processes), to houses. */
async function queueCommands(
  servers: RunningServer[],
  liveKey: string,
  houses: FleetDevice[],
  count: number,
  seconds: number,
): Promise<Map<string, number>> {
  const sent = new Map<string, number>();
  const gap = (seconds * 1000) / Math.max(1, count);
  for (let i = 0; i < count && houses.length > 0; i++) {
    const device = houses[(i * 7919) % houses.length] as FleetDevice;
    const server = servers[i % servers.length] as RunningServer;
    const at = Date.now();
    const res = await fetch(`http://127.0.0.1:${server.port}/v1/devices/${device.id}/commands`, {
      method: 'POST',
      headers: { authorization: `Bearer ${liveKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ command: 'lights.set', params: { mode: i % 2 ? 'on' : 'off' } }),
    });
    const body = (await res.json()) as { id?: string };
    if (body.id) sent.set(body.id, at);
    await new Promise((resolve) => setTimeout(resolve, gap));
  }
  return sent;
}

function phase(
  stats: WorkerStats & { unanswered: number },
  watched: ReturnType<ReturnType<typeof watch>>,
): PhaseResult {
  const sorted = Float64Array.from(stats.latencies).sort();
  return {
    seconds: watched.seconds,
    published: stats.published,
    answered: stats.answered,
    errors: stats.errors,
    unanswered: stats.unanswered,
    perSecond: stats.answered / watched.seconds,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    maxMs: sorted.length ? (sorted[sorted.length - 1] ?? 0) : 0,
    processes: watched.processes,
    generatorCpuPct: watched.generatorCpuPct,
  };
}

const sumRss = (servers: RunningServer[]) => servers.reduce((n, s) => n + s.currentRssMb(), 0);

/** One set-up: its database, broker and processes, the fleet through every step; everything stopped after. */
export async function benchFleet(
  setup: FleetSetup,
  log: (text: string) => void,
  count = FLEET_DEVICES,
  /**
   * Called at each memory step with the servers (e.g. to take a heap snapshot there), and with `done` when
   * the load is over, before the devices go.
   */
  probe?: (
    step: 'before' | 'connected' | 'reported' | 'steady' | 'done',
    servers: RunningServer[],
  ) => Promise<void>,
): Promise<FleetResult> {
  if (setup === 'mosquitto' && !mosquittoAvailable()) throw new Error('Mosquitto is not installed');
  const database = await createBenchDatabase(setup === 'embedded' ? 'sqlite' : 'postgres');
  const servers: RunningServer[] = [];
  let broker: Mosquitto | null = null;
  let fleet: Fleet | null = null;
  try {
    log(`fleet/${setup}: creating ${count} devices`);
    const made = await setUpFleet(database, count);
    let url: string;
    if (setup === 'embedded') {
      const mqttPort = await freePort();
      servers.push(await startServer({ ...database.env, FARMSTEAD_MQTT_PORT: String(mqttPort) }));
      url = `mqtt://127.0.0.1:${mqttPort}`;
    } else {
      broker = await startMosquitto({ devices: made.devices });
      url = broker.url;
      for (let i = 0; i < PROCESSES_ON_BROKER; i++) {
        servers.push(
          await startServer({
            ...database.env,
            FARMSTEAD_MQTT_BROKER: broker.brokerUrl,
            FARMSTEAD_MQTT_BROKER_AUTH: 'dynsec',
            FARMSTEAD_MQTT_CLIENT_ID: `farmstead-fleet-${i}`,
            ...(process.env.BENCH_FLEET_CONSUMERS
              ? { FARMSTEAD_MQTT_BROKER_CONSUMERS: process.env.BENCH_FLEET_CONSUMERS }
              : {}),
          }),
        );
      }
    }
    const procs = [
      ...servers.map((s, i) => ({ name: `farmstead ${i + 1}`, pid: s.pid })),
      ...(broker?.child.pid ? [{ name: 'mosquitto', pid: broker.child.pid }] : []),
    ];
    await probe?.('before', servers);
    const rssBeforeMb = sumRss(servers);
    const generator = watch([]);
    fleet = new Fleet(url, made.devices);
    log(`fleet/${setup}: connecting ${count} devices at ${CONNECT_RATE}/s`);
    const connectStart = performance.now();
    const connected = await fleet.connect();
    const connectSeconds = (performance.now() - connectStart) / 1000;
    const rssConnectedMb = sumRss(servers);
    await probe?.('connected', servers);
    log(`fleet/${setup}: ${connected} connected in ${connectSeconds.toFixed(1)} s; one report each`);
    const eachStart = performance.now();
    await fleet.reportEach();
    const reportEachSeconds = (performance.now() - eachStart) / 1000;
    const rssReportedMb = sumRss(servers);
    await probe?.('reported', servers);
    const first = await fleet.collect();

    log(`fleet/${setup}: each device once a minute for ${STEADY_S} s, ${COMMANDS} commands`);
    let watching = watch(procs);
    await fleet.rate(count / 60);
    const houses = made.devices.filter((d) => d.type === 'house');
    const queued = queueCommands(servers, made.liveKey, houses, COMMANDS, Math.max(1, STEADY_S - 5));
    await new Promise((resolve) => setTimeout(resolve, STEADY_S * 1000));
    const sent = await queued;
    await fleet.rate(0);
    const steadyStats = await fleet.collect();
    const steady = phase(steadyStats, watching());
    // After the steady minutes: what the process holds once every device has reported for a while.
    if (STEADY_S > 0) await probe?.('steady', servers);

    const burstRate = (BURST_PER_10K * count) / 10_000;
    log(`fleet/${setup}: burst of ${burstRate} reports/s for ${BURST_S} s`);
    watching = watch(procs);
    await fleet.rate(burstRate);
    await new Promise((resolve) => setTimeout(resolve, BURST_S * 1000));
    await fleet.rate(0);
    const burstStats = await fleet.collect();
    const burst = phase(burstStats, watching());

    const arrivals = new Map([...first.commands, ...steadyStats.commands, ...burstStats.commands]);
    const delays = [...sent].flatMap(([id, at]) => {
      const arrived = arrivals.get(id);
      return arrived === undefined ? [] : [arrived - at];
    });
    const sortedDelays = Float64Array.from(delays).sort();
    const readingsPublished =
      first.publishedReadings + steadyStats.publishedReadings + burstStats.publishedReadings;
    // The load is over: what follows (the devices going away) is not the server serving them.
    await probe?.('done', servers);
    await fleet.stop();
    fleet = null;
    const generatorCpuPct = generator().generatorCpuPct;
    const readingsStored = await storedReadings(database, made.farmIds);
    return {
      setup,
      devices: count,
      processes: servers.length,
      connectSeconds,
      connected,
      connectFailures: first.connectFailures,
      connectRetries: first.connectRetries,
      disconnects: first.disconnects + steadyStats.disconnects + burstStats.disconnects,
      rssBeforeMb,
      rssConnectedMb,
      rssReportedMb,
      reportEachSeconds,
      steady,
      burst,
      command: {
        sent: sent.size,
        arrived: delays.length,
        p50Ms: percentile(sortedDelays, 50),
        p99Ms: percentile(sortedDelays, 99),
      },
      stored: { readingsPublished, readingsStored },
      generatorCpuPct,
    };
  } finally {
    await fleet?.stop().catch(() => {});
    for (const server of servers) await server.stop();
    await broker?.stop();
    await database.drop();
  }
}
