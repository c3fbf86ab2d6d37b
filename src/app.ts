/**
 * buildApp: the whole HTTP service as a Fastify instance, never listening (server start is main.ts;
 * tests call it with inject or on an ephemeral port). Wiring is explicit: every module is registered here.
 */
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyServerOptions, LogController } from 'fastify';
import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import { registerAuth } from './http/auth.ts';
import { limitConnections, timeoutOptions } from './http/connections.ts';
import { registerErrorHandling } from './http/errors.ts';
import { registerHealth, type WorkerStatus } from './http/health.ts';
import { registerIdempotency } from './http/idempotency.ts';
import { loggerOptions, registerObservation } from './http/observe.ts';
import { ErrorSchema } from './http/schemas.ts';
import { registerValidation } from './http/validation.ts';
import { randomToken } from './lib/secrets.ts';
import { accountRoutes } from './modules/accounts/routes.ts';
import { alertRoutes } from './modules/alerts/routes.ts';
import { AlertSchema } from './modules/alerts/schemas.ts';
import { animalRoutes } from './modules/animals/routes.ts';
import { AnimalSchema } from './modules/animals/schemas.ts';
import { briefRoutes } from './modules/brief/routes.ts';
import { BriefSchema } from './modules/brief/schemas.ts';
import { catalogRoutes } from './modules/catalog/routes.ts';
import { commandRoutes } from './modules/commands/routes.ts';
import { CommandSchema } from './modules/commands/schemas.ts';
import { deviceRoutes } from './modules/devices/routes.ts';
import { DeviceKeySchema, DeviceSchema } from './modules/devices/schemas.ts';
import { authenticateDevice } from './modules/devices/service.ts';
import { docsRoutes } from './modules/docs/routes.ts';
import { eventRoutes } from './modules/events/routes.ts';
import { EventSchema } from './modules/events/schemas.ts';
import { farmRoutes } from './modules/farms/routes.ts';
import { FarmSchema } from './modules/farms/schemas.ts';
import { groupRoutes } from './modules/groups/routes.ts';
import { GroupSchema } from './modules/groups/schemas.ts';
import { houseRoutes } from './modules/houses/routes.ts';
import { HouseSchema } from './modules/houses/schemas.ts';
import { ingestRoutes } from './modules/ingest/routes.ts';
import { keyRoutes } from './modules/keys/routes.ts';
import { KeySchema } from './modules/keys/schemas.ts';
import { mcpRoutes } from './modules/mcp/routes.ts';
import { metricsRoutes } from './modules/metrics/routes.ts';
import { paddockRoutes } from './modules/paddocks/routes.ts';
import { PaddockSchema } from './modules/paddocks/schemas.ts';
import { readingRoutes } from './modules/readings/routes.ts';
import { ReadingSchema } from './modules/readings/schemas.ts';
import { sampleRoutes } from './modules/sample/routes.ts';
import { taskRoutes } from './modules/tasks/routes.ts';
import { TaskSchema } from './modules/tasks/schemas.ts';
import type { UsageCounter } from './modules/usage/counter.ts';
import { usageRoutes } from './modules/usage/routes.ts';
import { webhookRoutes } from './modules/webhooks/routes.ts';
import { WebhookAttemptSchema, WebhookDeliverySchema, WebhookSchema } from './modules/webhooks/schemas.ts';

export const API_VERSION = '2026-10-18';

export interface AppDeps {
  config: Readonly<Config>;
  database: Database;
  usage: UsageCounter;
  logger?: FastifyServerOptions['logger'];
  /** The process's background workers, for /readyz; absent when this process runs none. */
  workers?: WorkerStatus;
}

/** Response schemas shown as named components in the OpenAPI document. */
const SHARED_SCHEMAS = [
  ErrorSchema,
  FarmSchema,
  KeySchema,
  AlertSchema,
  AnimalSchema,
  GroupSchema,
  PaddockSchema,
  TaskSchema,
  EventSchema,
  DeviceSchema,
  DeviceKeySchema,
  ReadingSchema,
  CommandSchema,
  HouseSchema,
  WebhookSchema,
  WebhookAttemptSchema,
  WebhookDeliverySchema,
  BriefSchema,
];

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
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    ...timeoutOptions(config),
  }).withTypeProvider<TypeBoxTypeProvider>();
  limitConnections(app.server, config);

  registerValidation(app);
  registerErrorHandling(app);
  registerObservation(app);
  // Action endpoints take no body; tolerate clients that send `Content-Type: application/json` anyway.
  // JSON only: any other content type is 415 unsupported_media_type.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch (err) {
      const error = err as Error & { statusCode?: number; code?: string };
      error.statusCode = 400;
      error.code = 'FST_ERR_CTP_INVALID_JSON_BODY';
      done(error, undefined);
    }
  });
  app.addHook('onSend', async (request, reply) => {
    reply.header('request-id', request.id);
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Farmstead API',
        version: API_VERSION,
        description:
          'The farm and ranch platform: farms, animals, groups, paddocks, devices, readings, commands, alerts, tasks, events, webhooks, keys, usage, the brief and the catalog.',
      },
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'API key: rk_live_… or rk_test_…' },
          deviceKey: {
            type: 'http',
            scheme: 'bearer',
            description: 'Device key: rd_… (device endpoints only)',
          },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  app.addHook('onRoute', (route) => {
    const auth = route.config?.auth ?? 'api';
    if (route.schema && auth !== 'none' && !route.schema.security) {
      route.schema.security = [auth === 'device' ? { deviceKey: [] } : { apiKey: [] }];
    }
  });
  for (const schema of SHARED_SCHEMAS) app.addSchema(schema);

  registerAuth(app, { db, usage, deviceAuthenticator: authenticateDevice });
  registerIdempotency(app, { db });

  registerHealth(app, { database, version: API_VERSION, workers: deps.workers });
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
  await app.register(commandRoutes, { db, commandExpirySeconds: config.commandExpirySeconds });
  await app.register(ingestRoutes, { db });
  await app.register(houseRoutes, { db });
  await app.register(webhookRoutes, { db, config });
  await app.register(briefRoutes, { db });
  await app.register(sampleRoutes, { db });
  await app.register(mcpRoutes, {
    db,
    allowedOrigins: config.mcpAllowedOrigins,
    commandExpirySeconds: config.commandExpirySeconds,
  });

  return app;
}
