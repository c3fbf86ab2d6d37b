import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { parsePage } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import { recordRoutes } from '../records/routes.ts';
import { CreatePaddockBody, PaddockListQuery, UpdatePaddockBody } from './schemas.ts';
import { createPaddock, deletePaddock, getPaddock, listPaddocks, updatePaddock } from './service.ts';

export const paddockRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  const tags = ['Paddocks'];

  recordRoutes(app, db, {
    path: 'paddocks',
    one: 'Paddock',
    many: 'Paddocks',
    tags,
    noun: 'paddock',
    nouns: 'paddocks',
    summaries: {
      list: "List a farm's paddocks, newest first",
      create: 'Add a paddock',
      get: 'Get a paddock',
      update: 'Update a paddock',
      delete:
        'Delete a paddock (animals and groups in it stay, with paddock_id cleared and a move event each)',
    },
    // rest_days counts days on the clock: a kept answer must not outlive a day's turn by more than a minute.
    readCache: { maxAgeMs: 60_000 },
    schemas: { query: PaddockListQuery, create: CreatePaddockBody, update: UpdatePaddockBody },
    service: {
      list: (db, scope, farmId, query) => listPaddocks(db, scope, farmId, parsePage(query)),
      create: createPaddock,
      get: getPaddock,
      update: updatePaddock,
      delete: deletePaddock,
    },
  });
};
