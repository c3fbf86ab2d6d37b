import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../../db/schema.ts';
import { apiCaller } from '../../http/auth.ts';
import { DateTime, errorResponses, FarmParams } from '../../http/schemas.ts';
import { buildBrief } from './service.ts';

export const BriefSchema = Type.Object({
  farm_id: Type.String(),
  generated_at: DateTime(),
  headline: Type.String(),
  text: Type.String(),
  alerts: Type.Array(Type.Unknown()),
  tasks: Type.Array(Type.Unknown()),
  houses: Type.Array(Type.Object({}, { additionalProperties: true })),
});

export const briefRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  app.get(
    '/v1/farms/:farm/brief',
    {
      schema: {
        tags: ['Farms'],
        summary: 'The morning brief: a ranked view of what needs attention',
        params: FarmParams,
        response: { 200: BriefSchema, ...errorResponses },
      },
    },
    async (request) => buildBrief(db, apiCaller(request), request.params.farm),
  );
};
