/**
 * The OpenAPI document's frame: the named (shared) schemas, the tags, servers and security, set once
 * here. Each route brings its own operationId, summary, description and responses (see docs/api.md,
 * "The OpenAPI document").
 */
import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import type { TSchema } from 'typebox';
import { IDEMPOTENCY_KEY_MAX_LENGTH, IDEMPOTENCY_TTL_MS } from './calls/idempotency-store.ts';
import { ErrorSchema } from './http/schemas.ts';
import { HOUR_MS } from './lib/time.ts';
import { AlertSchema } from './modules/alerts/schemas.ts';
import {
  AnimalBreedingSchema,
  AnimalChangesSchema,
  AnimalSchema,
  AnimalWithdrawalSchema,
  WithdrawalSourceSchema,
} from './modules/animals/schemas.ts';
import { BriefSchema } from './modules/brief/schemas.ts';
import {
  CommandRequestSchema,
  DeviceCommandSchema,
  HouseCommandSchema,
} from './modules/commands/request-schema.ts';
import { CommandSchema } from './modules/commands/schemas.ts';
import { DeviceKeySchema, DeviceSchema } from './modules/devices/schemas.ts';
import { EventSchema } from './modules/events/schemas.ts';
import { FarmSchema } from './modules/farms/schemas.ts';
import { GrazingStaySchema } from './modules/grazing/schemas.ts';
import { GroupSchema } from './modules/groups/schemas.ts';
import { HouseSchema } from './modules/houses/schemas.ts';
import { IntegrationSchema } from './modules/integrations/schemas.ts';
import { KeySchema } from './modules/keys/schemas.ts';
import { FarmMapSchema, MapFeatureSchema } from './modules/map/schemas.ts';
import { MedicineBatchSchema, MedicineSchema } from './modules/medicines/schemas.ts';
import { MovementSchema } from './modules/movements/schemas.ts';
import { PaddockSchema } from './modules/paddocks/schemas.ts';
import { PersonSchema, SessionSchema } from './modules/people/schemas.ts';
import { ReadingSchema } from './modules/readings/schemas.ts';
import { RuleSchema } from './modules/rules/schemas.ts';
import { TaskSchema } from './modules/tasks/schemas.ts';
import { TreatmentSchema, TreatmentsCreatedSchema } from './modules/treatments/schemas.ts';
import { WebhookAttemptSchema, WebhookDeliverySchema, WebhookSchema } from './modules/webhooks/schemas.ts';
import {
  AnimalWeightsSchema,
  GroupWeightsSchema,
  ImportedSessionSchema,
  SessionPreviewSchema,
  WeighSessionSchema,
  WeightEntrySchema,
} from './modules/weights/schemas.ts';

/**
 * The schemas with an `$id`: routes refer to them with `Type.Ref('<$id>')`, the document shows them
 * as components, and MCP tool schemas inline them (modules/mcp/schema.ts).
 */
export const SHARED_SCHEMAS: readonly TSchema[] = [
  ErrorSchema,
  FarmSchema,
  KeySchema,
  PersonSchema,
  SessionSchema,
  AlertSchema,
  RuleSchema,
  AnimalSchema,
  AnimalWithdrawalSchema,
  AnimalBreedingSchema,
  WithdrawalSourceSchema,
  AnimalChangesSchema,
  MedicineSchema,
  MedicineBatchSchema,
  TreatmentSchema,
  TreatmentsCreatedSchema,
  MovementSchema,
  WeightEntrySchema,
  AnimalWeightsSchema,
  GroupWeightsSchema,
  WeighSessionSchema,
  SessionPreviewSchema,
  ImportedSessionSchema,
  GroupSchema,
  PaddockSchema,
  GrazingStaySchema,
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
  IntegrationSchema,
  BriefSchema,
  MapFeatureSchema,
  FarmMapSchema,
];

/** Schemas only the document shows (a request body described more precisely than it is checked). */
const DOCUMENT_SCHEMAS: readonly TSchema[] = [HouseCommandSchema, DeviceCommandSchema, CommandRequestSchema];

