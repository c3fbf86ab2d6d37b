/** A person's delivery log, and a test notification on the channels they can receive. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { parsePage } from '../../../db/pagination.ts';
import { apiCaller } from '../../../http/auth.ts';
import { BODY_ERRORS, described, errorResponses, ListOf, PageQuery } from '../../../http/schemas.ts';
import { NotificationSchema, TestNotificationBody } from '../schemas.ts';
import { listNotifications, personOf, sendTestNotification } from '../service.ts';
import { type NotificationRouteOptions, PEOPLE_ONLY, tags } from './shared.ts';

export const notificationLogRoutes: FastifyPluginAsyncTypebox<NotificationRouteOptions> = async (
  app,
  { db, config, clock },
) => {
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
            {
              conflict:
                'You have nowhere to receive it (no browser allowed, no ntfy topic, email not set up).',
            },
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
};
