import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { parsePage } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import { recordRoutes } from '../records/routes.ts';
import { CreateGroupBody, GroupListQuery, UpdateGroupBody } from './schemas.ts';
import { createGroup, deleteGroup, getGroup, listGroups, updateGroup } from './service.ts';

export const groupRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  const tags = ['Groups'];

  recordRoutes(app, db, {
    path: 'groups',
    one: 'Group',
    many: 'Groups',
    tags,
    noun: 'group',
    nouns: 'groups',
    summaries: {
      list: "List a farm's groups (herds, flocks, pens, litters), newest first, with filters",
      create: 'Add a group',
      get: 'Get a group',
      update: 'Update a group (a paddock change logs a move event)',
      delete: 'Delete a group (its animals stay, with group_id cleared and a move event each)',
    },
    schemas: { query: GroupListQuery, create: CreateGroupBody, update: UpdateGroupBody },
    service: {
      list: (db, scope, farmId, { limit, before, ...filters }) =>
        listGroups(db, scope, farmId, filters, parsePage({ limit, before })),
      create: createGroup,
      get: getGroup,
      update: updateGroup,
      delete: deleteGroup,
    },
  });
};
