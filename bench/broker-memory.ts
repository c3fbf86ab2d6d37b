/**
 * Where the embedded broker's memory goes (issue 48): the fleet of bench/fleet.ts against the one embedded
 * process, and at each step (before any device, connected, after one QoS 1 report each, and with
 * BENCH_FLEET_STEADY_S after the steady minutes: what a process that has served its devices for a while
 * holds) the server's resident memory split by what holds it (/proc/<pid>/smaps: the node binary's pages,
 * V8's heap, malloc, other mappings), and V8's own figures after a full GC, read through the inspector. With
 * BENCH_MEMORY_SNAPSHOTS=<dir> it also writes a heap snapshot at each step (compare them by constructor in
 * Chrome's DevTools, or with `node bench/lib/heap-diff.ts a b`).
 *
 *   npx node bench/broker-memory.ts [devices, default 2,000]
 *
 * The steady minute and the burst of the fleet bench are off unless BENCH_FLEET_STEADY_S / BENCH_FLEET_BURST_S
 * say otherwise; BENCH_MEMORY_SETTLE_S=<s> measures again that long after the reports (what was still in
 * flight then is gone). From the reports to the end of the load (not the devices' disconnection after it), the
 * highest RSS seen each second is printed with its split.
 * BENCH_MEMORY_GC=0 leaves out the full collections it forces before each step's V8 figures: what a process
 * left to itself holds (the steady minute then runs on whatever heap limit the herd of first reports set).
 * BENCH_MEMORY_ALLOCATIONS=<file.heapprofile> samples every allocation from the reports to the end of the
 * steady minutes (so it needs BENCH_FLEET_STEADY_S) and prints what allocated most (bench/lib/allocations.ts).
 * The open-file limit (`ulimit -n`) must exceed the device count.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { freePort } from '../test/throwaway.ts';
import { summariseAllocations } from './lib/allocations.ts';
import { openSession, sampleAllocations } from './lib/inspector.ts';
import { residentByKind } from './lib/memory.ts';
import type { RunningServer } from './lib/server.ts';

process.env.BENCH_FLEET_STEADY_S ??= '0';
process.env.BENCH_FLEET_BURST_S ??= '0';
process.env.BENCH_FLEET_COMMANDS ??= '0';
const { benchFleet } = await import('./fleet.ts');
const devices = Number(process.argv[2] ?? 2_000);
const snapshots = process.env.BENCH_MEMORY_SNAPSHOTS;
const inspectorPort = await freePort();
process.env.BENCH_SERVER_ARGS =
  `${process.env.BENCH_SERVER_ARGS ?? ''} --expose-gc --inspect=127.0.0.1:${inspectorPort}`.trim();

/** One call to the server's inspector, its messages until the answer. */
async function inspect(
  method: string,
  params: object,
  onEvent?: (m: { method: string; params: unknown }) => void,
) {
  const session = await openSession(inspectorPort, onEvent);
  try {
    return await session.call(method, params);
  } finally {
    session.close();
  }
}

/**
 * BENCH_MEMORY_ALLOCATIONS=<file.heapprofile>: every allocation from the reports to the end, sampled (the
 * objects collected since kept), then summarised by `bench/lib/allocations.ts`.
 */
const allocations = process.env.BENCH_MEMORY_ALLOCATIONS;
/** The sampling, while it runs. */
let sampling: { stop(): Promise<void> } | undefined;

/** Full collections before the figures, unless BENCH_MEMORY_GC=0. */
const forceGc = process.env.BENCH_MEMORY_GC !== '0';
const V8_FIGURES = `(() => {
  ${forceGc ? 'gc(); gc();' : ''}
  const v8 = process.getBuiltinModule('node:v8');
  const mb = (x) => Math.round(x / 104857.6) / 10;
  const m = process.memoryUsage();
  const spaces = {};
  for (const s of v8.getHeapSpaceStatistics()) {
    if (s.physical_space_size > 0) spaces[s.space_name] = mb(s.space_used_size) + ' used of ' + mb(s.physical_space_size);
  }
  return JSON.stringify({ heapUsed: mb(m.heapUsed), heapTotal: mb(m.heapTotal), external: mb(m.external),
    arrayBuffers: mb(m.arrayBuffers), malloced: mb(v8.getHeapStatistics().malloced_memory), spaces });
})()`;

/** From the reports on: the server's resident memory by kind every second, kept at its highest. */
let peak: { rss: number; kinds: Record<string, number>; v8: string } = { rss: 0, kinds: {}, v8: '' };
let sampler: NodeJS.Timeout | undefined;
const V8_NOW = `JSON.stringify((() => { const m = process.memoryUsage(); const mb = (x) => Math.round(x / 104857.6) / 10;
  return { heapUsed: mb(m.heapUsed), heapTotal: mb(m.heapTotal), external: mb(m.external) }; })())`;

