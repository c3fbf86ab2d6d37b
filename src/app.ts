/**
 * buildApp: the whole HTTP service as a Fastify instance, never listening (server start is main.ts;
 * tests call it with inject or on an ephemeral port). Wiring is explicit: every module is registered here.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyServerOptions, LogController } from 'fastify';
import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import { isPostgres } from './db/engine.ts';
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
import { loggerOptions } from './http/logging.ts';
import { registerObservation } from './http/observe.ts';
import { withAccess } from './http/permissions.ts';
import { RateLimiter } from './http/rate-limit.ts';
import { MemoryStore, TableStore } from './http/rate-limit-store.ts';
import { registerReadCache } from './http/read-cache.ts';
import { type RouteTable, trackRoutes } from './http/route-table.ts';
import { buildSerializer } from './http/serialization.ts';
import { registerValidation } from './http/validation.ts';
import { registerCompression, registerCors } from './http/web.ts';
import { randomToken } from './lib/secrets.ts';
import { accountRoutes } from './modules/accounts/routes.ts';
import { alertRoutes } from './modules/alerts/routes.ts';
import { animalRoutes } from './modules/animals/routes.ts';
import { breedingRoutes } from './modules/breeding/routes.ts';
import { breedingEventChanged, withBreeding } from './modules/breeding/service.ts';
import { briefRoutes } from './modules/brief/routes.ts';
import { startBrokerKicks } from './modules/broker-hooks/admin.ts';
import { brokerHookRoutes } from './modules/broker-hooks/routes.ts';
import { catalogRoutes } from './modules/catalog/routes.ts';
import { commandRoutes } from './modules/commands/routes.ts';
import { consoleRoutes } from './modules/console/routes.ts';
import {
  animalExportRoutes,
  animalImportRoutes,
  eventExportRoutes,
  holdingRegisterExportRoutes,
  medicineRecordExportRoutes,
  readingExportRoutes,
  taskExportRoutes,
} from './modules/dataio/routes.ts';
import { deviceRoutes } from './modules/devices/routes.ts';
import { authenticateDevice } from './modules/devices/service.ts';
import { docsRoutes } from './modules/docs/routes.ts';
import { eventRoutes } from './modules/events/routes.ts';
import { farmRoutes } from './modules/farms/routes.ts';
import type { FarmChangeHooks } from './modules/farms/service.ts';
import { placeFarmDevices } from './modules/grazing/placement.ts';
import { grazingRoutes } from './modules/grazing/routes.ts';
import { groupRoutes } from './modules/groups/routes.ts';
import { houseRoutes } from './modules/houses/routes.ts';
import { ingestRoutes } from './modules/ingest/routes.ts';
import { integrationRoutes } from './modules/integrations/routes.ts';
import { findActiveKeyByHash, markKeyUsed } from './modules/keys/repository.ts';
import { keyRoutes } from './modules/keys/routes.ts';
import { mapRoutes } from './modules/map/routes.ts';
import { mcpRoutes } from './modules/mcp/routes.ts';
import { medicineRoutes } from './modules/medicines/routes.ts';
import { metricsRoutes } from './modules/metrics/routes.ts';
import { movementRoutes } from './modules/movements/routes.ts';
import { movementEventChanged } from './modules/movements/service.ts';
import { installMqtt } from './modules/mqtt/transport.ts';
import { notificationRoutes } from './modules/notifications/routes.ts';
import { authenticateAccessToken } from './modules/oauth/access-tokens.ts';
import { oauthConsoleRoutes, oauthRoutes } from './modules/oauth/routes.ts';
import { paddockRoutes } from './modules/paddocks/routes.ts';
import { peopleRoutes, sessionRoutes } from './modules/people/routes.ts';
import { authenticateSession, csrfTokenOf } from './modules/people/service.ts';
import { positionRoutes } from './modules/positions/routes.ts';
import { readingRoutes } from './modules/readings/routes.ts';
import { settleBuiltInRuleChanges } from './modules/rules/changes.ts';
import { ruleRoutes } from './modules/rules/routes.ts';
import { sampleRoutes } from './modules/sample/routes.ts';
import { StreamHub } from './modules/stream/hub.ts';
import { streamRoutes } from './modules/stream/routes.ts';
import { rezoneDueDates } from './modules/tasks/repository.ts';
import { taskRoutes } from './modules/tasks/routes.ts';
import { treatmentEventChanged } from './modules/treatments/corrections.ts';
import { herdBookEventHook } from './modules/treatments/event-hook.ts';
import { treatmentRoutes } from './modules/treatments/routes.ts';
import type { UsageCounter } from './modules/usage/counter.ts';
import { usageRoutes } from './modules/usage/routes.ts';
import { webhookRoutes } from './modules/webhooks/routes.ts';
import { weightRoutes } from './modules/weights/routes.ts';
import { registerOpenApi } from './openapi.ts';

export const API_VERSION = '2026-10-18';

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route served (method and pattern); see http/route-table.ts. */
    routeTable: RouteTable;
    /** The process's live streams (modules/stream). */
    streams: StreamHub;
  }
}

