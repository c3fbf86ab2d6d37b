import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { parsePage } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import { apiCaller } from '../../http/auth.ts';
import { BODY_ERRORS, described, errorResponses, FarmParams, IdParams, ListOf } from '../../http/schemas.ts';
import { CreateBatchBody, CreateMedicineBody, MedicineListQuery, UpdateMedicineBody } from './schemas.ts';
import { addBatch, createMedicine, getMedicine, listMedicines, updateMedicine } from './service.ts';

/** The medicine cabinet: a farm's medicines (never deleted: the medicine record refers to them) and their batches. */
export const medicineRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  const tags = ['Herd book'];
  const Medicine = Type.Ref('Medicine');

  app.get(
    '/v1/farms/:farm/medicines',
    {
      schema: {
        operationId: 'listMedicines',
        tags,
        summary: "List a farm's medicines, newest first, with their batches and stock",
        params: FarmParams,
        querystring: MedicineListQuery,
        response: {
          200: described(ListOf(Medicine), 'A page of medicines, newest first.'),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found'),
        },
      },
    },
    async (request) => listMedicines(db, apiCaller(request), request.params.farm, parsePage(request.query)),
  );

  app.post(
    '/v1/farms/:farm/medicines',
    {
      schema: {
        operationId: 'createMedicine',
        tags,
        summary: "Add a medicine to the farm's cabinet: the label's withdrawal periods and licensed species",
        params: FarmParams,
        body: CreateMedicineBody,
        response: {
          201: described(Medicine, 'The new medicine.'),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found', ...BODY_ERRORS),
        },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await createMedicine(db, apiCaller(request), request.params.farm, request.body)),
  );

  app.get(
    '/v1/medicines/:id',
    {
      schema: {
        operationId: 'getMedicine',
        tags,
        summary: 'Get a medicine with its batches and stock',
        params: IdParams,
        response: {
          200: described(Medicine, 'The medicine.'),
          ...errorResponses('unauthorized', 'not_found'),
        },
      },
    },
    async (request) => getMedicine(db, apiCaller(request), request.params.id),
  );

  app.patch(
    '/v1/medicines/:id',
    {
      schema: {
        operationId: 'updateMedicine',
        tags,
        summary: 'Update a medicine (treatments already given keep the withdrawal they were given with)',
        params: IdParams,
        body: UpdateMedicineBody,
        response: {
          200: described(Medicine, 'The medicine as updated.'),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found', ...BODY_ERRORS),
        },
      },
    },
    async (request) => updateMedicine(db, apiCaller(request), request.params.id, request.body),
  );

  app.post(
    '/v1/medicines/:id/batches',
    {
      schema: {
        operationId: 'addMedicineBatch',
        tags,
        summary: 'Add a batch (bought stock) of a medicine: batch number, expiry, quantity, supplier',
        params: IdParams,
        body: CreateBatchBody,
        response: {
          201: described(Medicine, 'The medicine, with the new batch among its batches.'),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found', ...BODY_ERRORS),
        },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await addBatch(db, apiCaller(request), request.params.id, request.body)),
  );
};
