/**
 * What each request leaves behind: one log line when it is answered (method, route pattern, status,
 * duration; pino adds the request id, and auth adds the key prefix to the request's logger) and the HTTP
 * metrics. Fastify's own two lines per request ("incoming request", "request completed") are turned off in
 * app.ts: this one line carries what both did, plus the route.
 *
 * Fastify's onResponse runs when a response finishes. A response its client closes while it is under way
 * (a live stream's usual end: the browser tab closes) never finishes, so that case is written from the
 * response's 'close' instead, with `closed_by_client`: still one line per request.
 */
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { metrics } from '../lib/metrics.ts';
import { requestUrlForLog } from './logging.ts';

/**
 * Whether a request's line was written: a request decoration (false in each request from the start, so every
 * request keeps one shape), not a WeakSet with an entry per request for the garbage collector to clear
 * (observe() was the largest self time of our code in a profile of cached reads: 1–1.5 % of the main thread).
 */
const OBSERVED = Symbol('observed');
type Observed = FastifyRequest & { [OBSERVED]: boolean };

function observe(request: FastifyRequest, reply: FastifyReply, extra: Record<string, unknown> = {}): void {
  if ((request as Observed)[OBSERVED]) return;
  (request as Observed)[OBSERVED] = true;
  // The pattern (/v1/farms/:farm_id), never the URL: ids in labels would make a series per record.
  const route = request.routeOptions.url ?? '(unmatched)';
  const seconds = reply.elapsedTime / 1000;
  metrics.httpRequests.inc({ method: request.method, route, status: String(reply.statusCode) });
  metrics.httpDuration.observe({ method: request.method, route }, seconds);
  const level = reply.statusCode >= 500 ? 'error' : 'info';
  // Below the log level (LOG_LEVEL=warn) the line is not built: its URL redaction and object cost a request.
  // (pino's loggers can tell; the null logger of `logger: false` cannot, and writes nothing anyway.)
  const log = request.log as FastifyBaseLogger & { isLevelEnabled?: (level: string) => boolean };
  if (log.isLevelEnabled && !log.isLevelEnabled(level)) return;
  request.log[level](
    {
      method: request.method,
      route,
      url: requestUrlForLog(request),
      status: reply.statusCode,
      duration_ms: Math.round(reply.elapsedTime * 10) / 10,
      ...extra,
    },
    'request',
  );
}

export function registerObservation(app: FastifyInstance): void {
  app.decorateRequest(OBSERVED, false);
  // Hooks that run on every request are callback hooks, not async ones: an async hook costs a promise and a
  // turn of the event loop's microtasks on every request even when it has nothing to do (a dozen of them
  // cost a bare Fastify about 6 µs a request). The others (read-cache.ts, idempotency.ts) do their async
  // work only for the requests that need it.
  app.addHook('onResponse', (request, reply, done) => {
    observe(request, reply);
    done();
  });
  app.addHook('onRequest', (request, reply, done) => {
    reply.raw.once('close', () => {
      // A finished response was observed by onResponse already (its usual case: no turn to wait for).
      if ((request as Observed)[OBSERVED]) return;
      // After onResponse had its turn. A response never begun has no status to tell.
      setImmediate(() => {
        if ((request as Observed)[OBSERVED] || !reply.raw.headersSent) return;
        observe(request, reply, { closed_by_client: true });
      });
    });
    done();
  });
}
