import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../../db/schema.ts';
import { apiCaller } from '../../http/auth.ts';
import { parsePage } from '../../http/pagination.ts';
import { DeletedSchema, errorResponses, FarmParams, IdParams, ListOf } from '../../http/schemas.ts';
import { CreatePaddockBody, PaddockListQuery, UpdatePaddockBody } from './schemas.ts';
import { createPaddock, deletePaddock, getPaddock, listPaddocks, updatePaddock } from './service.ts';

export const paddockRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  const tags = ['Paddocks'];
  const PaddockRef = Type.Ref('Paddock');

  app.get(
    '/v1/farms/:farm/paddocks',
    {
      schema: {
        tags,
        summary: "List a farm's paddocks, newest first",
        params: FarmParams,
        querystring: PaddockListQuery,
        response: { 200: ListOf(PaddockRef), ...errorResponses },
      },
    },
    async (request) => listPaddocks(db, apiCaller(request), request.params.farm, parsePage(request.query)),
  );

  app.post(
    '/v1/farms/:farm/paddocks',
    {
      schema: {
        tags,
        summary: 'Add a paddock',
        params: FarmParams,
        body: CreatePaddockBody,
        response: { 201: PaddockRef, ...errorResponses },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await createPaddock(db, apiCaller(request), request.params.farm, request.body)),
  );

  app.get(
    '/v1/paddocks/:id',
    {
      schema: {
        tags,
        summary: 'Get a paddock',
        params: IdParams,
        response: { 200: PaddockRef, ...errorResponses },
      },
    },
    async (request) => getPaddock(db, apiCaller(request), request.params.id),
  );

  app.patch(
    '/v1/paddocks/:id',
    {
      schema: {
        tags,
        summary: 'Update a paddock',
        params: IdParams,
        body: UpdatePaddockBody,
        response: { 200: PaddockRef, ...errorResponses },
      },
    },
    async (request) => updatePaddock(db, apiCaller(request), request.params.id, request.body),
  );

  app.delete(
    '/v1/paddocks/:id',
    {
      schema: {
        tags,
        summary:
          'Delete a paddock (animals and groups in it stay, with paddock_id cleared and a move event each)',
        params: IdParams,
        response: { 200: DeletedSchema, ...errorResponses },
      },
    },
    async (request) => deletePaddock(db, apiCaller(request), request.params.id),
  );
};
