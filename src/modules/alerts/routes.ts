import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../../db/schema.ts';
import { apiCaller } from '../../http/auth.ts';
import { BODY_ERRORS, described, errorResponses, FarmParams, IdParams, ListOf } from '../../http/schemas.ts';
import { recordGetRoute } from '../records/routes.ts';
import { AcknowledgeAlertBody, AlertListQuery } from './schemas.ts';
import { acknowledgeAlert, getAlert, listAlerts, resolveAlert } from './service.ts';

export const alertRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  const tags = ['Alerts'];
  const AlertRef = Type.Ref('Alert');

  app.get(
    '/v1/farms/:farm/alerts',
    {
      config: { readCache: true },
      schema: {
        operationId: 'listAlerts',
        tags,
        summary: "A farm's alerts, most urgent first (urgent, watch, info), then newest",
        params: FarmParams,
        querystring: AlertListQuery,
        response: {
          200: described(ListOf(AlertRef), 'A page of alerts, most urgent first.'),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found'),
        },
      },
    },
    async (request) => {
      const { status, limit, before } = request.query;
      return listAlerts(db, apiCaller(request), request.params.farm, { status }, { limit, before });
    },
  );

  recordGetRoute(app, db, {
    path: 'alerts',
    one: 'Alert',
    tags,
    noun: 'alert',
    summaries: { get: 'Get an alert' },
    service: { get: getAlert },
  });

  app.post(
    '/v1/alerts/:id/acknowledge',
    {
      schema: {
        operationId: 'acknowledgeAlert',
        tags,
        summary:
          'Acknowledge an open alert (an acknowledged one is returned unchanged; a resolved one is 409)',
        params: IdParams,
        body: Type.Optional(AcknowledgeAlertBody),
        response: {
          200: described(AlertRef, 'The alert, acknowledged.'),
          ...errorResponses(
            'invalid_request',
            'unauthorized',
            'not_found',
            { conflict: 'The alert is resolved; a resolved alert cannot be acknowledged.' },
            ...BODY_ERRORS,
          ),
        },
      },
    },
    async (request) => {
      const caller = apiCaller(request);
      // A person in the console is named on the alert; a key or an agent is not a person.
      const by = caller.session?.personId ?? null;
      return acknowledgeAlert(db, caller, request.params.id, request.body, Date.now(), by);
    },
  );

  app.post(
    '/v1/alerts/:id/resolve',
    {
      schema: {
        operationId: 'resolveAlert',
        tags,
        summary: 'Resolve an open or acknowledged alert (a resolved one is returned unchanged)',
        params: IdParams,
        response: {
          200: described(AlertRef, 'The alert, resolved.'),
          ...errorResponses('unauthorized', 'not_found'),
        },
      },
    },
    async (request) => resolveAlert(db, apiCaller(request), request.params.id),
  );
};
