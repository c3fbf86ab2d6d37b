import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { parsePage } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import { apiCaller } from '../../http/auth.ts';
import { BODY_ERRORS, described, errorResponses, FarmParams, IdParams, ListOf } from '../../http/schemas.ts';
import { CreateMovementBody, MovementListQuery } from './schemas.ts';
import { createMovement, getMovement, listMovements } from './service.ts';

export const movementRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  const tags = ['Herd book'];
  const Movement = Type.Ref('Movement');

  app.post(
    '/v1/farms/:farm/movements',
    {
      schema: {
        operationId: 'createMovement',
        tags,
        summary:
          'Record animals moving on or off the holding: a move off marks them gone and is checked against their meat withdrawal (emits movement.created)',
        params: FarmParams,
        body: CreateMovementBody,
        response: {
          201: described(Movement, 'The movement.'),
          ...errorResponses(
            {
              invalid_request:
                'A bad member, an animal not on this farm, or both (or neither) of animal_ids and head_count; `param` names it.',
              withdrawal_active:
                'An animal moving off is inside its meat withdrawal: each one is named, with its medicine, batch and end. Send override_reason to record it anyway.',
            },
            'unauthorized',
            'not_found',
            ...BODY_ERRORS,
          ),
        },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await createMovement(db, apiCaller(request), request.params.farm, request.body)),
  );

  app.get(
    '/v1/farms/:farm/movements',
    {
      schema: {
        operationId: 'listMovements',
        tags,
        summary: "List a farm's movements (the holding register), newest first",
        params: FarmParams,
        querystring: MovementListQuery,
        response: {
          200: described(ListOf(Movement), 'A page of movements, newest first.'),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found'),
        },
      },
    },
    async (request) => {
      const { limit, before, since, until } = request.query;
      return listMovements(
        db,
        apiCaller(request),
        request.params.farm,
        { since, until },
        parsePage({ limit, before }),
      );
    },
  );

  app.get(
    '/v1/movements/:id',
    {
      schema: {
        operationId: 'getMovement',
        tags,
        summary: 'Get a movement',
        params: IdParams,
        response: {
          200: described(Movement, 'The movement.'),
          ...errorResponses('unauthorized', 'not_found'),
        },
      },
    },
    async (request) => getMovement(db, apiCaller(request), request.params.id),
  );
};
