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
import { CreateEventBody, EventListQuery, UpdateEventBody } from './schemas.ts';
import { createEvent, deleteEvent, getEvent, listEvents, updateEvent } from './service.ts';

// Over 80 lines by design: one declaration per route (its schema, then a one-line handler), each read alone.
export const eventRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  const tags = ['Farm events'];
  const EventRef = Type.Ref('Event');

  app.get(
    '/v1/farms/:farm/events',
    {
      config: { readCache: true },
      schema: {
        operationId: 'listEvents',
        tags,
        summary: "List a farm's event log, newest `at` first, with filters",
        params: FarmParams,
        querystring: EventListQuery,
        response: {
          200: described(ListOf(EventRef), 'A page of farm events, newest `at` first.'),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found'),
        },
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
        operationId: 'createEvent',
        tags,
        summary: 'Log a farm event (emits event.created)',
        params: FarmParams,
        body: CreateEventBody,
        response: {
          201: described(EventRef, 'The new farm event.'),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found', ...BODY_ERRORS),
        },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await createEvent(db, apiCaller(request), request.params.farm, request.body)),
  );

  app.get(
    '/v1/events/:id',
    {
      config: { readCache: true },
      schema: {
        operationId: 'getEvent',
        tags,
        summary: 'Get a farm event',
        params: IdParams,
        response: {
          200: described(EventRef, 'The farm event.'),
          ...errorResponses('unauthorized', 'not_found'),
        },
      },
    },
    async (request) => getEvent(db, apiCaller(request), request.params.id),
  );

  app.patch(
    '/v1/events/:id',
    {
      schema: {
        operationId: 'updateEvent',
        tags,
        summary: 'Update a farm event',
        params: IdParams,
        body: UpdateEventBody,
        response: {
          200: described(EventRef, 'The farm event as updated.'),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found', ...BODY_ERRORS),
        },
      },
    },
    async (request) => updateEvent(db, apiCaller(request), request.params.id, request.body),
  );

  app.delete(
    '/v1/events/:id',
    {
      schema: {
        operationId: 'deleteEvent',
        tags,
        summary: 'Delete a farm event',
        params: IdParams,
        response: {
          200: described(DeletedSchema, 'The farm event is deleted.'),
          ...errorResponses('unauthorized', 'not_found'),
        },
      },
    },
    async (request) => deleteEvent(db, apiCaller(request), request.params.id),
  );
};
