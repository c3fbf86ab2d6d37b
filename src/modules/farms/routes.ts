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
  ListOf,
  PageQuery,
} from '../../http/schemas.ts';
import { CreateFarmBody, UpdateFarmBody } from './schemas.ts';
import { createFarm, deleteFarm, type FarmChangeHooks, getFarm, listFarms, updateFarm } from './service.ts';

// Over 80 lines by design: one declaration per route (its schema, then a one-line handler), each read alone.
export const farmRoutes: FastifyPluginAsyncTypebox<{ db: Db; hooks: FarmChangeHooks }> = async (
  app,
  { db, hooks },
) => {
  const tags = ['Farms'];
  const FarmRef = Type.Ref('Farm');

  app.get(
    '/v1/farms',
    {
      schema: {
        operationId: 'listFarms',
        tags,
        summary: 'List the farms this key can see (its account, its mode)',
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: {
          200: described(ListOf(FarmRef), 'A page of farms, newest first.'),
          ...errorResponses('invalid_request', 'unauthorized'),
        },
      },
    },
    async (request) => listFarms(db, apiCaller(request), parsePage(request.query)),
  );

  app.post(
    '/v1/farms',
    {
      schema: {
        operationId: 'createFarm',
        tags,
        summary: "Create a farm in the key's mode",
        body: CreateFarmBody,
        response: {
          201: described(FarmRef, 'The new farm.'),
          ...errorResponses('invalid_request', 'unauthorized', ...BODY_ERRORS),
        },
      },
    },
    async (request, reply) => reply.status(201).send(await createFarm(db, apiCaller(request), request.body)),
  );

  app.get(
    '/v1/farms/:farm',
    {
      schema: {
        operationId: 'getFarm',
        tags,
        summary: 'Get a farm',
        params: FarmParams,
        response: {
          200: described(FarmRef, 'The farm.'),
          ...errorResponses('unauthorized', 'not_found'),
        },
      },
    },
    async (request) => getFarm(db, apiCaller(request), request.params.farm),
  );

  app.patch(
    '/v1/farms/:farm',
    {
      schema: {
        operationId: 'updateFarm',
        tags,
        summary: 'Update a farm (any fields, including settings.rules)',
        params: FarmParams,
        body: UpdateFarmBody,
        response: {
          200: described(FarmRef, 'The farm as updated.'),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found', ...BODY_ERRORS),
        },
      },
    },
    async (request) => updateFarm(db, apiCaller(request), request.params.farm, request.body, hooks),
  );

  app.delete(
    '/v1/farms/:farm',
    {
      schema: {
        operationId: 'deleteFarm',
        tags,
        summary: 'Delete a farm and everything in it',
        params: FarmParams,
        response: {
          200: described(DeletedSchema, 'The farm and everything in it are deleted.'),
          ...errorResponses('unauthorized', 'not_found', {
            conflict: 'The sample farm cannot be deleted; reset it instead.',
          }),
        },
      },
    },
    async (request) => deleteFarm(db, apiCaller(request), request.params.farm),
  );
};
