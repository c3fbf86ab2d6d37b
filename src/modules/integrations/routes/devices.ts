/**
 * The devices of an integration: those it carries (with their settings, last uplink and its preview), the
 * DevEUIs it heard that match none (and adopting one as a device), and a device's own LoRaWAN settings.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../../../db/schema.ts';
import { permission } from '../../../domain/permissions.ts';
import { apiCaller } from '../../../http/auth.ts';
import { BODY_ERRORS, DeletedSchema, described, errorResponses, IdParams } from '../../../http/schemas.ts';
import {
  deleteDeviceLink,
  getDeviceLink,
  listIntegrationDevices,
  previewDeviceLink,
  putDeviceLink,
} from '../links.ts';
import {
  AdoptBody,
  DeviceLinkSchema,
  EuiParams,
  PreviewBody,
  PutDeviceLinkBody,
  UnmatchedSchema,
} from '../schemas.ts';
import { adoptUnmatched, listUnmatched } from '../service.ts';

type App = Parameters<FastifyPluginAsyncTypebox>[0];

const tags = ['LoRaWAN integrations'];

// Over 80 lines by design: one declaration per route (its schema, then a one-line handler), each read alone.
export function deviceRoutes(app: App, db: Db): void {
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
      config: {
        access: { needs: [permission('integrations', 'write'), permission('devices', 'write')] },
        shownOnce: true,
      },
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
}
