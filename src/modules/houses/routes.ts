import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { parsePage } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import { apiCaller } from '../../http/auth.ts';
import { described, errorResponses, FarmParams, IdParams } from '../../http/schemas.ts';
import { HouseListQuery, HouseListSchema } from './schemas.ts';
import { getHouse, getHouses } from './service.ts';

export const houseRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  const tags = ['Houses'];
  app.get(
    '/v1/farms/:farm/houses',
    {
      config: { readCache: true },
      schema: {
        operationId: 'listHouses',
        tags,
        summary: 'Every house on the farm with its state, latest readings and recent commands',
        params: FarmParams,
        querystring: HouseListQuery,
        response: {
          200: described(
            HouseListSchema,
            "The farm's houses, oldest first: every one when they fit in one page (`limit`, default 50, and 2 MiB of stored text counting each house's recent commands); otherwise follow `has_more`.",
          ),
          ...errorResponses('unauthorized', 'not_found', 'invalid_request'),
        },
      },
    },
    async (request) => {
      const { limit, before } = request.query;
      return getHouses(db, apiCaller(request), request.params.farm, parsePage({ limit, before }));
    },
  );
  app.get(
    '/v1/houses/:id',
    {
      config: { readCache: true },
      schema: {
        operationId: 'getHouse',
        tags,
        summary: 'One house (a device of type house) with its state, latest readings and recent commands',
        params: IdParams,
        response: {
          200: described(Type.Ref('House'), 'The house.'),
          ...errorResponses('unauthorized', {
            not_found:
              'No house with this id visible to the key (a device of another type is not found too).',
          }),
        },
      },
    },
    async (request) => getHouse(db, apiCaller(request), request.params.id),
  );
};