async function sample(server: RunningServer): Promise<void> {
  const rss = server.currentRssMb();
  if (rss <= peak.rss) return;
  const kinds = residentByKind(server.pid);
  const answer = (await inspect('Runtime.evaluate', { expression: V8_NOW, returnByValue: true })) as {
    result: { value: string };
  };
  peak = { rss, kinds, v8: answer.result.value };
}

async function probe(step: string, servers: RunningServer[]): Promise<void> {
  // The peak is the load's: the devices' disconnection at the end is left out.
  if (step === 'done') return clearInterval(sampler);
  await measure(step, servers);
  const server = servers[0];
  if (step === 'reported' && server) {
    sampler = setInterval(() => void sample(server).catch(() => {}), 1000);
    if (allocations) sampling = await sampleAllocations(inspectorPort, allocations);
  }
  if (step === 'steady' && sampling && allocations) {
    await sampling.stop();
    console.log(`allocations since the reports: ${allocations}\n${summariseAllocations(allocations, 20)}`);
  }
  // Whatever is still in flight right after the answers has had time to finish: the rest is held.
  if (step === 'reported' && process.env.BENCH_MEMORY_SETTLE_S) {
    await new Promise((resolve) => setTimeout(resolve, Number(process.env.BENCH_MEMORY_SETTLE_S) * 1000));
    await measure(`reported+${process.env.BENCH_MEMORY_SETTLE_S}s`, servers);
  }
}

async function measure(step: string, servers: RunningServer[]): Promise<void> {
  const server = servers[0];
  if (!server) return;
  const rssBefore = server.currentRssMb();
  const answer = (await inspect('Runtime.evaluate', { expression: V8_FIGURES, returnByValue: true })) as {
    result: { value: string };
  };
  const kinds = Object.entries(residentByKind(server.pid))
    .filter(([, mb]) => mb >= 0.5)
    .sort((a, b) => b[1] - a[1])
    .map(([k, mb]) => `${k} ${mb.toFixed(1)}`);
  console.log(
    `${step}: RSS ${rssBefore.toFixed(1)} MB${forceGc ? ` (after a GC ${server.currentRssMb().toFixed(1)})` : ''}: ${kinds.join(', ')}`,
  );
  console.log(`  V8${forceGc ? ' after a GC' : ''}: ${answer.result.value}`);
  if (snapshots) {
    const chunks: string[] = [];
    await inspect('HeapProfiler.takeHeapSnapshot', { reportProgress: false }, (m) => {
      if (m.method === 'HeapProfiler.addHeapSnapshotChunk')
        chunks.push((m.params as { chunk: string }).chunk);
    });
    const file = path.join(snapshots, `${step}.heapsnapshot`);
    writeFileSync(file, chunks.join(''));
    console.log(`  heap snapshot: ${file}`);
  }
}

const started = performance.now();
const result = await benchFleet('embedded', (text) => console.log(text), devices, probe);
const { rssBeforeMb: before, rssConnectedMb: connected, rssReportedMb: reported } = result;
const kb = (mb: number) => ((mb * 1024) / devices).toFixed(1);
console.log(
  `${devices} devices (${result.connected} connected in ${result.connectSeconds.toFixed(1)} s, one report each in ` +
    `${result.reportEachSeconds.toFixed(1)} s): RSS ${before.toFixed(0)} / ${connected.toFixed(0)} / ` +
    `${reported.toFixed(0)} MB; ${kb(connected - before)} KB a device connected, ${kb(reported - connected)} KB ` +
    `more after its report (${((performance.now() - started) / 1000).toFixed(0)} s in all)`,
);
clearInterval(sampler);
console.log(
  `peak after the reports: RSS ${peak.rss.toFixed(1)} MB: ${Object.entries(peak.kinds)
    .filter(([, mb]) => mb >= 0.5)
    .sort((a, b) => b[1] - a[1])
    .map(([k, mb]) => `${k} ${mb.toFixed(1)}`)
    .join(', ')}; V8 ${peak.v8}`,
);
if (result.steady.published > 0) {
  console.log(
    `steady minute: peak RSS ${result.steady.processes.map((p) => p.rssMb.toFixed(0)).join(', ')} MB, CPU ` +
      `${result.steady.processes.map((p) => p.cpuPct.toFixed(0)).join(', ')} % of a core, ` +
      `p50 / p99 ${result.steady.p50Ms.toFixed(0)} / ${result.steady.p99Ms.toFixed(0)} ms`,
  );
}
