/**
 * The LoRaWAN integrations' routes, by who calls them: a farm's integrations here (their records, the
 * uplink secret, the presets), the devices an integration carries or heard in routes/devices.ts, and the
 * network server's own uplink URL in routes/uplink.ts. Get and delete by id come from records/routes.ts's
 * builder, as every record kind's do.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Config } from '../../config.ts';
import { parsePage } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import { apiCaller } from '../../http/auth.ts';
import { BODY_ERRORS, described, errorResponses, FarmParams, IdParams, ListOf } from '../../http/schemas.ts';
import type { Scope } from '../farms/access.ts';
import { type RecordByIdKind, recordDeleteRoute, recordGetRoute } from '../records/routes.ts';
import { deviceRoutes } from './routes/devices.ts';
import { uplinkRoute } from './routes/uplink.ts';
import {
  CreateIntegrationBody,
  IntegrationListQuery,
  PresetSchema,
  UpdateIntegrationBody,
} from './schemas.ts';
import {
  createIntegration,
  deleteIntegration,
  getIntegration,
  listIntegrations,
  listPresets,
  rotateIntegrationSecret,
  updateIntegration,
} from './service.ts';

const tags = ['LoRaWAN integrations'];

// Over 80 lines by design: one declaration per route (its schema, then a one-line handler), each read alone.
export const integrationRoutes: FastifyPluginAsyncTypebox<{ db: Db; config: Readonly<Config> }> = async (
  app,
  { db, config },
) => {
  const publicUrl = config.publicUrl;
  const options = () => ({ publicUrl, allowPrivate: config.webhookAllowPrivate });
  const IntegrationRef = Type.Ref('Integration');
  const byId = {
    path: 'integrations',
    one: 'Integration',
    tags,
    noun: 'integration',
    summaries: {
      get: 'Get an integration',
      delete: 'Delete an integration; its devices stay, without their mappings',
    },
    // As before the builder: an integration is read afresh each time.
    readCache: false,
    service: {
      get: (d: Db, scope: Scope, id: string) => getIntegration(d, scope, id, publicUrl),
      delete: deleteIntegration,
    },
  } as const satisfies RecordByIdKind;

  app.get(
    '/v1/farms/:farm/integrations',
    {
      schema: {
        operationId: 'listIntegrations',
        tags,
        summary: "List a farm's LoRaWAN integrations (never their secrets or API keys)",
        params: FarmParams,
        querystring: IntegrationListQuery,
        response: {
          200: described(ListOf(IntegrationRef), 'A page of integrations, newest first.'),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found'),
        },
      },
    },
    async (request) =>
      listIntegrations(db, apiCaller(request), request.params.farm, parsePage(request.query), publicUrl),
  );

  app.post(
    '/v1/farms/:farm/integrations',
    {
      config: { shownOnce: true },
      schema: {
        operationId: 'createIntegration',
        tags,
        summary:
          'Add a ChirpStack or The Things Stack integration; its uplink URL and secret are shown here once',
        params: FarmParams,
        body: CreateIntegrationBody,
        response: {
          201: described(
            IntegrationRef,
            'The new integration, with its uplink secret in `secret` (shown only here).',
          ),
          ...errorResponses(
            {
              invalid_request:
                'The body is malformed, a mapping, encoder or preset cannot work, or api_url is not an allowed public http(s) address; `param` names it.',
            },
            'unauthorized',
            'not_found',
            ...BODY_ERRORS,
          ),
        },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(await createIntegration(db, apiCaller(request), request.params.farm, request.body, options())),
  );

  recordGetRoute(app, db, byId);

  app.patch(
    '/v1/integrations/:id',
    {
      schema: {
        operationId: 'updateIntegration',
        tags,
        summary: 'Change an integration (any fields; null clears the API address, key or ids)',
        params: IdParams,
        body: UpdateIntegrationBody,
        response: {
          200: described(IntegrationRef, 'The integration as updated.'),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found', ...BODY_ERRORS),
        },
      },
    },
    async (request) =>
      updateIntegration(db, apiCaller(request), request.params.id, request.body ?? {}, options()),
  );

  recordDeleteRoute(app, db, byId);

  app.post(
    '/v1/integrations/:id/secret',
    {
      config: { shownOnce: true },
      schema: {
        operationId: 'rotateIntegrationSecret',
        tags,
        summary: 'Rotate the uplink secret: the new one is shown once and the old one stops working at once',
        params: IdParams,
        response: {
          200: described(
            IntegrationRef,
            'The integration with its new secret in `secret` (shown only here).',
          ),
          ...errorResponses('unauthorized', 'not_found'),
        },
      },
    },
    async (request) => rotateIntegrationSecret(db, apiCaller(request), request.params.id, publicUrl),
  );

  app.get(
    '/v1/integration-presets',
    {
      schema: {
        operationId: 'listIntegrationPresets',
        tags,
        summary: 'Presets for common LoRaWAN farm sensors: their decoded fields and downlinks',
        response: {
          200: described(Type.Object({ data: Type.Array(PresetSchema) }), 'Every preset.'),
          ...errorResponses('unauthorized'),
        },
      },
    },
    async () => listPresets(),
  );

  deviceRoutes(app, db);
  uplinkRoute(app, db, config);
};
