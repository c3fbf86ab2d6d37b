import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Db } from '../../db/schema.ts';
import { apiCaller } from '../../http/auth.ts';
import { described, errorResponses, FarmParams, IdParams } from '../../http/schemas.ts';
import { dueDates } from './calendar.ts';
import { getPedigree, matingCheck } from './lineage.ts';
import {
  DueDatesQuery,
  DueDatesSchema,
  MatingCheckQuery,
  MatingCheckSchema,
  PedigreeQuery,
  PedigreeSchema,
} from './schemas.ts';

export const breedingRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  const tags = ['Herd book'];

  app.get(
    '/v1/animals/:id/pedigree',
    {
      schema: {
        operationId: 'getPedigree',
        tags,
        summary: "An animal's ancestors and descendants to n generations, and its inbreeding coefficient",
        params: IdParams,
        querystring: PedigreeQuery,
        response: {
          200: described(PedigreeSchema, 'The pedigree; inbreeding is a fraction (0.25 for 25 %).'),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found'),
        },
      },
    },
    async (request) => getPedigree(db, apiCaller(request), request.params.id, request.query),
  );

  app.get(
    '/v1/animals/:id/mating-check',
    {
      schema: {
        operationId: 'checkMating',
        tags,
        summary:
          "A female and a proposed sire: their offspring's inbreeding coefficient, with a warning at 6.25 % or more",
        params: IdParams,
        querystring: MatingCheckQuery,
        response: {
          200: described(MatingCheckSchema, 'The offspring coefficient (a fraction) and a warning or null.'),
          ...errorResponses(
            {
              invalid_request:
                'The animal is not a female, or sire_id is not a possible sire for her; `param` names it.',
            },
            'unauthorized',
            'not_found',
          ),
        },
      },
    },
    async (request) => matingCheck(db, apiCaller(request), request.params.id, request.query.sire_id),
  );

  app.get(
    '/v1/farms/:farm/due-dates',
    {
      schema: {
        operationId: 'listDueDates',
        tags,
        summary:
          'The calving (lambing, kidding…) calendar: bred and pregnant females by due date, and those overdue',
        params: FarmParams,
        querystring: DueDatesQuery,
        response: {
          200: described(DueDatesSchema, 'Females due, soonest first.'),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found'),
        },
      },
    },
    async (request) => dueDates(db, apiCaller(request), request.params.farm, request.query),
  );
};
