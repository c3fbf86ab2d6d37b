import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Db } from '../../db/schema.ts';
import { apiCaller } from '../../http/auth.ts';
import { errorResponses, IdParams } from '../../http/schemas.ts';
import { ReadingListSchema, ReadingsQuery } from './schemas.ts';
import { getReadings } from './service.ts';

export const readingRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  app.get(
    '/v1/devices/:id/readings',
    {
      schema: {
        tags: ['Devices'],
        summary: "A device's readings, newest first; with interval and agg, one aggregated point per bucket",
        params: IdParams,
        querystring: ReadingsQuery,
        response: { 200: ReadingListSchema, ...errorResponses },
      },
    },
    async (request) => getReadings(db, apiCaller(request), request.params.id, request.query),
  );
};
