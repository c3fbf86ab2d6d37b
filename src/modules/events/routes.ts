import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../../db/schema.ts';
import { apiCaller } from '../../http/auth.ts';
import { parsePage } from '../../http/pagination.ts';
import { DeletedSchema, errorResponses, FarmParams, IdParams, ListOf } from '../../http/schemas.ts';
import { CreateEventBody, EventListQuery, UpdateEventBody } from './schemas.ts';
import { createEvent, deleteEvent, getEvent, listEvents, updateEvent } from './service.ts';

export const eventRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  const tags = ['Farm events'];
  const EventRef = Type.Ref('Event');

  app.get(
    '/v1/farms/:farm/events',
    {
      schema: {
        tags,
        summary: "List a farm's event log, newest `at` first, with filters",
        params: FarmParams,
        querystring: EventListQuery,
        response: { 200: ListOf(EventRef), ...errorResponses },
      },
    },
    async (request) => {
      const { limit, before, ...filters } = request.query;
      return listEvents(db, apiCaller(request), request.params.farm, filters, parsePage({ limit, before }));
    },
  );

  app.post(
    '/v1/farms/:farm/events',
    {
      schema: {
        tags,
        summary: 'Log a farm event (emits event.created)',
        params: FarmParams,
        body: CreateEventBody,
        response: { 201: EventRef, ...errorResponses },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await createEvent(db, apiCaller(request), request.params.farm, request.body)),
  );

  app.get(
    '/v1/events/:id',
    {
      schema: {
        tags,
        summary: 'Get a farm event',
        params: IdParams,
        response: { 200: EventRef, ...errorResponses },
      },
    },
    async (request) => getEvent(db, apiCaller(request), request.params.id),
  );

  app.patch(
    '/v1/events/:id',
    {
      schema: {
        tags,
        summary: 'Update a farm event',
        params: IdParams,
        body: UpdateEventBody,
        response: { 200: EventRef, ...errorResponses },
      },
    },
    async (request) => updateEvent(db, apiCaller(request), request.params.id, request.body),
  );

  app.delete(
    '/v1/events/:id',
    {
      schema: {
        tags,
        summary: 'Delete a farm event',
        params: IdParams,
        response: { 200: DeletedSchema, ...errorResponses },
      },
    },
    async (request) => deleteEvent(db, apiCaller(request), request.params.id),
  );
};
