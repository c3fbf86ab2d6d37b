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
    schemas: { query: PaddockListQuery, create: CreatePaddockBody, update: UpdatePaddockBody },
    service: {
      list: (db, scope, farmId, query) => listPaddocks(db, scope, farmId, parsePage(query)),
      create: createPaddock,
      get: getPaddock,
      update: updatePaddock,
      delete: deletePaddock,
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
      const result = await importPaddocks(db, apiCaller(request), request.params.farm, request.body);
      return reply.code(result.dry_run ? 200 : 201).send(result);
    },
  );
};