/** Every tag an operation may carry, in the order a reader meets them. */
export const TAGS = [
  { name: 'Farms', description: 'Farms, the morning brief and the sample farm reset.' },
  { name: 'Animals', description: 'Animals on a farm: tags, EIDs, groups, paddocks, custom fields.' },
  { name: 'Groups', description: 'Herds, flocks, pens and litters.' },
  {
    name: 'Herd book',
    description:
      'The medicine record: the medicine cabinet (medicines, batches, stock, expiry) and treatments, each with the withdrawal it sets under the farm’s rules.',
  },
  {
    name: 'Paddocks',
    description: 'Paddocks with acres, rest targets, last grazing, who is in them and their grazing history.',
  },
  {
    name: 'Devices',
    description: 'Devices (houses, trackers, sensors), their keys, readings and commands.',
  },
  { name: 'Houses', description: 'Mobile poultry houses: state, latest readings and recent commands.' },
  {
    name: 'Alerts',
    description:
      'Alerts opened by threshold rules and device alarms; acknowledge and resolve. A farm’s effective rules and its own rules.',
  },
  { name: 'Tasks', description: 'Tasks for the crew.' },
  {
    name: 'Farm events',
    description: 'The farm event log: treatments, weights, moves, notes, device events.',
  },
  { name: 'Webhooks', description: 'Webhook subscriptions and their deliveries.' },
  {
    name: 'LoRaWAN integrations',
    description:
      'ChirpStack and The Things Stack: uplinks in as device reports (mapping decoded fields to metrics, presets), unmatched devices to adopt, commands out as downlinks.',
  },
  {
    name: 'Notifications',
    description:
      'Alerts that reach a person: web push to their browsers and email, per-farm settings, the delivery log, acknowledging from a notification (docs/guide/notifications.md). For people signed in to the console; API keys are refused.',
  },
  {
    name: 'Live stream',
    description:
      'A farm’s events as they happen, over Server-Sent Events: the same events and JSON as webhooks, for browsers and farm-LAN integrations that cannot receive webhooks.',
  },
  { name: 'Account', description: 'The calling account, its API keys and its usage.' },
  {
    name: 'Sessions',
    description:
      'Console sign-in: the session cookie (a credential on every /v1 route, with the CSRF token on writes), the live/test switch, passwords and setup links.',
  },
  { name: 'People', description: 'The people who sign in to the console and their roles (owners only).' },
  {
    name: 'Device ingest',
    description: 'What devices call with their own device key (rd_…): reports and their commands.',
  },
  { name: 'Catalog', description: 'The public catalog: metrics, commands, rules and webhook events.' },
] as const;

export type TagName = (typeof TAGS)[number]['name'];

/** The parts of the generated document that documentIdempotency touches. */
interface DocumentResponse {
  description: string;
  headers?: Record<string, unknown>;
  content?: unknown;
}
interface DocumentOperation {
  parameters?: unknown[];
  responses: Record<string, DocumentResponse>;
  requestBody?: { required?: boolean; content?: Record<string, { schema?: DocumentSchema }> };
}
interface DocumentSchema {
  'x-optional-body'?: boolean;
}
interface OpenApiDocument {
  paths: Record<string, { post?: DocumentOperation; put?: DocumentOperation; delete?: DocumentOperation }>;
}

/**
 * A body marked OPTIONAL_BODY (http/schemas.ts) may be left out of the call: the document says so
 * (`requestBody.required: false`), where @fastify/swagger marks every body required.
 */
function documentOptionalBodies<D extends OpenApiDocument>(document: D): D {
  for (const item of Object.values(document.paths)) {
    for (const operation of [item.post, item.put, item.delete]) {
      const schema = operation?.requestBody?.content?.['application/json']?.schema;
      if (operation?.requestBody && schema?.['x-optional-body'] === true)
        operation.requestBody.required = false;
    }
  }
  return document;
}

