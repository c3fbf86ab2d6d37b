/**
 * Shows whether the load generator is the limit of the bench's reference (a bare Fastify hello-world):
 * hello-world driven at 50 and 100 connections by `runLoad` (bench/lib/load.ts, autocannon in this one
 * thread) and by autocannon with 2 worker threads, each beside the CPU the generator and the server used.
 * When one thread is not the limit, both give the same requests/s and the server's main thread is busy
 * most of the time; when it is, the 2 threads give more.
 *
 *   node bench/generator.ts [seconds per load, default 8]
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { runLoad } from './lib/load.ts';
import { startHello } from './lib/server.ts';

const SECONDS = Number(process.argv[2] ?? 8);

/** utime + stime of a process (all its threads), in ms. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

type Workers = (options: {
  url: string;
  connections: number;
  duration: number;
  workers: number;
}) => PromiseLike<{ requests: { total: number }; duration: number; latency: { p50: number; p99: number } }>;
const autocannon = createRequire(import.meta.url)('autocannon') as Workers;

async function measured(label: string, pid: number, load: () => Promise<{ perSecond: number; p99: number }>) {
  const client = process.cpuUsage();
  const server = cpuMs(pid);
  const t0 = performance.now();
  const result = await load();
  const wall = performance.now() - t0;
  const used = process.cpuUsage(client);
  const pct = (ms: number) => `${Math.round((ms / wall) * 100)}%`;
  process.stdout.write(
    `${label.padEnd(44)} ${Math.round(result.perSecond).toLocaleString('en-US').padStart(7)} req/s  ` +
      `p99 ${result.p99.toFixed(2)} ms  generator CPU ${pct((used.user + used.system) / 1000)}  ` +
      `server CPU ${pct(cpuMs(pid) - server)}\n`,
  );
}

process.stdout.write(
  `load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}, ${os.cpus().length} CPUs\n`,
);
const hello = await startHello();
try {
  const get = () => ({ method: 'GET', path: '/' });
  await runLoad({ port: hello.port, connections: 50, durationMs: 3000, next: get });
  for (const connections of [50, 100]) {
    await measured(`runLoad, 1 thread, ${connections} connections`, hello.pid, async () => {
      const r = await runLoad({ port: hello.port, connections, durationMs: SECONDS * 1000, next: get });
      return { perSecond: r.perSecond, p99: r.p99Ms };
    });
    await measured(`autocannon, 2 worker threads, ${connections} connections`, hello.pid, async () => {
      const r = await autocannon({
        url: `http://127.0.0.1:${hello.port}`,
        connections,
        duration: SECONDS,
        workers: 2,
      });
      return { perSecond: r.requests.total / r.duration, p99: r.latency.p99 };
    });
  }
} finally {
  await hello.stop();
}
