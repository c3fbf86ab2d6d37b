/**
 * Notifications: the VAPID public key (no auth), a person's browsers, settings, delivery log and test
 * (`any` access: every signed-in person manages their own; API keys are refused in the service), and
 * acknowledging an alert with a notification's token (no auth: the token is the credential).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Config } from '../../config.ts';
import { parsePage } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import { apiCaller } from '../../http/auth.ts';
import {
  BODY_ERRORS,
  DeletedSchema,
  described,
  errorResponses,
  IdParams,
  ListOf,
  PageQuery,
} from '../../http/schemas.ts';
import { acknowledgeWithToken, describeAckToken } from './ack-token.ts';
import {
  AckTokenBody,
  AckTokenInfoSchema,
  AckTokenParams,
  FarmNotificationSettingsSchema,
  NotificationSchema,
  NotificationSettingsPatch,
  NotificationSettingsSchema,
  PushSubscriptionBody,
  PushSubscriptionSchema,
  TestNotificationBody,
  VapidKeySchema,
} from './schemas.ts';
import {
  addPushSubscription,
  getNotificationSettings,
  listNotifications,
  listPushSubscriptions,
  personOf,
  removePushSubscription,
  sendTestNotification,
  updateNotificationSettings,
} from './service.ts';
import { vapidKeys } from './vapid.ts';

const PEOPLE_ONLY = {
  forbidden: 'Called with an API key: notifications belong to people signed in to the console.',
};

export const notificationRoutes: FastifyPluginAsyncTypebox<{
  db: Db;
  config: Readonly<Config>;
  clock: () => number;
}> = async (app, { db, config, clock }) => {
  const tags = ['Notifications'];

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

  app.get(
    '/v1/me/notification-settings',
    {
      schema: {
        operationId: 'getNotificationSettings',
        tags,
        summary: 'Your notification settings, per farm (the defaults of your role until you change them)',
        response: {
          200: described(NotificationSettingsSchema, 'Your settings.'),
          ...errorResponses('unauthorized', PEOPLE_ONLY),
        },
      },
    },
    async (request) => getNotificationSettings(db, personOf(apiCaller(request)), config),
  );

  app.patch(
    '/v1/me/notification-settings',
    {
      schema: {
        operationId: 'updateNotificationSettings',
        tags,
        summary: 'Change your notification settings for one farm',
        body: NotificationSettingsPatch,
        response: {
          200: described(FarmNotificationSettingsSchema, "The farm's settings as they now are."),
          ...errorResponses('invalid_request', 'unauthorized', PEOPLE_ONLY, 'not_found', ...BODY_ERRORS),
        },
      },
    },
    async (request) => updateNotificationSettings(db, personOf(apiCaller(request)), request.body, clock()),
  );

  app.post(
    '/v1/me/notifications/test',
    {
      schema: {
        operationId: 'sendTestNotification',
        tags,
        summary: 'Send yourself a test notification (each channel you can receive, or the one named)',
        body: Type.Optional(TestNotificationBody),
        response: {
          202: described(
            Type.Object({ data: Type.Array(NotificationSchema) }),
            'Queued; the delivery log shows what each channel answered.',
          ),
          ...errorResponses(
            'invalid_request',
            'unauthorized',
            PEOPLE_ONLY,
            { conflict: 'You have nowhere to receive it (no browser allowed, or email not set up).' },
            ...BODY_ERRORS,
          ),
        },
      },
    },
    async (request, reply) =>
      reply
        .status(202)
        .send(
          await sendTestNotification(db, personOf(apiCaller(request)), request.body ?? {}, config, clock()),
        ),
  );

  app.get(
    '/v1/me/notifications',
    {
      schema: {
        operationId: 'listNotifications',
        tags,
        summary: 'Your delivery log: what was sent to you, when, on which channel, and what it answered',
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: {
          200: described(ListOf(NotificationSchema), 'A page of notifications, newest first.'),
          ...errorResponses('invalid_request', 'unauthorized', PEOPLE_ONLY),
        },
      },
    },
    async (request) => listNotifications(db, personOf(apiCaller(request)), parsePage(request.query)),
  );

  app.get(
    '/v1/notifications/acknowledge/:token',
    {
      config: { auth: 'none', secrets: ['token'] },
      schema: {
        operationId: 'describeAckToken',
        tags,
        summary: 'What an acknowledge link would acknowledge (changes nothing: mail scanners follow links)',
        params: AckTokenParams,
        response: {
          200: described(AckTokenInfoSchema, 'The alert and whether the link can still be used.'),
          ...errorResponses('not_found'),
        },
      },
    },
    async (request) => describeAckToken(db, request.params.token, clock()),
  );

  app.post(
    '/v1/notifications/acknowledge',
    {
      config: { auth: 'none' },
      schema: {
        operationId: 'acknowledgeWithToken',
        tags,
        summary: "Acknowledge an alert with a notification's single-use token",
        body: AckTokenBody,
        response: {
          200: described(Type.Ref('Alert'), 'The alert, acknowledged.'),
          ...errorResponses(
            'invalid_request',
            {
              forbidden:
                'The token is used, expired or unknown, or its person may no longer acknowledge the alert.',
            },
            { conflict: 'The alert is resolved.' },
            ...BODY_ERRORS,
          ),
        },
      },
    },
    async (request) => acknowledgeWithToken(db, request.body.token, clock()),
  );
};
