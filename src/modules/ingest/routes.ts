import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Db } from '../../db/schema.ts';
import { deviceCaller } from '../../http/auth.ts';
import { described, errorResponses } from '../../http/schemas.ts';
import { IngestBody, IngestResponse } from './schemas.ts';
import { ingestReport } from './service.ts';

export const ingestRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
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
            'One report is one transaction: device row, state merge, readings, events, the alert engine, then the queued commands are picked up (marked delivered) and returned.',
          response: {
            200: described(
              IngestResponse,
              'The report is stored; `commands` are those waiting for the device.',
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
      async (request) => ingestReport(db, deviceCaller(request), request.body),
    );
  }
};
