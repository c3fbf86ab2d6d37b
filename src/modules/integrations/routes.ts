import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Config } from '../../config.ts';
import { parsePage } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import { permission } from '../../domain/permissions.ts';
import { apiCaller, bearerToken } from '../../http/auth.ts';
import {
  BODY_ERRORS,
  DeletedSchema,
  described,
  errorResponses,
  FarmParams,
  IdParams,
  ListOf,
} from '../../http/schemas.ts';
import {
  deleteDeviceLink,
  getDeviceLink,
  listIntegrationDevices,
  previewDeviceLink,
  putDeviceLink,
} from './links.ts';
import { receiveUplink } from './receive.ts';
import {
  AdoptBody,
  CreateIntegrationBody,
  DeviceLinkSchema,
  EuiParams,
  IntegrationListQuery,
  IntegrationSchema,
  PresetSchema,
  PreviewBody,
  PutDeviceLinkBody,
  UnmatchedSchema,
  UpdateIntegrationBody,
  UplinkQuery,
  UplinkResult,
} from './schemas.ts';
import {
  adoptUnmatched,
  createIntegration,
  deleteIntegration,
  getIntegration,
  listIntegrations,
  listPresets,
  listUnmatched,
  rotateIntegrationSecret,
  updateIntegration,
} from './service.ts';

