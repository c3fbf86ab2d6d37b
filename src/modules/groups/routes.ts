import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { parsePage } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import { apiCaller } from '../../http/auth.ts';
import {
  BODY_ERRORS,
  DeletedSchema,
  described,
  errorResponses,
  FarmParams,
  IdParams,
  ListOf,
} from '../../http/schemas.ts';
import { CreateGroupBody, GroupListQuery, UpdateGroupBody } from './schemas.ts';
import { createGroup, deleteGroup, getGroup, listGroups, updateGroup } from './service.ts';

// Over 80 lines by design: one declaration per route (its schema, then a one-line handler), each read alone.
export const groupRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  const tags = ['Groups'];
  const GroupRef = Type.Ref('Group');

  app.get(
    '/v1/farms/:farm/groups',
    {
      config: { readCache: true },
      schema: {
        operationId: 'listGroups',
        tags,
        summary: "List a farm's groups (herds, flocks, pens, litters), newest first, with filters",
        params: FarmParams,
        querystring: GroupListQuery,
        response: {
          200: described(ListOf(GroupRef), 'A page of groups, newest first.'),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found'),
        },
      },
    },
    async (request) => {
      const { limit, before, ...filters } = request.query;
      return listGroups(db, apiCaller(request), request.params.farm, filters, parsePage({ limit, before }));
    },
  );

  app.post(
    '/v1/farms/:farm/groups',
    {
      schema: {
        operationId: 'createGroup',
        tags,
        summary: 'Add a group',
        params: FarmParams,
        body: CreateGroupBody,
        response: {
          201: described(GroupRef, 'The new group.'),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found', ...BODY_ERRORS),
        },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await createGroup(db, apiCaller(request), request.params.farm, request.body)),
  );

  app.get(
    '/v1/groups/:id',
    {
      config: { readCache: true },
      schema: {
        operationId: 'getGroup',
        tags,
        summary: 'Get a group',
        params: IdParams,
        response: {
          200: described(GroupRef, 'The group.'),
          ...errorResponses('unauthorized', 'not_found'),
        },
      },
    },
    async (request) => getGroup(db, apiCaller(request), request.params.id),
  );

  app.patch(
    '/v1/groups/:id',
    {
      schema: {
        operationId: 'updateGroup',
        tags,
        summary: 'Update a group (a paddock change logs a move event)',
        params: IdParams,
        body: UpdateGroupBody,
        response: {
          200: described(GroupRef, 'The group as updated.'),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found', ...BODY_ERRORS),
        },
      },
    },
    async (request) => updateGroup(db, apiCaller(request), request.params.id, request.body),
  );

  app.delete(
    '/v1/groups/:id',
    {
      schema: {
        operationId: 'deleteGroup',
        tags,
        summary: 'Delete a group (its animals stay, with group_id cleared and a move event each)',
        params: IdParams,
        response: {
          200: described(DeletedSchema, 'The group is deleted.'),
          ...errorResponses('unauthorized', 'not_found'),
        },
      },
    },
    async (request) => deleteGroup(db, apiCaller(request), request.params.id),
  );
};
