/**
 * buildApp: the whole HTTP service as a Fastify instance, never listening (server start is main.ts;
 * tests call it with inject or on an ephemeral port). Wiring is explicit: every module is registered here.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyServerOptions, LogController } from 'fastify';
import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import { registerAuth } from './http/auth.ts';
import { limitConnections, timeoutOptions } from './http/connections.ts';
import { registerErrorHandling } from './http/errors.ts';
import {
  clientErrorHandler,
  frameworkErrors,
  MAX_PATH_SEGMENT,
  refuseWhileClosing,
} from './http/framework-errors.ts';
import { registerHealth, type WorkerStatus } from './http/health.ts';
import { registerIdempotency } from './http/idempotency.ts';
import { registerInputGuard } from './http/input-guard.ts';
import { loggerOptions, registerObservation } from './http/observe.ts';
import { type RouteTable, trackRoutes } from './http/route-table.ts';
import { registerValidation } from './http/validation.ts';
import { randomToken } from './lib/secrets.ts';
import { accountRoutes } from './modules/accounts/routes.ts';
import { alertRoutes } from './modules/alerts/routes.ts';
import { animalRoutes } from './modules/animals/routes.ts';
import { briefRoutes } from './modules/brief/routes.ts';
import { catalogRoutes } from './modules/catalog/routes.ts';
import { commandRoutes } from './modules/commands/routes.ts';
import { deviceRoutes } from './modules/devices/routes.ts';
import { authenticateDevice } from './modules/devices/service.ts';
import { docsRoutes } from './modules/docs/routes.ts';
import { eventRoutes } from './modules/events/routes.ts';
import { farmRoutes } from './modules/farms/routes.ts';
import { groupRoutes } from './modules/groups/routes.ts';
import { houseRoutes } from './modules/houses/routes.ts';
import { ingestRoutes } from './modules/ingest/routes.ts';
import { keyRoutes } from './modules/keys/routes.ts';
import { mcpRoutes } from './modules/mcp/routes.ts';
import { metricsRoutes } from './modules/metrics/routes.ts';
import { installMqtt } from './modules/mqtt/transport.ts';
import { paddockRoutes } from './modules/paddocks/routes.ts';
import { readingRoutes } from './modules/readings/routes.ts';
import { sampleRoutes } from './modules/sample/routes.ts';
import { taskRoutes } from './modules/tasks/routes.ts';
import type { UsageCounter } from './modules/usage/counter.ts';
import { usageRoutes } from './modules/usage/routes.ts';
import { webhookRoutes } from './modules/webhooks/routes.ts';
import { registerOpenApi } from './openapi.ts';

export const API_VERSION = '2026-10-18';

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route served (method and pattern); see http/route-table.ts. */
    routeTable: RouteTable;
  }
}

export interface AppDeps {
  config: Readonly<Config>;
  database: Database;
  usage: UsageCounter;
  logger?: FastifyServerOptions['logger'];
  /** The process's background workers, for /readyz; absent when this process runs none. */
  workers?: WorkerStatus;
  /** The MQTT side's clock (tests inject one); Date.now otherwise. */
  clock?: () => number;
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, database, usage } = deps;
  const db = database.db;
  const app = Fastify({
    logger: deps.logger ?? loggerOptions(config),
    // One line per request, written by registerObservation (with the route), instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.bodyLimitBytes,
    genReqId: () => `req_${randomToken(20)}`,
    requestIdHeader: false,
    // refuseWhileClosing answers instead, with the Error object.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    routerOptions: { maxParamLength: MAX_PATH_SEGMENT },
    frameworkErrors,
    clientErrorHandler,
    ...timeoutOptions(config),
  }).withTypeProvider<TypeBoxTypeProvider>();
  limitConnections(app.server, config);

  const routes = trackRoutes(app);
  app.decorate('routeTable', routes);
  registerValidation(app);
  registerErrorHandling(app, routes);
  registerObservation(app);
  refuseWhileClosing(app);
  // JSON only (any other content type is 415); an empty body counts as none.
  registerInputGuard(app);
  app.addHook('onSend', async (request, reply) => {
    reply.header('request-id', request.id);
  });

  await registerOpenApi(app, { version: API_VERSION });

  registerAuth(app, { db, usage, deviceAuthenticator: authenticateDevice });
  registerIdempotency(app, { db });

  const mqtt = await installMqtt(app, {
    database,
    config,
    usage,
    ...(deps.clock ? { clock: deps.clock } : {}),
  });
  registerHealth(app, {
    database,
    version: API_VERSION,
    workers: deps.workers,
    healthzExtra: () => ({ mqtt: mqtt.status() }),
  });
  await app.register(metricsRoutes, { database, token: config.metricsToken });
  app.get('/openapi.json', { config: { auth: 'none' }, schema: { hide: true } }, async () => app.swagger());
  await app.register(docsRoutes);

  await app.register(catalogRoutes);
  await app.register(accountRoutes, { db });
  await app.register(keyRoutes, { db });
  await app.register(usageRoutes, { db, usage });
  await app.register(farmRoutes, { db });
  await app.register(animalRoutes, { db });
  await app.register(groupRoutes, { db });
  await app.register(paddockRoutes, { db });
  await app.register(taskRoutes, { db });
  await app.register(eventRoutes, { db });
  await app.register(alertRoutes, { db });
  await app.register(deviceRoutes, { db });
  await app.register(readingRoutes, { db });
  await app.register(commandRoutes, {
    db,
    commandExpirySeconds: config.commandExpirySeconds,
    commandRedeliverSeconds: config.commandRedeliverSeconds,
  });
  await app.register(ingestRoutes, { db });
  await app.register(houseRoutes, { db });
  await app.register(webhookRoutes, { db, config });
  await app.register(briefRoutes, { db });
  await app.register(sampleRoutes, { db });
  await app.register(mcpRoutes, {
    db,
    allowedOrigins: config.mcpAllowedOrigins,
    commandExpirySeconds: config.commandExpirySeconds,
    commandRedeliverSeconds: config.commandRedeliverSeconds,
  });

  return app;
}
