import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/schema.ts';
import { apiCaller } from '../../http/auth.ts';
import { parsePage } from '../../http/pagination.ts';
import {
  DeletedSchema,
  errorResponses,
  FarmParams,
  IdParams,
  ListOf,
  PageQuery,
} from '../../http/schemas.ts';
import { CreateWebhookBody, DeliveryListQuery, UpdateWebhookBody } from './schemas.ts';
import {
  createWebhook,
  deleteWebhook,
  getDelivery,
  getWebhook,
  listDeliveries,
  listWebhooks,
  retryDelivery,
  updateWebhook,
} from './service.ts';

const DeliveryParams = Type.Object(
  { id: Type.String({ minLength: 1 }), delivery_id: Type.String({ minLength: 1 }) },
  { additionalProperties: false },
);

export const webhookRoutes: FastifyPluginAsyncTypebox<{ db: Db; config: Readonly<Config> }> = async (
  app,
  { db, config },
) => {
  const tags = ['Webhooks'];
  const WebhookRef = Type.Ref('Webhook');
  const DeliveryRef = Type.Ref('WebhookDelivery');
  const urlOptions = { allowPrivate: config.webhookAllowPrivate };

  app.get(
    '/v1/farms/:farm/webhooks',
    {
      schema: {
        tags,
        summary: "List a farm's webhooks (never their secrets)",
        params: FarmParams,
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: { 200: ListOf(WebhookRef), ...errorResponses },
      },
    },
    async (request) => listWebhooks(db, apiCaller(request), request.params.farm, parsePage(request.query)),
  );

  app.post(
    '/v1/farms/:farm/webhooks',
    {
      schema: {
        tags,
        summary: 'Create a webhook; the signing secret is returned only in this response, as `secret`',
        params: FarmParams,
        body: CreateWebhookBody,
        response: { 201: WebhookRef, ...errorResponses },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(await createWebhook(db, apiCaller(request), request.params.farm, request.body, urlOptions)),
  );

  app.get(
    '/v1/webhooks/:id',
    {
      schema: {
        tags,
        summary: 'Get a webhook',
        params: IdParams,
        response: { 200: WebhookRef, ...errorResponses },
      },
    },
    async (request) => getWebhook(db, apiCaller(request), request.params.id),
  );

  app.patch(
    '/v1/webhooks/:id',
    {
      schema: {
        tags,
        summary: 'Change a webhook’s url, events or status (enabled / disabled)',
        params: IdParams,
        body: UpdateWebhookBody,
        response: { 200: WebhookRef, ...errorResponses },
      },
    },
    async (request) =>
      updateWebhook(db, apiCaller(request), request.params.id, request.body ?? {}, urlOptions),
  );

  app.delete(
    '/v1/webhooks/:id',
    {
      schema: {
        tags,
        summary: 'Delete a webhook with its delivery history',
        params: IdParams,
        response: { 200: DeletedSchema, ...errorResponses },
      },
    },
    async (request) => deleteWebhook(db, apiCaller(request), request.params.id),
  );

  app.get(
    '/v1/webhooks/:id/deliveries',
    {
      schema: {
        tags,
        summary: 'List a webhook’s deliveries, newest first, each with every attempt',
        params: IdParams,
        querystring: Type.Object({ ...PageQuery, ...DeliveryListQuery }, { additionalProperties: false }),
        response: { 200: ListOf(DeliveryRef), ...errorResponses },
      },
    },
    async (request) =>
      listDeliveries(db, apiCaller(request), request.params.id, parsePage(request.query), {
        status: request.query.status,
      }),
  );

  app.get(
    '/v1/webhooks/:id/deliveries/:delivery_id',
    {
      schema: {
        tags,
        summary: 'Get one delivery with every attempt',
        params: DeliveryParams,
        response: { 200: DeliveryRef, ...errorResponses },
      },
    },
    async (request) => getDelivery(db, apiCaller(request), request.params.id, request.params.delivery_id),
  );

  app.post(
    '/v1/webhooks/:id/deliveries/:delivery_id/retry',
    {
      schema: {
        tags,
        summary: 'Send a delivery again now; answers with the delivery once the attempt is recorded',
        params: DeliveryParams,
        response: { 200: DeliveryRef, ...errorResponses },
      },
    },
    async (request) =>
      retryDelivery(db, apiCaller(request), request.params.id, request.params.delivery_id, config),
  );
};
