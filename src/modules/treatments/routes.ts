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
import { deleteTreatment } from './corrections.ts';
import { AnimalTreatmentsQuery, CreateTreatmentBody, TreatmentListQuery } from './schemas.ts';
import { createTreatments, getTreatment, listAnimalTreatments, listTreatments } from './service.ts';

export const treatmentRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  const tags = ['Herd book'];
  const Treatment = Type.Ref('Treatment');

  app.post(
    '/v1/farms/:farm/treatments',
    {
      schema: {
        operationId: 'createTreatments',
        tags,
        summary:
          'Give a medicine to animals or a group: one treatment per animal with its withdrawal (emits treatment.created; each appears as a treatment event)',
        params: FarmParams,
        body: CreateTreatmentBody,
        response: {
          201: described(
            Type.Ref('TreatmentsCreated'),
            'One treatment per animal, each with withdrawal_until.',
          ),
          ...errorResponses(
            {
              invalid_request:
                'A bad member, an animal or group not on this farm, a medicine or batch not on it, an expired batch or one without the stock (without override_reason); `param` names it.',
            },
            'unauthorized',
            'not_found',
            ...BODY_ERRORS,
          ),
        },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(await createTreatments(db, apiCaller(request), request.params.farm, request.body)),
  );

  app.get(
    '/v1/farms/:farm/treatments',
    {
      schema: {
        operationId: 'listTreatments',
        tags,
        summary: "List a farm's treatments (the medicine record), newest first",
        params: FarmParams,
        querystring: TreatmentListQuery,
        response: {
          200: described(ListOf(Treatment), 'A page of treatments, newest first.'),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found'),
        },
      },
    },
    async (request) => {
      const { limit, before, ...filters } = request.query;
      return listTreatments(
        db,
        apiCaller(request),
        request.params.farm,
        filters,
        parsePage({ limit, before }),
      );
    },
  );

  app.get(
    '/v1/animals/:id/treatments',
    {
      schema: {
        operationId: 'listAnimalTreatments',
        tags,
        summary: "An animal's treatments, newest first",
        params: IdParams,
        querystring: AnimalTreatmentsQuery,
        response: {
          200: described(ListOf(Treatment), "A page of the animal's treatments, newest first."),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found'),
        },
      },
    },
    async (request) =>
      listAnimalTreatments(db, apiCaller(request), request.params.id, parsePage(request.query)),
  );

  app.get(
    '/v1/treatments/:id',
    {
      schema: {
        operationId: 'getTreatment',
        tags,
        summary: 'Get a treatment',
        params: IdParams,
        response: {
          200: described(Treatment, 'The treatment.'),
          ...errorResponses('unauthorized', 'not_found'),
        },
      },
    },
    async (request) => getTreatment(db, apiCaller(request), request.params.id),
  );

  app.delete(
    '/v1/treatments/:id',
    {
      schema: {
        operationId: 'deleteTreatment',
        tags,
        summary:
          'Take back a treatment recorded by mistake: its stock returned, the animal’s withdrawal made again from its other treatments, its log entry removed (emits treatment.deleted)',
        params: IdParams,
        response: {
          200: described(DeletedSchema, 'The treatment is gone.'),
          ...errorResponses('unauthorized', 'not_found'),
        },
      },
    },
    async (request) => deleteTreatment(db, apiCaller(request), request.params.id),
  );
};
