import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { parsePage } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import { apiCaller } from '../../http/auth.ts';
import {
  BODY_ERRORS,
  DateTime,
  described,
  errorResponses,
  IdParams,
  ListOf,
  PageQuery,
} from '../../http/schemas.ts';
import { CreateKeyBody } from './schemas.ts';
import { issueKey, listKeys, revokeKey } from './service.ts';

export const keyRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  const tags = ['Account'];
  app.get(
    '/v1/keys',
    {
      schema: {
        operationId: 'listKeys',
        tags,
        summary: "List the account's active API keys (prefix and last use; never the full key)",
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: {
          200: described(ListOf(Type.Ref('Key')), 'A page of API keys, newest first.'),
          ...errorResponses('invalid_request', 'unauthorized'),
        },
      },
    },
    async (request) => listKeys(db, apiCaller(request), parsePage(request.query)),
  );
  app.post(
    '/v1/keys',
    {
      config: { shownOnce: true },
      schema: {
        operationId: 'createKey',
        tags,
        summary: 'Create an API key; the full key is returned only in this response',
        body: CreateKeyBody,
        response: {
          201: described(Type.Ref('Key'), 'The new key, with the full key in `key` (shown only here).'),
          ...errorResponses('invalid_request', 'unauthorized', ...BODY_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const key = await issueKey(db, apiCaller(request), request.body ?? {});
      return reply.status(201).send(key);
    },
  );
  app.delete(
    '/v1/keys/:id',
    {
      schema: {
        operationId: 'revokeKey',
        tags,
        summary: 'Revoke an API key (effective at once)',
        params: IdParams,
        response: {
          200: described(
            Type.Object({ id: Type.String(), deleted: Type.Boolean(), revoked_at: DateTime() }),
            'The key is revoked.',
          ),
          ...errorResponses('unauthorized', {
            not_found: 'No active key with this id on the account.',
            conflict:
              'It is the account’s last live key; revoking it would lock the account out of its live farms.',
          }),
        },
      },
    },
    async (request) => revokeKey(db, apiCaller(request), request.params.id),
  );
};
