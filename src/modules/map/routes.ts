import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../../db/schema.ts';
import { apiCaller } from '../../http/auth.ts';
import { described, errorResponses, FarmParams } from '../../http/schemas.ts';
import { FarmMapQuery } from './schemas.ts';
import { buildFarmMap } from './service.ts';

/** A farm's id as a file name: letters, digits and - _ only. */
const fileName = (farmId: string) => `${farmId.replace(/[^A-Za-z0-9_-]/g, '_')}.geojson`;

export const mapRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  app.get(
    '/v1/farms/:farm/map',
    {
      schema: {
        operationId: 'getFarmMap',
        tags: ['Farms'],
        summary: 'The farm as a GeoJSON FeatureCollection: paddocks, devices, alerts and house routes',
        description:
          "Every paddock (its outline; properties: the Paddock record), every device at its last position, active alerts placed where their subject is, and the route of each house moving to a paddock. properties.kind says which. Loads in QGIS or any GIS tool with the API key as a Bearer header (docs/map.md); download=true gives it as a file, the farm's GeoJSON export.",
        params: FarmParams,
        querystring: FarmMapQuery,
        response: {
          200: described(Type.Ref('FarmMap'), 'A GeoJSON FeatureCollection.'),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found'),
        },
      },
    },
    async (request, reply) => {
      const map = await buildFarmMap(db, apiCaller(request), request.params.farm);
      if (request.query.download) {
        reply
          .type('application/geo+json')
          .header('content-disposition', `attachment; filename="${fileName(request.params.farm)}"`);
      }
      return map;
    },
  );
};
