/**
 * What each request leaves behind: one log line when it is answered (method, route pattern, status,
 * duration; pino adds the request id, and auth adds the key prefix to the request's logger) and the HTTP
 * metrics. Fastify's own two lines per request ("incoming request", "request completed") are turned off in
 * app.ts: this one line carries what both did, plus the route.
 */
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { Config } from '../config.ts';
import { metrics } from '../modules/metrics/metrics.ts';

/** Pretty lines for a person at a terminal, JSON lines for anything that collects logs. */
export function loggerOptions(
  config: Pick<Config, 'logLevel' | 'logFormat'>,
): FastifyServerOptions['logger'] {
  const pretty =
    config.logFormat === 'pretty' || (config.logFormat === 'auto' && process.stdout.isTTY === true);
  if (!pretty) return { level: config.logLevel };
  return {
    level: config.logLevel,
    transport: {
      target: 'pino-pretty',
      options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' },
    },
  };
}

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
        url: request.url,
        status: reply.statusCode,
        duration_ms: Math.round(reply.elapsedTime * 10) / 10,
      },
      'request',
    );
  });
}
