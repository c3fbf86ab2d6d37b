import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { parsePage } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import { apiCaller } from '../../http/auth.ts';
import { described, errorResponses, FarmParams } from '../../http/schemas.ts';
import { recordRoutes } from '../records/routes.ts';
import { importPaddocks } from './import.ts';
import {
  CreatePaddockBody,
  ImportedPaddockList,
  PaddockImportBody,
  PaddockListQuery,
  PaddockPreviewList,
  UpdatePaddockBody,
} from './schemas.ts';
import {
  createPaddock,
  deletePaddock,
  getPaddock,
  listPaddocks,
  type OutlinesChangedHook,
  updatePaddock,
} from './service.ts';

export const paddockRoutes: FastifyPluginAsyncTypebox<{
  db: Db;
  outlinesChanged: OutlinesChangedHook;
}> = async (app, { db, outlinesChanged }) => {
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
      create: (db, scope, farmId, input) => createPaddock(db, scope, farmId, input, outlinesChanged),
      get: getPaddock,
      update: (db, scope, id, patch) => updatePaddock(db, scope, id, patch, outlinesChanged),
      delete: (db, scope, id) => deletePaddock(db, scope, id, outlinesChanged),
    },
  });

  app.post(
    '/v1/farms/:farm/paddocks/import',
    {
      schema: {
        operationId: 'importPaddocks',
        tags,
        summary: 'Import paddocks from GeoJSON, KML or GPX (a dry run previews)',
        description:
          'Each polygon of the file (and each closed line: a boundary walked or driven round with a GPS) becomes a paddock named after its feature, with its acres computed. dry_run answers the preview and stores nothing. Otherwise all are created in one transaction (201), or none: a refused outline is a 400 naming the feature. Pins and open lines are left out (docs/map.md).',
        params: FarmParams,
        body: PaddockImportBody,
        response: {
          200: described(
            PaddockPreviewList,
            'The preview (dry_run): every feature and what would become of it.',
          ),
          201: described(ImportedPaddockList, 'The paddocks created, in the order of the file.'),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found'),
        },
      },
    },
    async (request, reply) => {
      const caller = apiCaller(request);
      const result = await importPaddocks(db, caller, request.params.farm, request.body, outlinesChanged);
      return reply.code(result.dry_run ? 200 : 201).send(result);
    },
  );
};
