import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { parsePage } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import { recordRoutes } from '../records/routes.ts';
import { CreateEventBody, EventListQuery, UpdateEventBody } from './schemas.ts';
import { createEvent, deleteEvent, getEvent, listEvents, updateEvent } from './service.ts';

export const eventRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  const tags = ['Farm events'];

  recordRoutes(app, db, {
    path: 'events',
    one: 'Event',
    many: 'Events',
    tags,
    noun: 'farm event',
    nouns: 'farm events',
    summaries: {
      list: "List a farm's event log, newest `at` first, with filters",
      create: 'Log a farm event (emits event.created)',
      get: 'Get a farm event',
      update: 'Update a farm event',
      delete: 'Delete a farm event',
    },
    described: { list: 'A page of farm events, newest `at` first.' },
    schemas: { query: EventListQuery, create: CreateEventBody, update: UpdateEventBody },
    service: {
      list: (db, scope, farmId, { limit, before, ...filters }) =>
        listEvents(db, scope, farmId, filters, parsePage({ limit, before })),
      create: createEvent,
      get: getEvent,
      update: updateEvent,
      delete: deleteEvent,
    },
  });
};
