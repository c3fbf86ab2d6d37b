import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../../db/schema.ts';
import { apiCaller } from '../../http/auth.ts';
import { DateTime, described, errorResponses, Nullable } from '../../http/schemas.ts';
import { KeyPermissionsSchema } from '../keys/schemas.ts';
import { getMe } from './service.ts';

const Mode = Type.Union([Type.Literal('live'), Type.Literal('test')]);

export const MeSchema = Type.Object({
  account: Type.Object({ id: Type.String(), name: Type.String(), created_at: DateTime() }),
  key: Nullable(
    Type.Object({
      id: Type.String(),
      name: Type.String(),
      mode: Mode,
      prefix: Type.String(),
      farms: Nullable(
        Type.Array(Type.String(), { description: 'Restricted to these farms; null: every farm.' }),
      ),
      permissions: KeyPermissionsSchema,
    }),
  ),
  person: Type.Optional(
    Type.Ref('Person', {
      description: 'The signed-in person, when a console session called (key is then null).',
    }),
  ),
  mode: Mode,
});

export const accountRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  app.get(
    '/v1/me',
    {
      schema: {
        operationId: 'getMe',
        tags: ['Account'],
        summary: 'The calling account and key (or, with a session cookie, the signed-in person)',
        response: {
          200: described(
            MeSchema,
            'The account, the key that called (or the signed-in person) and the mode.',
          ),
          ...errorResponses('unauthorized'),
        },
      },
    },
    async (request) => getMe(db, apiCaller(request)),
  );
};
