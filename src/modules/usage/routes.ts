import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../../db/schema.ts';
import { apiCaller } from '../../http/auth.ts';
import { described, errorResponses } from '../../http/schemas.ts';
import type { UsageCounter } from './counter.ts';
import { getUsage } from './service.ts';

export const UsageSchema = Type.Object({
  account_id: Type.String(),
  days: Type.Array(
    Type.Object({
      day: Type.String({ description: 'UTC day, YYYY-MM-DD.' }),
      api: Type.Integer(),
      ingest: Type.Integer(),
      mcp: Type.Integer(),
      total: Type.Integer(),
    }),
    { description: 'Newest day first.' },
  ),
  totals: Type.Object({
    api: Type.Integer(),
    ingest: Type.Integer(),
    mcp: Type.Integer(),
    total: Type.Integer(),
  }),
});

export const usageRoutes: FastifyPluginAsyncTypebox<{ db: Db; usage: UsageCounter }> = async (
  app,
  { db, usage },
) => {
  app.get(
    '/v1/usage',
    {
      schema: {
        operationId: 'getUsage',
        tags: ['Account'],
        summary: "The account's calls by UTC day and surface (api, ingest, mcp), last 90 days",
        response: {
          200: described(UsageSchema, 'Calls per UTC day and surface, newest day first, with totals.'),
          ...errorResponses('unauthorized'),
        },
      },
    },
    async (request) => {
      // Counts are written in batches; write what this process holds so the answer includes this call.
      await usage.flush();
      return getUsage(db, apiCaller(request).accountId);
    },
  );
};
