/**
 * The uplink URL: where a network server posts its messages, with the integration's own secret (Bearer)
 * instead of an API key. The body is read by the integration's network server adapter (receive.ts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Config } from '../../../config.ts';
import type { Db } from '../../../db/schema.ts';
import { bearerToken } from '../../../http/auth.ts';
import { BODY_ERRORS, described, errorResponses, IdParams } from '../../../http/schemas.ts';
import { receiveUplink } from '../receive.ts';
import { UplinkQuery, UplinkResult } from '../schemas.ts';

type App = Parameters<FastifyPluginAsyncTypebox>[0];

const tags = ['LoRaWAN integrations'];

export function uplinkRoute(app: App, db: Db, config: Readonly<Config>): void {
  // Uplinks are judged as reports over HTTP and MQTT are: FARMSTEAD_MAX_CLOCK_SKEW_S.
  const ingestOptions = { maxClockSkewMs: config.maxClockSkewS * 1000 };
  app.post(
    '/v1/integrations/:id/uplink',
    {
      // The network server's call: its own secret (Bearer), not an API key.
      config: { auth: 'none' },
      schema: {
        operationId: 'receiveLorawanUplink',
        tags,
        summary:
          "The uplink URL: ChirpStack's HTTP integration (?event=…) or The Things Stack's webhook, unchanged",
        description:
          'Authorization: Bearer <the integration secret>. ChirpStack v4 (JSON): ?event=up|join|ack|txack|status|location are read; log, integration and any other event are answered 200 and ignored. The Things Stack v3 webhook: uplink, join and downlink messages at this one URL (downlink messages need no dev_eui: our correlation id finds the command). An uplink is stored as one device report; a repeated one (same device and deduplicationId or correlation id) stores nothing.',
        params: IdParams,
        querystring: UplinkQuery,
        body: Type.Record(Type.String(), Type.Unknown()),
        security: [{ integrationSecret: [] }],
        response: {
          200: described(
            UplinkResult,
            'Received: stored, a duplicate, unmatched (kept for adoption), a downlink event, or ignored.',
          ),
          ...errorResponses(
            { invalid_request: "The body is not the server's JSON as documented; `param` names the member." },
            { unauthorized: 'The secret is missing or wrong (nothing is stored).' },
            ...BODY_ERRORS,
          ),
        },
      },
    },
    async (request) =>
      receiveUplink(
        db,
        {
          integrationId: request.params.id,
          secret: bearerToken(request.headers.authorization),
          event: request.query.event,
          body: request.body,
        },
        Date.now(),
        ingestOptions,
      ),
  );
}
