import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { parsePage } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import { apiCaller } from '../../http/auth.ts';
import { described, errorResponses, IdParams, ListOf } from '../../http/schemas.ts';
import { GrazingHistoryQuery } from './schemas.ts';
import { grazingHistory } from './service.ts';

/** A paddock's grazing history; registered with the paddocks' access (it is part of a paddock). */
export const grazingRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  app.get(
    '/v1/paddocks/:id/grazing',
    {
      config: { readCache: true },
      schema: {
        operationId: 'listPaddockGrazing',
        tags: ['Paddocks'],
        summary: "A paddock's grazing history: who was in it from when to when, newest first",
        params: IdParams,
        querystring: GrazingHistoryQuery,
        response: {
          200: described(
            ListOf(Type.Ref('GrazingStay')),
            'A page of stays, newest `from` first; `until` is null while the subject is still there.',
          ),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found'),
        },
      },
    },
    async (request) => grazingHistory(db, apiCaller(request), request.params.id, parsePage(request.query)),
  );
};
