import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Config } from '../../config.ts';
import { parsePage } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import { apiCaller } from '../../http/auth.ts';
import {
  BODY_ERRORS,
  described,
  errorResponses,
  FarmParams,
  IdParams,
  ListOf,
  PageQuery,
} from '../../http/schemas.ts';
import { type RecordByIdKind, recordDeleteRoute, recordGetRoute } from '../records/routes.ts';
import { CreateWebhookBody, DeliveryListQuery, UpdateWebhookBody } from './schemas.ts';
import {
  createWebhook,
  deleteWebhook,
  getDelivery,
  getWebhook,
  listDeliveries,
  listWebhooks,
  retryDelivery,
  sendTestEvent,
  updateWebhook,
} from './service.ts';

const DeliveryParams = Type.Object(
  { id: Type.String({ minLength: 1 }), delivery_id: Type.String({ minLength: 1 }) },
  { additionalProperties: false },
);

type App = Parameters<FastifyPluginAsyncTypebox>[0];
interface Options {
  db: Db;
  config: Readonly<Config>;
}

/** The webhooks, then their delivery log: two sets of routes, one plugin (one access family). */
export const webhookRoutes: FastifyPluginAsyncTypebox<Options> = async (app, options) => {
  webhookRecordRoutes(app, options);
  deliveryRoutes(app, options);
};

/** A farm's webhooks: list and create under the farm, get, change and delete by id. */
// Over 80 lines by design: one declaration per route (its schema, then a one-line handler), each read alone.
function webhookRecordRoutes(app: App, { db, config }: Options): void {
  const tags = ['Webhooks'];
  const WebhookRef = Type.Ref('Webhook');
  const urlOptions = { allowPrivate: config.webhookAllowPrivate };
  const byId = {
    path: 'webhooks',
    one: 'Webhook',
    tags,
    noun: 'webhook',
    summaries: { get: 'Get a webhook', delete: 'Delete a webhook with its delivery history' },
    readCache: false,
    service: { get: getWebhook, delete: deleteWebhook },
  } as const satisfies RecordByIdKind;

  app.get(
    '/v1/farms/:farm/webhooks',
    {
      schema: {
        operationId: 'listWebhooks',
        tags,
        summary: "List a farm's webhooks (never their secrets)",
        params: FarmParams,
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: {
          200: described(ListOf(WebhookRef), 'A page of webhooks, newest first.'),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found'),
        },
      },
    },
    async (request) => listWebhooks(db, apiCaller(request), request.params.farm, parsePage(request.query)),
  );

  app.post(
    '/v1/farms/:farm/webhooks',
    {
      config: { shownOnce: true },
      schema: {
        operationId: 'createWebhook',
        tags,
        summary: 'Create a webhook; the signing secret is returned only in this response, as `secret`',
        params: FarmParams,
        body: CreateWebhookBody,
        response: {
          201: described(
            WebhookRef,
            'The new webhook, with its signing secret in `secret` (shown only here).',
          ),
          ...errorResponses(
            {
              invalid_request:
                'The body is malformed, an event name is unknown, or the url is not an allowed public http(s) address; `param` names it.',
            },
            {
              forbidden:
                'This key lacks webhooks:write, or events names an event whose data this key may not read (a webhook may only send what its creator may read; `param` names the event).',
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
        .send(await createWebhook(db, apiCaller(request), request.params.farm, request.body, urlOptions)),
  );

  recordGetRoute(app, db, byId);

  app.patch(
    '/v1/webhooks/:id',
    {
      schema: {
        operationId: 'updateWebhook',
        tags,
        summary: 'Change a webhook’s url, events or status (enabled / disabled)',
        params: IdParams,
        body: UpdateWebhookBody,
        response: {
          200: described(WebhookRef, 'The webhook as updated.'),
          ...errorResponses(
            'invalid_request',
            {
              forbidden:
                'This key lacks webhooks:write, or the webhook would send an event whose data this key may not read (new events, or a new url for events it cannot read; `param` names them).',
            },
            'unauthorized',
            'not_found',
            ...BODY_ERRORS,
          ),
        },
      },
    },
    async (request) =>
      updateWebhook(db, apiCaller(request), request.params.id, request.body ?? {}, urlOptions),
  );

  recordDeleteRoute(app, db, byId);
}

/** A webhook's delivery log: its deliveries with their attempts, a retry now, and a test event. */
// Over 80 lines by design: one declaration per route (its schema, then a one-line handler), each read alone.
function deliveryRoutes(app: App, { db, config }: Options): void {
  const tags = ['Webhooks'];
  const DeliveryRef = Type.Ref('WebhookDelivery');

  app.get(
    '/v1/webhooks/:id/deliveries',
    {
      schema: {
        operationId: 'listWebhookDeliveries',
        tags,
        summary: 'List a webhook’s deliveries, newest first, each with every attempt',
        params: IdParams,
        querystring: Type.Object({ ...PageQuery, ...DeliveryListQuery }, { additionalProperties: false }),
        response: {
          200: described(ListOf(DeliveryRef), 'A page of deliveries, newest first.'),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found'),
        },
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
        operationId: 'getWebhookDelivery',
        tags,
        summary: 'Get one delivery with every attempt',
        params: DeliveryParams,
        response: {
          200: described(DeliveryRef, 'The delivery with its attempts.'),
          ...errorResponses('unauthorized', 'not_found'),
        },
      },
    },
    async (request) => getDelivery(db, apiCaller(request), request.params.id, request.params.delivery_id),
  );

  app.post(
    '/v1/webhooks/:id/deliveries/:delivery_id/retry',
    {
      schema: {
        operationId: 'retryWebhookDelivery',
        tags,
        summary: 'Send a delivery again now; answers with the delivery once the attempt is recorded',
        params: DeliveryParams,
        response: {
          200: described(DeliveryRef, 'The delivery after the new attempt.'),
          ...errorResponses('unauthorized', 'not_found', {
            conflict: 'The webhook is disabled, or an attempt of this delivery is in progress.',
          }),
        },
      },
    },
    async (request) =>
      retryDelivery(db, apiCaller(request), request.params.id, request.params.delivery_id, config),
  );

  app.post(
    '/v1/webhooks/:id/test',
    {
      schema: {
        operationId: 'sendWebhookTestEvent',
        tags,
        summary: 'Send a webhook.test event to this webhook now',
        description:
          'Signs and sends a `webhook.test` event to this webhook only (whatever its events), recorded in its delivery log like any delivery, and answers with that delivery once the attempt is recorded (within the receiver deadline): status succeeded, or failed with last_status_code and last_error saying why. A failed test is not retried on the schedule; retry it with the retry endpoint.',
        params: IdParams,
        response: {
          200: described(DeliveryRef, 'The test delivery with its attempt.'),
          ...errorResponses('unauthorized', 'not_found', {
            conflict: 'The webhook is disabled.',
          }),
        },
      },
    },
    async (request) => sendTestEvent(db, apiCaller(request), request.params.id, config),
  );
}
