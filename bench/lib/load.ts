/**
 * A closed-loop HTTP load generator: `connections` keep-alive connections each send a request, wait for the
 * answer, and send the next, for a fixed number of requests or a fixed time. The requests go out through
 * autocannon (its raw-socket client, the tool the outside measurements of issue 48 used): a `node:http`
 * client in this thread spent more CPU per request than a bare Fastify hello-world, so it was the limit of
 * that reference and inflated every ratio to it (BENCHMARKS.md, 2026-11-29 evening). Every latency is
 * recorded, so p50/p99 are exact rather than estimated.
 */
import { createRequire } from 'node:module';

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

/** The part of autocannon's programmatic API used here (it ships no types). */
interface AutocannonRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}
interface AutocannonClient {
  /** Each either built once or, with `setupRequest`, again before each send. */
  setRequests(
    requests: (AutocannonRequest | { setupRequest: (request: AutocannonRequest) => AutocannonRequest })[],
  ): void;
  on(event: 'response', listener: (status: number, bytes: number, ms: number) => void): void;
}
interface AutocannonTracker extends PromiseLike<{ errors: number; timeouts: number }> {
  on(event: 'reqError', listener: (error: Error) => void): void;
}
type Autocannon = (options: {
  url: string;
  connections: number;
  duration?: number;
  amount?: number;
  sampleInt?: number;
  timeout?: number;
  setupClient: (client: AutocannonClient) => void;
}) => AutocannonTracker;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

/**
 * Runs the load. `next(worker, i)` gives each request (`worker` is the connection, so each can act as its
 * own device; `i` counts that connection's requests), or `next` is the one request every connection sends
 * again and again, built once: building a request costs the generator about as much as a bare Fastify
 * hello-world costs its server, so the hello-world reference is sent that way. Stops after
 * `totalRequests` or `durationMs`.
 */
export async function runLoad(options: {
  host?: string;
  port: number;
  connections: number;
  totalRequests?: number;
  durationMs?: number;
  next: ((worker: number, i: number) => RequestSpec) | RequestSpec;
}): Promise<LoadResult> {
  const next = options.next;
  const host = options.host ?? '127.0.0.1';
  const total = options.totalRequests;
  // autocannon gives each connection its share of `amount` and needs at least one request per connection.
  const connections = total === undefined ? options.connections : Math.min(options.connections, total);
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  const statusCounts: Record<number, number> = {};
  let failed = 0;
  let workers = 0;
  let last = 0;
  const started = performance.now();
  const tracker = autocannon({
    url: `http://${host}:${options.port}`,
    connections,
    ...(total === undefined ? { duration: (options.durationMs ?? 10_000) / 1000 } : { amount: total }),
    // It checks for the end at each sample: every 50 ms, so a run stops within 50 ms of its time.
    sampleInt: 50,
    timeout: 30,
    setupClient(client) {
      const worker = workers++;
      let i = 0;
      const request = (spec: RequestSpec) => ({
        method: spec.method,
        path: spec.path,
        headers: { ...spec.headers },
        ...(spec.body === undefined ? {} : { body: spec.body }),
      });
      client.setRequests([
        typeof next === 'function'
          ? { setupRequest: (defaults) => ({ ...defaults, ...request(next(worker, i++)) }) }
          : request(next),
      ]);
      client.on('response', (status, _bytes, ms) => {
        if (count === latencies.length) {
          const grown = new Float64Array(latencies.length * 2);
          grown.set(latencies);
          latencies = grown;
        }
        latencies[count++] = ms;
        last = performance.now();
        statusCounts[status] = (statusCounts[status] ?? 0) + 1;
        if (status >= 400) failed++;
      });
    },
  });
  const result = await tracker;
  // Up to the last answer: the end of a fixed-count run is noticed only at the next sample.
  const seconds = ((last || performance.now()) - started) / 1000;
  const sorted = latencies.subarray(0, count).sort();
  return {
    requests: count,
    errors: failed + result.errors,
    seconds,
    perSecond: count / seconds,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    maxMs: sorted.at(-1) ?? 0,
    statusCounts,
  };
}
