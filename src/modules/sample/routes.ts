import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../../db/schema.ts';
import { apiCaller } from '../../http/auth.ts';
import { described, errorResponses, FarmParams } from '../../http/schemas.ts';
import { resetSampleFarm } from './service.ts';

export const sampleRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  app.post(
    '/v1/farms/:farm/reset',
    {
      schema: {
        operationId: 'resetSampleFarm',
        tags: ['Farms'],
        summary: 'Reset the sample farm to its initial state',
        description:
          'Sample farm only (404 for any other farm). In one transaction: the farm’s name, place and settings (alert rules back to the defaults) are restored, and its paddocks, groups, animals, devices, readings, commands, alerts, tasks and events are replaced by a fresh copy of the sample, with times around now. The farm id stays the same; devices get new ids and keys; webhooks are kept and are not sent the re-seeded records.',
        params: FarmParams,
        response: {
          200: described(Type.Ref('Farm'), 'The sample farm as reset.'),
          ...errorResponses('unauthorized', {
            not_found: 'No sample farm with this id visible to the key (any other farm is not found too).',
          }),
        },
      },
    },
    async (request) => resetSampleFarm(db, apiCaller(request), request.params.farm),
  );
};
