/**
 * Shows whether the load generator is the limit of the bench's reference (a bare Fastify hello-world):
 * hello-world driven at 50 and 100 connections by `runLoad` (bench/lib/load.ts, autocannon in this one
 * thread) and by autocannon with 2 worker threads, each beside the CPU the generator and the server used.
 * Each with both processes' CPU per request: the generator is not the limit while it needs
 * less CPU per request than the server, as each has a core of its own on an idle 2-core machine; then the
 * server is busy all the time and 2 generator threads give no more requests/s than one.
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
}) => PromiseLike<{ requests: { total: number }; latency: { p99: number } }>;
const autocannon = createRequire(import.meta.url)('autocannon') as Workers;

async function measured(
  label: string,
  pid: number,
  load: () => Promise<{ requests: number; p99: number }>,
): Promise<void> {
  const client = process.cpuUsage();
  const server = cpuMs(pid);
  const t0 = performance.now();
  const result = await load();
  const wall = performance.now() - t0;
  const used = process.cpuUsage(client);
  const generatorMs = (used.user + used.system) / 1000;
  const serverMs = cpuMs(pid) - server;
  // CPU per request: what each side could do with a core of its own, whatever else shares the machine.
  const each = (ms: number) =>
    `${((ms * 1000) / result.requests).toFixed(1)} µs/req (${Math.round((ms / wall) * 100)}%)`;
  process.stdout.write(
    `${label.padEnd(44)} ${Math.round((result.requests / wall) * 1000)
      .toLocaleString('en-US')
      .padStart(
        7,
      )} req/s  p99 ${result.p99.toFixed(2)} ms  generator ${each(generatorMs)}  server ${each(serverMs)}\n`,
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
  const get = { method: 'GET', path: '/' };
  await runLoad({ port: hello.port, connections: 50, durationMs: 3000, next: get });
  for (const connections of [50, 100]) {
    await measured(`runLoad, 1 thread, ${connections} connections`, hello.pid, async () => {
      const r = await runLoad({ port: hello.port, connections, durationMs: SECONDS * 1000, next: get });
      return { requests: r.requests, p99: r.p99Ms };
    });
    await measured(`autocannon, 2 worker threads, ${connections} connections`, hello.pid, async () => {
      const r = await autocannon({
        url: `http://127.0.0.1:${hello.port}`,
        connections,
        duration: SECONDS,
        workers: 2,
      });
      return { requests: r.requests.total, p99: r.latency.p99 };
    });
  }
} finally {
  await hello.stop();
}