// Over 80 lines by design: one declaration per route (its schema, then a one-line handler), each read alone.
export const integrationRoutes: FastifyPluginAsyncTypebox<{ db: Db; config: Readonly<Config> }> = async (
  app,
  { db, config },
) => {
  const tags = ['LoRaWAN integrations'];
  const publicUrl = config.publicUrl;
  const options = () => ({ publicUrl, allowPrivate: config.webhookAllowPrivate });
  // Uplinks are judged as reports over HTTP and MQTT are: FARMSTEAD_MAX_CLOCK_SKEW_S.
  const ingestOptions = { maxClockSkewMs: config.maxClockSkewS * 1000 };

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
          200: described(ListOf(IntegrationSchema), 'A page of integrations, newest first.'),
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
      schema: {
        operationId: 'createIntegration',
        tags,
        summary:
          'Add a ChirpStack or The Things Stack integration; its uplink URL and secret are shown here once',
        params: FarmParams,
        body: CreateIntegrationBody,
        response: {
          201: described(
            IntegrationSchema,
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

  app.get(
    '/v1/integrations/:id',
    {
      schema: {
        operationId: 'getIntegration',
        tags,
        summary: 'Get an integration',
        params: IdParams,
        response: {
          200: described(IntegrationSchema, 'The integration.'),
          ...errorResponses('unauthorized', 'not_found'),
        },
      },
    },
    async (request) => getIntegration(db, apiCaller(request), request.params.id, publicUrl),
  );

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
          200: described(IntegrationSchema, 'The integration as updated.'),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found', ...BODY_ERRORS),
        },
      },
    },
    async (request) =>
      updateIntegration(db, apiCaller(request), request.params.id, request.body ?? {}, options()),
  );

  app.delete(
    '/v1/integrations/:id',
    {
      schema: {
        operationId: 'deleteIntegration',
        tags,
        summary: 'Delete an integration; its devices stay, without their mappings',
        params: IdParams,
        response: {
          200: described(DeletedSchema, 'The integration is deleted.'),
          ...errorResponses('unauthorized', 'not_found'),
        },
      },
    },
    async (request) => deleteIntegration(db, apiCaller(request), request.params.id),
  );

  app.post(
    '/v1/integrations/:id/secret',
    {
      schema: {
        operationId: 'rotateIntegrationSecret',
        tags,
        summary: 'Rotate the uplink secret: the new one is shown once and the old one stops working at once',
        params: IdParams,
        response: {
          200: described(
            IntegrationSchema,
            'The integration with its new secret in `secret` (shown only here).',
          ),
          ...errorResponses('unauthorized', 'not_found'),
        },
      },
    },
    async (request) => rotateIntegrationSecret(db, apiCaller(request), request.params.id, publicUrl),
  );

  app.get(
    '/v1/integrations/:id/unmatched',
    {
      schema: {
        operationId: 'listUnmatchedLorawanDevices',
        tags,
        summary: 'DevEUIs the integration heard that match no device: last seen, name, decoded fields',
        params: IdParams,
        response: {
          200: described(Type.Object({ data: Type.Array(UnmatchedSchema) }), 'Newest first, at most 500.'),
          ...errorResponses('unauthorized', 'not_found'),
        },
      },
    },
    async (request) => listUnmatched(db, apiCaller(request), request.params.id),
  );

  app.post(
    '/v1/integrations/:id/unmatched/:eui/adopt',
    {
      // A new device as well as its integration settings.
      config: { access: { needs: [permission('integrations', 'write'), permission('devices', 'write')] } },
      schema: {
        operationId: 'adoptLorawanDevice',
        tags,
        summary: 'Adopt an unmatched DevEUI as a new device (serial eui:<hex>); the device key is shown once',
        params: EuiParams,
        body: AdoptBody,
        response: {
          201: described(
            Type.Ref('Device'),
            'The new device, with its device key in `device_key` (shown only here).',
          ),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found', ...BODY_ERRORS),
        },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(
          await adoptUnmatched(
            db,
            apiCaller(request),
            request.params.id,
            request.params.eui,
            request.body ?? {},
          ),
        ),
  );

  app.get(
    '/v1/integrations/:id/devices',
    {
      schema: {
        operationId: 'listIntegrationDevices',
        tags,
        summary: 'The devices an integration carries, with their settings, last uplink and its preview',
        params: IdParams,
        response: {
          200: described(
            Type.Object({
              data: Type.Array(Type.Object({ ...DeviceLinkSchema.properties, device_name: Type.String() })),
            }),
            'In the order they were linked, at most 1,000.',
          ),
          ...errorResponses('unauthorized', 'not_found'),
        },
      },
    },
    async (request) => listIntegrationDevices(db, apiCaller(request), request.params.id),
  );

  app.get(
    '/v1/devices/:id/lorawan',
    {
      schema: {
        operationId: 'getDeviceLorawan',
        tags,
        summary: "A device's LoRaWAN settings, what applies, its last uplink and that uplink as stored",
        params: IdParams,
        response: {
          200: described(DeviceLinkSchema, 'The settings and the preview.'),
          ...errorResponses('unauthorized', 'not_found'),
        },
      },
    },
    async (request) => getDeviceLink(db, apiCaller(request), request.params.id),
  );

  app.put(
    '/v1/devices/:id/lorawan',
    {
      schema: {
        operationId: 'putDeviceLorawan',
        tags,
        summary: 'Link a device to an integration with its preset, mapping and encoder',
        params: IdParams,
        body: PutDeviceLinkBody,
        response: {
          200: described(DeviceLinkSchema, 'The settings as saved, with the preview.'),
          ...errorResponses(
            'invalid_request',
            'unauthorized',
            'not_found',
            { conflict: 'Another device of the integration has this DevEUI.' },
            ...BODY_ERRORS,
          ),
        },
      },
    },
    async (request) => putDeviceLink(db, apiCaller(request), request.params.id, request.body),
  );

  app.delete(
    '/v1/devices/:id/lorawan',
    {
      schema: {
        operationId: 'deleteDeviceLorawan',
        tags,
        summary: 'Unlink a device from its integration, forgetting its mapping and encoder',
        params: IdParams,
        response: {
          200: described(DeletedSchema, 'The device is unlinked.'),
          ...errorResponses('unauthorized', 'not_found'),
        },
      },
    },
    async (request) => deleteDeviceLink(db, apiCaller(request), request.params.id),
  );

  app.post(
    '/v1/devices/:id/lorawan/preview',
    {
      // Changes nothing: a read of the integration settings.
      config: { access: { needs: [permission('integrations', 'read')] } },
      schema: {
        operationId: 'previewDeviceLorawan',
        tags,
        summary: "Try a mapping on the device's last uplink without saving it",
        params: IdParams,
        body: PreviewBody,
        response: {
          200: described(DeviceLinkSchema, 'The settings, with the preview of the mapping given.'),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found', ...BODY_ERRORS),
        },
      },
    },
    async (request) => previewDeviceLink(db, apiCaller(request), request.params.id, request.body.mapping),
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

  app.post(
    '/v1/integrations/:id/uplink',
    {
      // The network server's call: its own secret (Bearer), not an API key.
      config: { auth: 'none' },
      schema: {
        operationId: 'receiveLorawanUplink',
        tags,
        summary:
          "The uplink URL: ChirpStack's HTTP integration (?event=…) or The Things Stack's webhook, unchanged",
        description:
          'Authorization: Bearer <the integration secret>. ChirpStack v4 (JSON): ?event=up|join|ack|txack|status|log. The Things Stack v3 webhook: uplink, join and downlink messages at this one URL. An uplink is stored as one device report; a repeated one (same deduplicationId or correlation id) stores nothing.',
        params: IdParams,
        querystring: UplinkQuery,
        body: Type.Record(Type.String(), Type.Unknown()),
        security: [{ integrationSecret: [] }],
        response: {
          200: described(
            UplinkResult,
            'Received: stored, a duplicate, unmatched (kept for adoption), a downlink event, or ignored.',
          ),
          ...errorResponses(
            { invalid_request: "The body is not the server's JSON as documented; `param` names the member." },
            { unauthorized: 'The secret is missing or wrong (nothing is stored).' },
            ...BODY_ERRORS,
          ),
        },
      },
    },
    async (request) =>
      receiveUplink(
        db,
        {
          integrationId: request.params.id,
          secret: bearerToken(request.headers.authorization),
          event: request.query.event,
          body: request.body,
        },
        Date.now(),
        ingestOptions,
      ),
  );
};
