import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Db } from '../../db/schema.ts';
import { deviceCaller } from '../../http/auth.ts';
import { errorResponses } from '../../http/schemas.ts';
import { IngestBody, IngestResponse } from './schemas.ts';
import { ingestReport } from './service.ts';

export const ingestRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  // The same handler at the ingest address and under /v1 (identical requests).
  for (const url of ['/ingest', '/v1/ingest']) {
    app.post(
      url,
      {
        config: { auth: 'device', surface: 'ingest' },
        schema: {
          tags: ['Device ingest'],
          summary: 'Report readings, state and events; the response carries commands waiting for the device',
          body: IngestBody,
          response: { 200: IngestResponse, ...errorResponses },
        },
      },
      async (request) => ingestReport(db, deviceCaller(request), request.body),
    );
  }
};
