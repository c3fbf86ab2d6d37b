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
import { CreatePaddockBody, PaddockListQuery, UpdatePaddockBody } from './schemas.ts';
import { createPaddock, deletePaddock, getPaddock, listPaddocks, updatePaddock } from './service.ts';

// Over 80 lines by design: one declaration per route (its schema, then a one-line handler), each read alone.
export const paddockRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  const tags = ['Paddocks'];
  const PaddockRef = Type.Ref('Paddock');

  app.get(
    '/v1/farms/:farm/paddocks',
    {
      config: { readCache: true },
      schema: {
        operationId: 'listPaddocks',
        tags,
        summary: "List a farm's paddocks, newest first",
        params: FarmParams,
        querystring: PaddockListQuery,
        response: {
          200: described(ListOf(PaddockRef), 'A page of paddocks, newest first.'),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found'),
        },
      },
    },
    async (request) => listPaddocks(db, apiCaller(request), request.params.farm, parsePage(request.query)),
  );

  app.post(
    '/v1/farms/:farm/paddocks',
    {
      schema: {
        operationId: 'createPaddock',
        tags,
        summary: 'Add a paddock',
        params: FarmParams,
        body: CreatePaddockBody,
        response: {
          201: described(PaddockRef, 'The new paddock.'),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found', ...BODY_ERRORS),
        },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await createPaddock(db, apiCaller(request), request.params.farm, request.body)),
  );

  app.get(
    '/v1/paddocks/:id',
    {
      config: { readCache: true },
      schema: {
        operationId: 'getPaddock',
        tags,
        summary: 'Get a paddock',
        params: IdParams,
        response: {
          200: described(PaddockRef, 'The paddock.'),
          ...errorResponses('unauthorized', 'not_found'),
        },
      },
    },
    async (request) => getPaddock(db, apiCaller(request), request.params.id),
  );

  app.patch(
    '/v1/paddocks/:id',
    {
      schema: {
        operationId: 'updatePaddock',
        tags,
        summary: 'Update a paddock',
        params: IdParams,
        body: UpdatePaddockBody,
        response: {
          200: described(PaddockRef, 'The paddock as updated.'),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found', ...BODY_ERRORS),
        },
      },
    },
    async (request) => updatePaddock(db, apiCaller(request), request.params.id, request.body),
  );

  app.delete(
    '/v1/paddocks/:id',
    {
      schema: {
        operationId: 'deletePaddock',
        tags,
        summary:
          'Delete a paddock (animals and groups in it stay, with paddock_id cleared and a move event each)',
        params: IdParams,
        response: {
          200: described(DeletedSchema, 'The paddock is deleted.'),
          ...errorResponses('unauthorized', 'not_found'),
        },
      },
    },
    async (request) => deletePaddock(db, apiCaller(request), request.params.id),
  );
};
