/**
 * A closed-loop HTTP load generator: `connections` workers each send a request, wait for the answer,
 * and send the next, over keep-alive sockets, for a fixed number of requests or a fixed time. It records
 * every latency, so p50/p99 are exact rather than estimated.
 */
import { Agent, request } from 'node:http';

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  statusCounts: Record<number, number>;
}

export interface RequestSpec {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export function percentile(sorted: Float64Array | number[], p: number): number {
  if (sorted.length === 0) return 0;
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)] ?? 0;
}

function send(agent: Agent, host: string, port: number, spec: RequestSpec): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...spec.headers };
    if (spec.body !== undefined) headers['content-length'] = Buffer.byteLength(spec.body);
    const req = request({ host, port, method: spec.method, path: spec.path, headers, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (spec.body !== undefined) req.write(spec.body);
    req.end();
  });
}

/**
 * Runs the load. `next(worker, i)` gives each request (so workers can act as different devices);
 * stops after `totalRequests` or `durationMs`, whichever comes first.
 */
export async function runLoad(options: {
  host?: string;
  port: number;
  connections: number;
  totalRequests?: number;
  durationMs?: number;
  next: (worker: number, i: number) => RequestSpec;
}): Promise<LoadResult> {
  const host = options.host ?? '127.0.0.1';
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections });
  const total = options.totalRequests ?? Number.POSITIVE_INFINITY;
  const deadline = options.durationMs ? performance.now() + options.durationMs : Number.POSITIVE_INFINITY;
  const latencies: number[] = [];
  const statusCounts: Record<number, number> = {};
  let issued = 0;
  let errors = 0;
  const started = performance.now();

  const worker = async (w: number) => {
    let i = 0;
    while (issued < total && performance.now() < deadline) {
      issued++;
      const spec = options.next(w, i++);
      const t0 = performance.now();
      try {
        const status = await send(agent, host, options.port, spec);
        latencies.push(performance.now() - t0);
        statusCounts[status] = (statusCounts[status] ?? 0) + 1;
        if (status >= 400) errors++;
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: options.connections }, (_, w) => worker(w)));
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  const sorted = Float64Array.from(latencies).sort();
  return {
    requests: latencies.length,
    errors,
    seconds,
    perSecond: latencies.length / seconds,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    maxMs: sorted.at(-1) ?? 0,
    statusCounts,
  };
}
