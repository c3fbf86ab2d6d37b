import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Db } from '../../db/schema.ts';
import { apiCaller } from '../../http/auth.ts';
import { described, errorResponses, IdParams } from '../../http/schemas.ts';
import { ReadingListSchema, ReadingsQuery } from './schemas.ts';
import { getReadings } from './service.ts';

export const readingRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  app.get(
    '/v1/devices/:id/readings',
    {
      schema: {
        operationId: 'listDeviceReadings',
        tags: ['Devices'],
        summary: "A device's readings, newest first; with interval and agg, one aggregated point per bucket",
        params: IdParams,
        querystring: ReadingsQuery,
        response: {
          200: described(ReadingListSchema, 'Readings, newest first, or one point per bucket.'),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found'),
        },
      },
    },
    async (request) => getReadings(db, apiCaller(request), request.params.id, request.query),
  );
};
