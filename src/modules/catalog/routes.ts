import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { buildCatalog } from '../../domain/catalog.ts';

export const catalogRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // The catalog is static data from src/domain; build it once.
  const catalog = buildCatalog();
  app.get(
    '/v1/catalog',
    {
      config: { auth: 'none' },
      schema: {
        tags: ['Catalog'],
        summary: 'Metrics, commands with parameters, default alert rules and webhook events (no key needed)',
        response: { 200: Type.Object({}, { additionalProperties: true }) },
      },
    },
    async () => catalog,
  );
};
