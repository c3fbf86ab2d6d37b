import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { parsePage } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import { apiCaller } from '../../http/auth.ts';
import {
  BODY_ERRORS,
  DeletedSchema,
  described,
  errorResponses,
  FarmParams,
  IdParams,
  ListOf,
} from '../../http/schemas.ts';
import { CreateDeviceBody, DeviceListQuery, UpdateDeviceBody } from './schemas.ts';
import {
  createDevice,
  deleteDevice,
  getDevice,
  listDevices,
  rotateDeviceKey,
  updateDevice,
} from './service.ts';

// Over 80 lines by design: one declaration per route (its schema, then a one-line handler), each read alone.
export const deviceRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  const tags = ['Devices'];
  const DeviceRef = Type.Ref('Device');

  app.get(
    '/v1/farms/:farm/devices',
    {
      config: { readCache: true },
      schema: {
        operationId: 'listDevices',
        tags,
        summary: "List a farm's devices, newest first",
        params: FarmParams,
        querystring: DeviceListQuery,
        response: {
          200: described(ListOf(DeviceRef), 'A page of devices, newest first.'),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found'),
        },
      },
    },
    async (request) => {
      const { limit, before, ...filters } = request.query;
      return listDevices(db, apiCaller(request), request.params.farm, filters, parsePage({ limit, before }));
    },
  );

  app.post(
    '/v1/farms/:farm/devices',
    {
      schema: {
        operationId: 'createDevice',
        tags,
        summary: 'Add a device; the response carries its device key, shown only this once',
        params: FarmParams,
        body: CreateDeviceBody,
        response: {
          201: described(DeviceRef, 'The new device, with its device key in `device_key` (shown only here).'),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found', ...BODY_ERRORS),
        },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await createDevice(db, apiCaller(request), request.params.farm, request.body)),
  );

  app.get(
    '/v1/devices/:id',
    {
      config: { readCache: true },
      schema: {
        operationId: 'getDevice',
        tags,
        summary: 'Get a device',
        params: IdParams,
        response: {
          200: described(DeviceRef, 'The device.'),
          ...errorResponses('unauthorized', 'not_found'),
        },
      },
    },
    async (request) => getDevice(db, apiCaller(request), request.params.id),
  );

  app.patch(
    '/v1/devices/:id',
    {
      schema: {
        operationId: 'updateDevice',
        tags,
        summary: 'Update a device (any fields; null clears an optional one)',
        params: IdParams,
        body: UpdateDeviceBody,
        response: {
          200: described(DeviceRef, 'The device as updated.'),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found', ...BODY_ERRORS),
        },
      },
    },
    async (request) => updateDevice(db, apiCaller(request), request.params.id, request.body ?? {}),
  );

  app.delete(
    '/v1/devices/:id',
    {
      schema: {
        operationId: 'deleteDevice',
        tags,
        summary: 'Delete a device with its readings and commands; its key stops working',
        params: IdParams,
        response: {
          200: described(DeletedSchema, 'The device is deleted.'),
          ...errorResponses('unauthorized', 'not_found'),
        },
      },
    },
    async (request) => deleteDevice(db, apiCaller(request), request.params.id),
  );

  app.post(
    '/v1/devices/:id/key',
    {
      schema: {
        operationId: 'rotateDeviceKey',
        tags,
        summary: 'Rotate the device key: the new key is shown once and the old one stops working at once',
        params: IdParams,
        response: {
          200: described(Type.Ref('DeviceKey'), 'The new device key (shown only here).'),
          ...errorResponses('unauthorized', 'not_found'),
        },
      },
    },
    async (request) => rotateDeviceKey(db, apiCaller(request), request.params.id),
  );
};
