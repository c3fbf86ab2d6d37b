import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { parsePage } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import { apiCaller } from '../../http/auth.ts';
import { described, errorResponses, FarmParams } from '../../http/schemas.ts';
import { recordRoutes } from '../records/routes.ts';
import { AnimalChangesQuery, AnimalListQuery, CreateAnimalBody, UpdateAnimalBody } from './schemas.ts';
import {
  animalChanges,
  createAnimal,
  deleteAnimal,
  getAnimal,
  listAnimals,
  updateAnimal,
} from './service.ts';

export const animalRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  const tags = ['Animals'];
  const TAKEN_EID = 'Another animal already has this eid.';

  recordRoutes(app, db, {
    path: 'animals',
    one: 'Animal',
    many: 'Animals',
    tags,
    noun: 'animal',
    nouns: 'animals',
    summaries: {
      list: "List a farm's animals, newest first, with filters",
      create: 'Add an animal (emits animal.created)',
      get: 'Get an animal',
      update:
        'Update an animal (a paddock or group change logs a move event; sold or slaughtered inside the meat withdrawal is 409 withdrawal_active without override_reason)',
      delete: 'Delete an animal (its farm events stay in the log)',
    },
    errors: {
      create: { not_found: 'No such farm visible to the key.', conflict: TAKEN_EID },
      update: {
        not_found: 'No such animal visible to the key.',
        conflict: TAKEN_EID,
        withdrawal_active:
          'The animal is inside its meat withdrawal; send override_reason to record it anyway.',
      },
    },
    schemas: { query: AnimalListQuery, create: CreateAnimalBody, update: UpdateAnimalBody },
    // An animal's withdrawal ends with the clock, not a commit: a kept answer is at most a minute old.
    readCache: { maxAgeMs: 60_000 },
    service: {
      list: (db, scope, farmId, { limit, before, ...filters }) =>
        listAnimals(db, scope, farmId, filters, parsePage({ limit, before })),
      create: createAnimal,
      get: getAnimal,
      update: updateAnimal,
      delete: deleteAnimal,
    },
  });

  app.get(
    '/v1/farms/:farm/animals/changes',
    {
      schema: {
        operationId: 'listAnimalChanges',
        tags,
        summary:
          "What changed among a farm's animals since a point, and which were deleted (the field app's incremental refresh)",
        params: FarmParams,
        querystring: AnimalChangesQuery,
        response: {
          200: described(Type.Ref('AnimalChanges'), 'Animals changed since `since`, a page at a time.'),
          ...errorResponses('unauthorized', 'not_found', 'invalid_request'),
        },
      },
    },
    async (request) => animalChanges(db, apiCaller(request), request.params.farm, request.query),
  );
};
