import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../../db/schema.ts';
import { apiCaller } from '../../http/auth.ts';
import { DateTime, described, errorResponses } from '../../http/schemas.ts';
import { getMe } from './service.ts';

const Mode = Type.Union([Type.Literal('live'), Type.Literal('test')]);

export const MeSchema = Type.Object({
  account: Type.Object({ id: Type.String(), name: Type.String(), created_at: DateTime() }),
  key: Type.Object({ id: Type.String(), name: Type.String(), mode: Mode, prefix: Type.String() }),
  mode: Mode,
});

export const accountRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  app.get(
    '/v1/me',
    {
      schema: {
        operationId: 'getMe',
        tags: ['Account'],
        summary: 'The calling account and key',
        response: {
          200: described(MeSchema, 'The account, the key that called and its mode.'),
          ...errorResponses('unauthorized'),
        },
      },
    },
    async (request) => getMe(db, apiCaller(request)),
  );
};
