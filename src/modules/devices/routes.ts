import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { parsePage } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import { apiCaller } from '../../http/auth.ts';
import { described, ERROR_MEANINGS, errorResponses, IdParams } from '../../http/schemas.ts';
import { recordRoutes } from '../records/routes.ts';
import { CreateDeviceBody, DeviceListQuery, UpdateDeviceBody } from './schemas.ts';
import {
  createDevice,
  type DeviceKeyHooks,
  deleteDevice,
  getDevice,
  listDevices,
  rotateDeviceKey,
  updateDevice,
} from './service.ts';

/** With FARMSTEAD_MQTT_BROKER_AUTH=dynsec a key is issued only once the broker has it. */
const BROKER_UNAVAILABLE =
  'The external MQTT broker (FARMSTEAD_MQTT_BROKER_AUTH=dynsec) could not be given the key: nothing was changed; try again once it is back.';

export const deviceRoutes: FastifyPluginAsyncTypebox<{ db: Db; hooks: DeviceKeyHooks }> = async (
  app,
  { db, hooks },
) => {
  const tags = ['Devices'];

  recordRoutes(app, db, {
    path: 'devices',
    one: 'Device',
    many: 'Devices',
    tags,
    noun: 'device',
    nouns: 'devices',
    summaries: {
      list: "List a farm's devices, newest first",
      create: 'Add a device; the response carries its device key, shown only this once',
      get: 'Get a device',
      update: 'Update a device (any fields; null clears an optional one)',
      delete: 'Delete a device with its readings and commands; its key stops working',
    },
    described: { create: 'The new device, with its device key in `device_key` (shown only here).' },
    shownOnce: true,
    errors: { create: { not_found: ERROR_MEANINGS.not_found, unavailable: BROKER_UNAVAILABLE } },
    schemas: { query: DeviceListQuery, create: CreateDeviceBody, update: UpdateDeviceBody },
    service: {
      list: (db, scope, farmId, { limit, before, ...filters }) =>
        listDevices(db, scope, farmId, filters, parsePage({ limit, before })),
      create: (db, scope, farmId, input) => createDevice(db, scope, farmId, input, { hooks }),
      get: getDevice,
      update: updateDevice,
      delete: (db, scope, id) => deleteDevice(db, scope, id, Date.now(), hooks),
    },
  });

  app.post(
    '/v1/devices/:id/key',
    {
      config: { shownOnce: true },
      schema: {
        operationId: 'rotateDeviceKey',
        tags,
        summary: 'Rotate the device key: the new key is shown once and the old one stops working at once',
        params: IdParams,
        response: {
          200: described(Type.Ref('DeviceKey'), 'The new device key (shown only here).'),
          ...errorResponses('unauthorized', 'not_found', { unavailable: BROKER_UNAVAILABLE }),
        },
      },
    },
    async (request) => rotateDeviceKey(db, apiCaller(request), request.params.id, hooks),
  );
};
