import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../../db/schema.ts';
import { LANGUAGES, type LanguageName } from '../../domain/display-units.ts';
import { apiCaller } from '../../http/auth.ts';
import { described, errorResponses, FarmParams } from '../../http/schemas.ts';
import { findPersonById } from '../people/repository.ts';
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
        querystring: Type.Object(
          {
            language: Type.Optional(
              Type.Enum(LANGUAGES, {
                type: 'string',
                description:
                  'The language of the headline, the text and the items’ sentences when no person is signed in (an API key): en (the default) or es. A signed-in person’s brief is in their own language (PATCH /v1/me). Quantities stay in the catalog’s units either way.',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: described(Type.Ref('Brief'), 'The brief, ranked.'),
          ...errorResponses('unauthorized', 'not_found'),
        },
      },
    },
    async (request) => {
      const caller = apiCaller(request);
      // The signed-in person's own language; else the one asked for; else English, as API clients read it.
      const person = caller.session ? await findPersonById(db, caller.session.personId) : undefined;
      const language: LanguageName =
        (person?.language as LanguageName | undefined) ?? request.query.language ?? 'en';
      return buildBrief(db, caller, request.params.farm, Date.now(), language);
    },
  );
};
