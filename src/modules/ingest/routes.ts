import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Db } from '../../db/schema.ts';
import { deviceCaller } from '../../http/auth.ts';
import { described, errorResponses } from '../../http/schemas.ts';
import { IngestBody, IngestResponse } from './schemas.ts';
import { ingestReport } from './service.ts';

export const ingestRoutes: FastifyPluginAsyncTypebox<{ db: Db; maxClockSkewS: number }> = async (
  app,
  { db, maxClockSkewS },
) => {
  const options = { maxClockSkewMs: maxClockSkewS * 1000 };
  // The same handler at the ingest address and under /v1 (identical requests).
  // The operationIds differ only so the document can list both addresses.
  const operations = [
    { url: '/ingest', operationId: 'ingestReportAtIngestAddress' },
    { url: '/v1/ingest', operationId: 'ingestReport' },
  ];
  for (const { url, operationId } of operations) {
    app.post(
      url,
      {
        config: { auth: 'device', surface: 'ingest' },
        schema: {
          operationId,
          tags: ['Device ingest'],
          summary: 'Report readings, state and events; the response carries commands waiting for the device',
          body: IngestBody,
          description:
            "One report is one transaction: device row, state merge, readings, events, the alert engine, then the queued commands are picked up (marked delivered) and returned. A reading of a catalog metric is stored in the catalog's unit: sent in another unit the catalog accepts for it (GET /v1/catalog, `accepted_units`) it is converted, in any other the whole report is refused (400 naming the reading's unit). A reading or event dated more than FARMSTEAD_MAX_CLOCK_SKEW_S (300 s) ahead of the server's clock is not stored; the rest of the report is, the answer lists it under `refused` / `refused_events`, and the device gets a device.clock alert.",
          response: {
            200: described(
              IngestResponse,
              "The report is stored (but for readings and events dated too far ahead of the server's clock, listed in `refused` and `refused_events`); `commands` are those waiting for the device.",
            ),
            ...errorResponses(
              'invalid_request',
              'unauthorized',
              { payload_too_large: 'The body is too large, or it has more than 1,000 readings.' },
              'unsupported_media_type',
            ),
          },
        },
      },
      async (request) => ingestReport(db, deviceCaller(request), request.body, Date.now(), options),
    );
  }
};
