import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../../db/schema.ts';
import { apiCaller } from '../../http/auth.ts';
import { errorResponses, FarmParams } from '../../http/schemas.ts';
import { resetSampleFarm } from './service.ts';

export const sampleRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  app.post(
    '/v1/farms/:farm/reset',
    {
      schema: {
        tags: ['Farms'],
        summary: 'Reset the sample farm to its initial state',
        description:
          'Sample farm only (404 for any other farm). In one transaction: the farm’s name, place and settings (alert rules back to the defaults) are restored, and its paddocks, groups, animals, devices, readings, commands, alerts, tasks and events are replaced by a fresh copy of the sample, with times around now. The farm id stays the same; devices get new ids and keys; webhooks are kept and are not sent the re-seeded records.',
        params: FarmParams,
        response: { 200: Type.Ref('Farm'), ...errorResponses },
      },
    },
    async (request) => resetSampleFarm(db, apiCaller(request), request.params.farm),
  );
};
