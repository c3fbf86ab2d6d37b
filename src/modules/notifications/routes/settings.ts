/** A person's notification settings: per farm, and the set-up of channels that need one (ntfy's topic). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { apiCaller } from '../../../http/auth.ts';
import { BODY_ERRORS, described, errorResponses } from '../../../http/schemas.ts';
import {
  NotificationSettingsPatch,
  NotificationSettingsSchema,
  PatchedNotificationSettingsSchema,
  PatchedTargetsSchema,
} from '../schemas.ts';
import { getNotificationSettings, personOf, updateNotificationSettings } from '../service.ts';
import { type NotificationRouteOptions, PEOPLE_ONLY, tags } from './shared.ts';

export const notificationSettingsRoutes: FastifyPluginAsyncTypebox<NotificationRouteOptions> = async (
  app,
  { db, config, clock },
) => {
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
        summary:
          'Change your notification settings for one farm, and/or your ntfy topic (for every farm: no farm_id needed)',
        body: NotificationSettingsPatch,
        response: {
          200: described(
            Type.Union([PatchedNotificationSettingsSchema, PatchedTargetsSchema]),
            "With farm_id, the farm's settings as they now are and your ntfy topic (for every farm); without, your ntfy topic alone.",
          ),
          ...errorResponses(
            {
              invalid_request:
                'The body is malformed, farm_id is missing beside a farm setting or names the sample farm, a muted rule is none of the farm’s, or the ntfy topic URL is not an allowed address; `param` names the member.',
            },
            'unauthorized',
            PEOPLE_ONLY,
            'not_found',
            ...BODY_ERRORS,
          ),
        },
      },
    },
    async (request) =>
      updateNotificationSettings(db, personOf(apiCaller(request)), request.body, {
        allowPrivate: config.webhookAllowPrivate,
        now: clock(),
      }),
  );
};
