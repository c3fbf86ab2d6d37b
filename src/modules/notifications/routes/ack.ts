/**
 * Acknowledging an alert with a notification's token (no auth: the token is the credential): what an
 * emailed link would acknowledge (a GET changes nothing), and the POST the email's page, the service
 * worker's button and ntfy's Acknowledge action send (open to any origin, with its preflight: http/web.ts
 * `openToAnyOrigin`).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { BODY_ERRORS, described, errorResponses } from '../../../http/schemas.ts';
import { openToAnyOrigin } from '../../../http/web.ts';
import { acknowledgeWithToken, describeAckToken } from '../ack-token.ts';
import { AckTokenBody, AckTokenInfoSchema, AckTokenParams } from '../schemas.ts';
import { type NotificationRouteOptions, tags } from './shared.ts';

export const ackTokenRoutes: FastifyPluginAsyncTypebox<NotificationRouteOptions> = async (
  app,
  { db, clock },
) => {
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

  // Open to any origin (the token is the only credential): ntfy's web app and desktop PWA press Acknowledge
  // with the browser's fetch, a JSON POST that needs a preflight.
  const anyOrigin = openToAnyOrigin(app, '/v1/notifications/acknowledge', 'POST');
  app.post(
    '/v1/notifications/acknowledge',
    {
      ...anyOrigin,
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
