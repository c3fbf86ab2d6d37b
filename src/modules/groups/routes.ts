import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../../db/schema.ts';
import { apiCaller } from '../../http/auth.ts';
import { parsePage } from '../../http/pagination.ts';
import { DeletedSchema, errorResponses, FarmParams, IdParams, ListOf } from '../../http/schemas.ts';
import { CreateGroupBody, GroupListQuery, UpdateGroupBody } from './schemas.ts';
import { createGroup, deleteGroup, getGroup, listGroups, updateGroup } from './service.ts';

export const groupRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  const tags = ['Groups'];
  const GroupRef = Type.Ref('Group');

  app.get(
    '/v1/farms/:farm/groups',
    {
      schema: {
        tags,
        summary: "List a farm's groups (herds, flocks, pens, litters), newest first, with filters",
        params: FarmParams,
        querystring: GroupListQuery,
        response: { 200: ListOf(GroupRef), ...errorResponses },
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
        tags,
        summary: 'Add a group',
        params: FarmParams,
        body: CreateGroupBody,
        response: { 201: GroupRef, ...errorResponses },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await createGroup(db, apiCaller(request), request.params.farm, request.body)),
  );

  app.get(
    '/v1/groups/:id',
    {
      schema: {
        tags,
        summary: 'Get a group',
        params: IdParams,
        response: { 200: GroupRef, ...errorResponses },
      },
    },
    async (request) => getGroup(db, apiCaller(request), request.params.id),
  );

  app.patch(
    '/v1/groups/:id',
    {
      schema: {
        tags,
        summary: 'Update a group (a paddock change logs a move event)',
        params: IdParams,
        body: UpdateGroupBody,
        response: { 200: GroupRef, ...errorResponses },
      },
    },
    async (request) => updateGroup(db, apiCaller(request), request.params.id, request.body),
  );

  app.delete(
    '/v1/groups/:id',
    {
      schema: {
        tags,
        summary: 'Delete a group (its animals stay, with group_id cleared and a move event each)',
        params: IdParams,
        response: { 200: DeletedSchema, ...errorResponses },
      },
    },
    async (request) => deleteGroup(db, apiCaller(request), request.params.id),
  );
};
