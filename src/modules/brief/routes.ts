import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../../db/schema.ts';
import { apiCaller } from '../../http/auth.ts';
import { described, errorResponses, FarmParams } from '../../http/schemas.ts';
import { BRIEF_REUSE_MS } from './memo.ts';
import { buildBrief } from './service.ts';

export { BriefSchema } from './schemas.ts';

export const briefRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  app.get(
    '/v1/farms/:farm/brief',
    {
      // The brief depends on the clock: sent again for at most the second a built brief is reused (memo.ts).
      config: { readCache: { maxAgeMs: BRIEF_REUSE_MS } },
      schema: {
        operationId: 'getFarmBrief',
        tags: ['Farms'],
        summary: 'The morning brief: a ranked view of what needs attention',
        description:
          'Ranks what needs attention now: urgent alerts, then watch alerts (oldest first), overdue tasks, tasks due today (farm time), houses with low feed or water or climate off target, pop doors open after dusk, quiet devices, low batteries and paddocks past their rest target. Also every house with its feed, water, climate, power, doors, move and floor.',
        params: FarmParams,
        response: {
          200: described(Type.Ref('Brief'), 'The brief, ranked.'),
          ...errorResponses('unauthorized', 'not_found'),
        },
      },
    },
    async (request) => buildBrief(db, apiCaller(request), request.params.farm),
  );
};
