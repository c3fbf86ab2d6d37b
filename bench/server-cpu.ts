/**
 * The server's own CPU per request under a load, read from /proc: steadier than a throughput ratio on a
 * shared machine, whose speed drifts within minutes, so a change to the server can be compared with its
 * base by alternating runs of the two trees.
 *
 *   node bench/server-cpu.ts [sqlite|postgres] [ingest100|ingest1|animal] [requests, default 20000]
 *
 * Starts `npm start`'s command on a fresh database set up as `npm run bench` sets it up (lib/setup.ts: the
 * ingest houses and the typical farm), warms it up with a quarter of the requests, then sends the requests from 50
 * connections (100 for `animal`) and prints the server's user+system CPU per request (all its threads, and
 * the main thread alone), the throughput and the server's peak RSS. BENCH_SMAPS=1 also prints its biggest
 * memory mappings at the end (where the RSS is). BENCH_ALLOCATIONS=<file.heapprofile> also samples every
 * allocation of the measured load (through the server's inspector) and prints the bytes a request allocated
 * and what allocated them (bench/lib/allocations.ts): what fills the young generation is what the collector's
 * share of the CPU pays for. The sampling costs CPU itself, so take the CPU figures from a run without it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { freePort } from '../test/throwaway.ts';
import { summariseAllocations } from './lib/allocations.ts';
import { createBenchDatabase } from './lib/db.ts';
import { sampleAllocations } from './lib/inspector.ts';
import { type RequestSpec, runLoad } from './lib/load.ts';
import { startServer } from './lib/server.ts';
import { INGEST_DEVICES, ingestLoad, setUp } from './lib/setup.ts';

const engine = process.argv[2] === 'postgres' ? 'postgres' : 'sqlite';
const load = process.argv[3] ?? 'ingest100';
const requests = Number(process.argv[4] ?? 20_000);

/** utime + stime of a process (all its threads), or of one of its threads, in ms. */
function cpuMs(pid: number, thread?: number): number {
  const file = thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`;
  const fields = readFileSync(file, 'utf8').split(') ')[1]?.split(' ') ?? [];
  // After the command: state is field 3, utime 14 and stime 15 (1-based), in clock ticks (100 per second).
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** CPU (ms) of each thread of a process, summed by thread name (the main thread is named after the command). */
function threadsMs(pid: number): Map<string, number> {
  const byName = new Map<string, number>();
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = readFileSync(`/proc/${pid}/task/${task}/comm`, 'utf8').trim();
      const label = Number(task) === pid ? 'main' : name;
      byName.set(label, (byName.get(label) ?? 0) + cpuMs(pid, Number(task)));
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return byName;
}

/** CPU (ms) of every PostgreSQL process on the machine (its backends, WAL writer, checkpointer). */
function postgresMs(): number {
  let ms = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') ms += cpuMs(Number(entry));
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return ms;
}

/** The process's mappings by resident size, the ten biggest (anonymous ones are the heaps). */
function printBiggestMappings(pid: number): void {
  const mappings: { name: string; kb: number }[] = [];
  let name = '';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const header = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (header) name = header[1] || '[anonymous]';
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) mappings.push({ name, kb: Number(rss[1]) });
  }
  const byName = new Map<string, number>();
  for (const m of mappings) byName.set(m.name, (byName.get(m.name) ?? 0) + m.kb);
  for (const [n, kb] of [...byName].sort((a, b) => b[1] - a[1]).slice(0, 10)) {
    process.stdout.write(`  ${(kb / 1024).toFixed(1).padStart(7)} MB  ${n}\n`);
  }
}

const database = await createBenchDatabase(engine);
try {
  const setup = await setUp(database);
  const { animalIds } = setup.typical;
  let n = 0;
  const origin = Date.now() - 365 * 86_400_000;
  const next: (worker: number) => RequestSpec =
    load === 'animal'
      ? () => ({
          method: 'GET',
          path: `/v1/animals/${animalIds[n++ % animalIds.length]}`,
          headers: { authorization: `Bearer ${setup.liveKey}` },
        })
      : ingestLoad(setup, origin, load === 'ingest1' ? 1 : 100);
  const connections = load === 'animal' ? 100 : INGEST_DEVICES;
  const allocations = process.env.BENCH_ALLOCATIONS;
  const inspectorPort = allocations ? await freePort() : 0;
  const server = await startServer(database.env, allocations ? [`--inspect=127.0.0.1:${inspectorPort}`] : []);
  try {
    await runLoad({ port: server.port, connections, totalRequests: Math.ceil(requests / 4), next });
    const before = cpuMs(server.pid);
    // The main thread (its id is the process's): the event loop, without the checkpoint and GC threads.
    const mainBefore = cpuMs(server.pid, server.pid);
    const threadsBefore = threadsMs(server.pid);
    const postgresBefore = postgresMs();
    const clientBefore = process.cpuUsage();
    const sampling = allocations ? await sampleAllocations(inspectorPort, allocations) : undefined;
    const result = await runLoad({ port: server.port, connections, totalRequests: requests, next });
    await sampling?.stop();
    if (process.env.BENCH_SMAPS === '1') printBiggestMappings(server.pid);
    const perRequest = (ms: number) => ((ms * 1000) / result.requests).toFixed(0);
    process.stdout.write(
      `${engine} ${load}: server CPU ${perRequest(cpuMs(server.pid) - before)} µs per request ` +
        `(main thread ${perRequest(cpuMs(server.pid, server.pid) - mainBefore)}); ` +
        `${Math.round(result.perSecond).toLocaleString('en-US')} requests/s, p99 ${result.p99Ms.toFixed(1)} ms; ` +
        `peak RSS ${Math.round(server.peakRssMb())} MB\n`,
    );
    const client = process.cpuUsage(clientBefore);
    const threads = [...threadsMs(server.pid)]
      .map(([name, ms]) => [name, ms - (threadsBefore.get(name) ?? 0)] as const)
      .filter(([, ms]) => ms > 0)
      .sort((a, b) => b[1] - a[1])
      .map(([name, ms]) => `${name} ${perRequest(ms)}`);
    process.stdout.write(
      `  per request, µs: server threads: ${threads.join(', ')}; ` +
        `${engine === 'postgres' ? `PostgreSQL (all its processes) ${perRequest(postgresMs() - postgresBefore)}; ` : ''}` +
        `load generator ${perRequest((client.user + client.system) / 1000)}\n`,
    );
    if (allocations) process.stdout.write(`${summariseAllocations(allocations, 30, result.requests)}\n`);
  } finally {
    await server.stop();
  }
} finally {
  await database.drop();
}
