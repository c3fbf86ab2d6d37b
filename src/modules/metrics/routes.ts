/**
 * GET /metrics (Prometheus text). With FARMSTEAD_METRICS_TOKEN set it needs `Authorization: Bearer <token>`;
 * without one it answers only requests made straight to the loopback address (no X-Forwarded-For, which a
 * reverse proxy on the same machine adds), so a server exposed through a proxy never shows it publicly.
 * Anything else gets 404, as if the route did not exist. The metrics themselves are defined in lib/metrics.ts
 * (the database layer and the HTTP layer count too); this module is only the scrape.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Database } from '../../db/database.ts';
import { AppError } from '../../domain/errors.ts';
import { metrics, registry } from '../../lib/metrics.ts';
import { sameSecret } from '../../lib/secrets.ts';
import { queueBacklog } from './repository.ts';

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

function allowed(request: FastifyRequest, token: string | null): boolean {
  if (token === null) {
    return (
      LOOPBACK.has(request.socket.remoteAddress ?? '') && request.headers['x-forwarded-for'] === undefined
    );
  }
  return sameSecret(/^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '', token);
}

/** Values that live in the database are read at scrape time (repository.ts). */
async function readDatabaseGauges(database: Database, now: number): Promise<void> {
  const backlog = await queueBacklog(database.db);
  metrics.webhookPending.set(backlog.pendingDeliveries);
  metrics.outboxPending.set(backlog.undispatchedOutbox);
  metrics.webhookOldestAge.set(Math.max(0, (now - (backlog.oldestAt ?? now)) / 1000));
  const pool = database.poolStats();
  metrics.dbPool.set({ state: 'total' }, pool.total);
  metrics.dbPool.set({ state: 'idle' }, pool.idle);
  metrics.dbPool.set({ state: 'waiting' }, pool.waiting);
}

export async function metricsRoutes(
  app: FastifyInstance,
  opts: { database: Database; token: string | null },
): Promise<void> {
  app.get('/metrics', { config: { auth: 'none' }, schema: { hide: true } }, async (request, reply) => {
    if (!allowed(request, opts.token)) throw new AppError('not_found', 'No route GET /metrics.');
    await readDatabaseGauges(opts.database, Date.now());
    reply.header('content-type', registry.contentType);
    return registry.metrics();
  });
}