/** What Idempotency-Key adds to an error status of a POST (see http/idempotency.ts). */
const IDEMPOTENCY_ERRORS: Record<string, string> = {
  '400': `invalid_request: Idempotency-Key is not 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} characters.`,
  '409':
    'conflict: Idempotency-Key was already used with a different request, or its first request is still running, or its request was done and answered a secret shown once (a new key or secret: never kept for a replay).',
};

/**
 * Every documented POST takes `Idempotency-Key` (http/idempotency.ts; the only POST route that opts out,
 * /mcp, is hidden): the header, its replay marker and its two errors are added here once rather than on
 * each route, where a `headers` schema would also change how the header is checked.
 */
function documentIdempotency<D extends OpenApiDocument>(document: D): D {
  for (const item of Object.values(document.paths)) {
    const post = item.post;
    if (!post) continue;
    post.parameters = [
      ...(post.parameters ?? []),
      {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description: `Makes a retry safe: the same key with the same request within ${IDEMPOTENCY_TTL_MS / HOUR_MS} hours replays the first response (with \`Idempotent-Replayed: true\`) instead of running again. A UUID is a good choice.`,
        schema: { type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX_LENGTH },
      },
    ];
    for (const [status, response] of Object.entries(post.responses)) {
      if (!status.startsWith('2')) continue;
      response.headers = {
        'Idempotent-Replayed': {
          description:
            '`true` when this is the stored response of an earlier request with the same Idempotency-Key.',
          schema: { type: 'string', enum: ['true'] },
        },
      };
    }
    for (const [status, meaning] of Object.entries(IDEMPOTENCY_ERRORS)) {
      const existing = post.responses[status];
      post.responses[status] = existing
        ? { ...existing, description: `${existing.description} Or ${meaning}` }
        : {
            description: meaning,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
          };
    }
  }
  return document;
}

export interface OpenApiOptions {
  version: string;
}

/**
 * Registers @fastify/swagger and the named schemas. Call before the routes: the onRoute hook gives
 * every operation its security from the route's `config.auth` (none: `security: []`, said explicitly).
 */
export async function registerOpenApi(app: FastifyInstance, options: OpenApiOptions): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Farmstead API',
        version: options.version,
        description:
          'The farm and ranch platform: farms, animals, groups, paddocks, devices, readings, commands, alerts, tasks, events, webhooks, keys, usage, the brief and the catalog. Every failure is an Error object `{error: {code, message, param?}}`; the codes are stable (see each operation).',
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      },
      // Relative: the document is served by the API it describes, so clients resolve paths against
      // the address they fetched it from (works behind any proxy or host name).
      servers: [{ url: '/', description: 'This server' }],
      tags: TAGS.map((tag) => ({ ...tag })),
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'API key: rk_live_… or rk_test_…' },
          sessionCookie: {
            type: 'apiKey',
            in: 'cookie',
            name: 'farmstead_session',
            description:
              'A console session (POST /v1/session), acting with the person’s role; writes also need the X-CSRF-Token header.',
          },
          deviceKey: {
            type: 'http',
            scheme: 'bearer',
            description: 'Device key: rd_… (device endpoints only)',
          },
          integrationSecret: {
            type: 'http',
            scheme: 'bearer',
            description: 'A LoRaWAN integration’s uplink secret: lwi_… (its uplink URL only)',
          },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transformObject: (document) =>
      'openapiObject' in document
        ? documentOptionalBodies(
            documentIdempotency(document.openapiObject as typeof document.openapiObject & OpenApiDocument),
          )
        : document.swaggerObject,
  });
  app.addHook('onRoute', (route) => {
    const auth = route.config?.auth ?? 'api';
    if (route.schema && !route.schema.security) {
      route.schema.security =
        auth === 'none'
          ? []
          : auth === 'device'
            ? [{ deviceKey: [] }]
            : [{ apiKey: [] }, { sessionCookie: [] }];
    }
  });
  for (const schema of [...SHARED_SCHEMAS, ...DOCUMENT_SCHEMAS]) app.addSchema(schema);
}
