/**
 * Notifications' routes, one plugin per responsibility: a person's browsers and the VAPID key
 * (routes/push.ts), their settings (routes/settings.ts), their delivery log and a test (routes/log.ts), all
 * `any` access (every signed-in person manages their own; API keys are refused in the service), and
 * acknowledging an alert with a notification's token (routes/ack.ts, no auth: the token is the credential).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ackTokenRoutes } from './routes/ack.ts';
import { notificationLogRoutes } from './routes/log.ts';
import { pushSubscriptionRoutes } from './routes/push.ts';
import { notificationSettingsRoutes } from './routes/settings.ts';
import type { NotificationRouteOptions } from './routes/shared.ts';

export const notificationRoutes: FastifyPluginAsyncTypebox<NotificationRouteOptions> = async (
  app,
  options,
) => {
  await app.register(pushSubscriptionRoutes, options);
  await app.register(notificationSettingsRoutes, options);
  await app.register(notificationLogRoutes, options);
  await app.register(ackTokenRoutes, options);
};
