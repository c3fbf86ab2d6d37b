/**
 * What each request leaves behind: one log line when it is answered (method, route pattern, status,
 * duration; pino adds the request id, and auth adds the key prefix to the request's logger) and the HTTP
 * metrics. Fastify's own two lines per request ("incoming request", "request completed") are turned off in
 * app.ts: this one line carries what both did, plus the route.
 */
import type { FastifyInstance } from 'fastify';
import { metrics } from '../modules/metrics/metrics.ts';
import { redactUrl } from './logging.ts';

export function registerObservation(app: FastifyInstance): void {
  app.addHook('onResponse', async (request, reply) => {
    // The pattern (/v1/farms/:farm_id), never the URL: ids in labels would make a series per record.
    const route = request.routeOptions.url ?? '(unmatched)';
    const seconds = reply.elapsedTime / 1000;
    metrics.httpRequests.inc({ method: request.method, route, status: String(reply.statusCode) });
    metrics.httpDuration.observe({ method: request.method, route }, seconds);
    const level = reply.statusCode >= 500 ? 'error' : 'info';
    request.log[level](
      {
        method: request.method,
        route,
        url: redactUrl(request.url),
        status: reply.statusCode,
        duration_ms: Math.round(reply.elapsedTime * 10) / 10,
      },
      'request',
    );
  });
}
