import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Db } from '../../db/schema.ts';
import { apiCaller } from '../../http/auth.ts';
import { described, errorResponses, IdParams } from '../../http/schemas.ts';
import { TrackQuery, TrackSchema } from './schemas.ts';
import { getTrack } from './service.ts';

export const positionRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  app.get(
    '/v1/devices/:id/track',
    {
      schema: {
        operationId: 'getDeviceTrack',
        tags: ['Devices'],
        summary: "A device's reported positions, newest first: a range thinned to limit points, or pages",
        description:
          'Every lat/lon the device reported (HTTP, MQTT, LoRaWAN), at the time its report was made (its `at`, never after it arrived; else when it arrived). With since, the whole range [since, until] in one answer, thinned to limit points (the first, the last, and evenly spaced between) when it holds more; without it (or with thin=false), pages of limit positions like readings: next_before continues.',
        params: IdParams,
        querystring: TrackQuery,
        response: {
          200: described(TrackSchema, 'Positions, newest first.'),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found'),
        },
      },
    },
    async (request) => getTrack(db, apiCaller(request), request.params.id, request.query),
  );
};
