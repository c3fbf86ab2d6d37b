import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../../db/schema.ts';
import { apiCaller } from '../../http/auth.ts';
import { described, errorResponses, FarmParams, IdParams } from '../../http/schemas.ts';
import { HouseListSchema } from './schemas.ts';
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
        response: {
          200: described(HouseListSchema, 'Every house on the farm.'),
          ...errorResponses('unauthorized', 'not_found'),
        },
      },
    },
    async (request) => ({ data: await getHouses(db, apiCaller(request), request.params.farm) }),
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