export interface AppDeps {
  config: Readonly<Config>;
  database: Database;
  usage: UsageCounter;
  logger?: FastifyServerOptions['logger'];
  /** The process's background workers, for /readyz; absent when this process runs none. */
  workers?: WorkerStatus;
  /** The MQTT side's, the console sessions' and the rate limits' clock (tests inject one); Date.now otherwise. */
  clock?: () => number;
}

/**
 * What a farm's PATCH sets in motion above farms, in its transaction: a change of its settings settles the
 * alerts of a built-in rule that settings.rules turned off or rewired (modules/rules), a new time zone moves
 * the tasks due on a date (modules/tasks). The bench's rule figures go through the same hooks.
 */
export const FARM_CHANGE_HOOKS: FarmChangeHooks = Object.freeze({
  settingsChanged: settleBuiltInRuleChanges,
  timezoneChanged: rezoneDueDates,
});

// Over 80 lines by design: the wiring is read top to bottom in registration order (hooks, then modules),
// one line per plugin or module.
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
    trustProxy: config.trustProxy,
    ...timeoutOptions(config),
    schemaController: { compilersFactory: { buildSerializer } },
  }).withTypeProvider<TypeBoxTypeProvider>();
  limitConnections(app.server, config);

  const routes = trackRoutes(app);
  app.decorate('routeTable', routes);
  registerValidation(app);
  registerErrorHandling(app, routes);
  registerObservation(app);
  refuseWhileClosing(app);
  await registerCors(app, config.corsOrigins);
  await registerCompression(app);
  // JSON only (any other content type is 415); an empty body counts as none.
  registerInputGuard(app);
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('request-id', request.id);
    done(null, payload);
  });

  await registerOpenApi(app, { version: API_VERSION });

  const limitStore = isPostgres(db) ? new TableStore(db, app.log) : new MemoryStore();
  if (limitStore instanceof TableStore) app.addHook('onClose', async () => limitStore.close());
  const clock = deps.clock ?? Date.now;
  const limiter = config.rateLimitEnabled ? new RateLimiter(limitStore, config, app.log, clock) : null;
  registerAuth(app, {
    db,
    usage,
    apiKeys: { findByHash: findActiveKeyByHash, markUsed: markKeyUsed },
    deviceAuthenticator: authenticateDevice,
    sessionAuthenticator: authenticateSession,
    agentAuthenticator: authenticateAccessToken,
    csrfTokenOf,
    clock,
    limiter,
    databaseUrl: config.databaseUrl,
  });
  registerIdempotency(app, { db });
  // Records, lists, house views and the brief answered again while nothing was committed (after auth).
  registerReadCache(app, { db });

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
  // The broker's questions (who may connect, publish, subscribe), only when it is told to ask them.
  // With its admin API named, a rotated or deleted key's live sessions are disconnected too.
  if (config.mqttBrokerAuth === 'http' && config.mqttHookSecret) {
    const kicks = config.mqttBrokerAdmin
      ? await startBrokerKicks({
          admin: config.mqttBrokerAdmin,
          databaseUrl: config.databaseUrl,
          log: app.log,
        })
      : null;
    if (kicks) app.addHook('onClose', () => kicks.close());
    await app.register(brokerHookRoutes, {
      db,
      secret: config.mqttHookSecret,
      service: config.mqttBroker,
      ...(kicks ? { letIn: (login) => kicks.remember(login) } : {}),
    });
  }
  app.get('/openapi.json', { config: { auth: 'none' }, schema: { hide: true } }, async () => app.swagger());
  await app.register(docsRoutes);
  // The web console (pages and their files); its data comes from /v1 like any client's.
  await app.register(consoleRoutes, {
    tiles: { url: config.mapTiles, attribution: config.mapAttribution },
  });

  await app.register(catalogRoutes);
  await app.register(withAccess(accountRoutes, 'any'), { db });
  await app.register(withAccess(keyRoutes, 'keys'), { db });
  // Everyone signed in manages their own session; people admin is the `people` resource (owners).
  await app.register(withAccess(sessionRoutes, 'any'), { db, clock, passwordCost: config.passwordCost });
  await app.register(withAccess(peopleRoutes, 'people'), {
    db,
    clock,
    passwordCost: config.passwordCost,
    publicUrl: config.publicUrl,
  });
  // Every signed-in person manages their own notifications (API keys are refused in the service).
  await app.register(withAccess(notificationRoutes, 'any'), { db, config, clock });
  await app.register(withAccess(usageRoutes, 'usage'), { db, usage });
  await app.register(withAccess(farmRoutes, 'farms'), { db, hooks: FARM_CHANGE_HOOKS });
  await app.register(withAccess(animalRoutes, 'animals'), { db });
  // Data in and out (modules/dataio): an export reads its resource; the import writes animals.
  await app.register(withAccess(animalExportRoutes, 'animals'), { db });
  await app.register(withAccess(animalImportRoutes, 'animals'), { db });
  await app.register(withAccess(eventExportRoutes, 'events'), { db });
  await app.register(withAccess(taskExportRoutes, 'tasks'), { db });
  await app.register(withAccess(medicineRecordExportRoutes, 'animals'), { db });
  await app.register(withAccess(holdingRegisterExportRoutes, 'animals'), { db });
  await app.register(withAccess(groupRoutes, 'groups'), { db });
  // The herd book (issue 46): medicines and treatments are animal records, under the animals resource.
  await app.register(withAccess(medicineRoutes, 'animals'), { db });
  await app.register(withAccess(treatmentRoutes, 'animals'), { db });
  await app.register(withAccess(movementRoutes, 'animals'), { db });
  // Weights and weigh sessions (issue 47) are the herd book's too.
  await app.register(withAccess(weightRoutes, 'animals'), { db });
  await app.register(withAccess(breedingRoutes, 'animals'), { db });
  // A paddock's outline added, redrawn or deleted places the farm's devices again (modules/grazing).
  await app.register(withAccess(paddockRoutes, 'paddocks'), { db, outlinesChanged: placeFarmDevices });
  await app.register(withAccess(grazingRoutes, 'paddocks'), { db });
  await app.register(withAccess(taskRoutes, 'tasks'), { db });
  // A sale inside a withdrawal, or a treatment naming a medicine, is the herd book's (modules/treatments).
  // A breeding record edited or deleted folds its females' state again (modules/breeding); a treatment's
  // log entry is corrected through its treatment, not edited (modules/treatments); a movement's stays as the
  // holding register records it (modules/movements).
  await app.register(withAccess(eventRoutes, 'events'), {
    db,
    hook: withBreeding(herdBookEventHook),
    onChange: async (trx, scope, before, after, now) => {
      await treatmentEventChanged(trx, scope, before, after, now);
      await movementEventChanged(trx, scope, before, after, now);
      await breedingEventChanged(trx, scope, before, after, now);
    },
  });
  await app.register(withAccess(alertRoutes, 'alerts'), { db });
  // A farm's alert rules are part of its alerting (the alerts family) but their own resource: crew handle
  // alerts without changing the rules.
  await app.register(withAccess(ruleRoutes, 'rules'), { db });
  await app.register(withAccess(deviceRoutes, 'devices'), { db, hooks: mqtt.deviceKeyHooks });
  await app.register(withAccess(readingRoutes, 'readings'), { db });
  await app.register(withAccess(readingExportRoutes, 'readings'), { db });
  // A device's track (modules/positions): reported positions are readings-like data.
  await app.register(withAccess(positionRoutes, 'readings'), { db });
  await app.register(withAccess(commandRoutes, 'commands'), {
    db,
    commandExpirySeconds: config.commandExpirySeconds,
    commandRedeliverSeconds: config.commandRedeliverSeconds,
  });
  await app.register(withAccess(ingestRoutes, 'devices'), { db, maxClockSkewS: config.maxClockSkewS });
  // LoRaWAN network servers: uplinks in (their own secret), commands out as downlinks (modules/integrations).
  await app.register(withAccess(integrationRoutes, 'integrations'), { db, config });
  await app.register(withAccess(houseRoutes, 'houses'), { db });
  await app.register(withAccess(webhookRoutes, 'webhooks'), { db, config });
  await app.register(withAccess(briefRoutes, 'brief'), { db });
  await app.register(withAccess(sampleRoutes, 'farms'), { db });
  // The farm map (modules/map): paddocks, devices and alerts as GeoJSON; its needs are in ROUTE_OVERRIDES.
  await app.register(withAccess(mapRoutes, 'paddocks'), { db });
  // The live stream: a farm read. Which event types each caller gets is its read permissions (service.ts).
  const streams = new StreamHub({
    database,
    databaseUrl: config.databaseUrl,
    log: app.log,
    keepAliveMs: config.streamKeepAliveMs,
    pollMs: config.streamPollMs,
  });
  app.decorate('streams', streams);
  // preClose, before the server waits for its connections: open streams end at once (clients reconnect).
  app.addHook('preClose', () => streams.close());
  await app.register(withAccess(streamRoutes, 'farms'), {
    db,
    hub: streams,
    maxStreamsPerKey: config.maxStreamsPerKey,
  });
  // OAuth for MCP connectors: the authorization server and protected resource metadata, the consent's API.
  const oauth = { db, clock, allowPrivate: config.webhookAllowPrivate };
  await app.register(oauthRoutes, oauth);
  await app.register(withAccess(oauthConsoleRoutes, 'any'), oauth);
  await app.register(withAccess(mcpRoutes, 'per-tool'), {
    db,
    allowedOrigins: config.mcpAllowedOrigins,
    readOnly: config.mcpReadOnly,
    commandExpirySeconds: config.commandExpirySeconds,
    commandRedeliverSeconds: config.commandRedeliverSeconds,
  });

  return app;
}
