/**
 * A person's browsers: the server's VAPID public key (no auth: a browser needs it to subscribe), and the
 * push subscriptions a signed-in person saves, lists and removes.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { parsePage } from '../../../db/pagination.ts';
import { apiCaller } from '../../../http/auth.ts';
import {
  BODY_ERRORS,
  DeletedSchema,
  described,
  errorResponses,
  IdParams,
  ListOf,
  PageQuery,
} from '../../../http/schemas.ts';
import { PushSubscriptionBody, PushSubscriptionSchema, VapidKeySchema } from '../schemas.ts';
import { addPushSubscription, listPushSubscriptions, personOf, removePushSubscription } from '../service.ts';
import { vapidKeys } from '../vapid.ts';
import { type NotificationRouteOptions, PEOPLE_ONLY, tags } from './shared.ts';

export const pushSubscriptionRoutes: FastifyPluginAsyncTypebox<NotificationRouteOptions> = async (
  app,
  { db, config, clock },
) => {
  app.get(
    '/v1/notifications/vapid-public-key',
    {
      config: { auth: 'none' },
      schema: {
        operationId: 'getVapidPublicKey',
        tags,
        summary: "The server's VAPID public key, for a browser's push subscription",
        response: {
          200: described(VapidKeySchema, 'The key.'),
          // It takes no input, so no client error is expected; documented for completeness.
          '4xx': described(Type.Ref('Error'), 'Any client error is an Error object.'),
        },
      },
    },
    async () => ({ public_key: (await vapidKeys(db, config)).publicKey }),
  );

  app.post(
    '/v1/me/push-subscriptions',
    {
      schema: {
        operationId: 'createPushSubscription',
        tags,
        summary: 'Allow notifications in a browser: save its PushSubscription',
        body: PushSubscriptionBody,
        response: {
          201: described(
            PushSubscriptionSchema,
            'The browser, saved (the same endpoint again replaces its keys).',
          ),
          ...errorResponses(
            {
              invalid_request:
                'The body is malformed, or the endpoint is not an allowed public https address; `param` names it.',
            },
            'unauthorized',
            PEOPLE_ONLY,
            ...BODY_ERRORS,
          ),
        },
      },
    },
    async (request, reply) =>
      reply.status(201).send(
        await addPushSubscription(db, personOf(apiCaller(request)), request.body, {
          allowPrivate: config.webhookAllowPrivate,
          now: clock(),
        }),
      ),
  );

  app.get(
    '/v1/me/push-subscriptions',
    {
      schema: {
        operationId: 'listPushSubscriptions',
        tags,
        summary: 'Your browsers that allow notifications',
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: {
          200: described(ListOf(PushSubscriptionSchema), 'A page of browsers, newest first.'),
          ...errorResponses('invalid_request', 'unauthorized', PEOPLE_ONLY),
        },
      },
    },
    async (request) => listPushSubscriptions(db, personOf(apiCaller(request)), parsePage(request.query)),
  );

  app.delete(
    '/v1/me/push-subscriptions/:id',
    {
      schema: {
        operationId: 'deletePushSubscription',
        tags,
        summary: 'Stop notifications to one of your browsers',
        params: IdParams,
        response: {
          200: described(DeletedSchema, 'Removed.'),
          ...errorResponses('unauthorized', PEOPLE_ONLY, 'not_found'),
        },
      },
    },
    async (request) => removePushSubscription(db, personOf(apiCaller(request)), request.params.id),
  );
};
