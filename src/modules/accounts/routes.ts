import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../../db/schema.ts';
import { apiCaller } from '../../http/auth.ts';
import { BODY_ERRORS, DateTime, described, errorResponses, Nullable } from '../../http/schemas.ts';
import { KeyPermissionsSchema } from '../keys/schemas.ts';
import { PreferencesBody } from '../people/schemas.ts';
import { updatePreferences } from '../people/service.ts';
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
  app.patch(
    '/v1/me',
    {
      schema: {
        operationId: 'updateMe',
        tags: ['Account'],
        summary: 'Choose your units and language (a console session: the signed-in person)',
        description:
          'How the console, emails, pushes and ntfy messages speak to you: `units` metric or us, `language` ' +
          'en or es. Only how things are shown: the API and storage stay in the catalog’s units. An API key ' +
          'has no person (401).',
        body: PreferencesBody,
        response: {
          200: described(Type.Ref('Person'), 'You, with your units and language.'),
          ...errorResponses('invalid_request', 'unauthorized', ...BODY_ERRORS),
        },
      },
    },
    async (request) => updatePreferences(db, apiCaller(request), request.body),
  );
};
