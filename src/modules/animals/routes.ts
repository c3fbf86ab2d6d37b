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
import { AnimalListQuery, CreateAnimalBody, UpdateAnimalBody } from './schemas.ts';
import { createAnimal, deleteAnimal, getAnimal, listAnimals, updateAnimal } from './service.ts';

// Over 80 lines by design: one declaration per route (its schema, then a one-line handler), each read alone.
export const animalRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  const tags = ['Animals'];
  const AnimalRef = Type.Ref('Animal');

  app.get(
    '/v1/farms/:farm/animals',
    {
      config: { readCache: true },
      schema: {
        operationId: 'listAnimals',
        tags,
        summary: "List a farm's animals, newest first, with filters",
        params: FarmParams,
        querystring: AnimalListQuery,
        response: {
          200: described(ListOf(AnimalRef), 'A page of animals, newest first.'),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found'),
        },
      },
    },
    async (request) => {
      const { limit, before, ...filters } = request.query;
      return listAnimals(db, apiCaller(request), request.params.farm, filters, parsePage({ limit, before }));
    },
  );

  app.post(
    '/v1/farms/:farm/animals',
    {
      schema: {
        operationId: 'createAnimal',
        tags,
        summary: 'Add an animal (emits animal.created)',
        params: FarmParams,
        body: CreateAnimalBody,
        response: {
          201: described(AnimalRef, 'The new animal.'),
          ...errorResponses(
            'invalid_request',
            'unauthorized',
            {
              not_found: 'No such farm visible to the key.',
              conflict: 'Another animal already has this eid.',
            },
            ...BODY_ERRORS,
          ),
        },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await createAnimal(db, apiCaller(request), request.params.farm, request.body)),
  );

  app.get(
    '/v1/animals/:id',
    {
      config: { readCache: true },
      schema: {
        operationId: 'getAnimal',
        tags,
        summary: 'Get an animal',
        params: IdParams,
        response: {
          200: described(AnimalRef, 'The animal.'),
          ...errorResponses('unauthorized', 'not_found'),
        },
      },
    },
    async (request) => getAnimal(db, apiCaller(request), request.params.id),
  );

  app.patch(
    '/v1/animals/:id',
    {
      schema: {
        operationId: 'updateAnimal',
        tags,
        summary: 'Update an animal (a paddock or group change logs a move event)',
        params: IdParams,
        body: UpdateAnimalBody,
        response: {
          200: described(AnimalRef, 'The animal as updated.'),
          ...errorResponses(
            'invalid_request',
            'unauthorized',
            {
              not_found: 'No such animal visible to the key.',
              conflict: 'Another animal already has this eid.',
            },
            ...BODY_ERRORS,
          ),
        },
      },
    },
    async (request) => updateAnimal(db, apiCaller(request), request.params.id, request.body),
  );

  app.delete(
    '/v1/animals/:id',
    {
      schema: {
        operationId: 'deleteAnimal',
        tags,
        summary: 'Delete an animal (its farm events stay in the log)',
        params: IdParams,
        response: {
          200: described(DeletedSchema, 'The animal is deleted.'),
          ...errorResponses('unauthorized', 'not_found'),
        },
      },
    },
    async (request) => deleteAnimal(db, apiCaller(request), request.params.id),
  );
};
