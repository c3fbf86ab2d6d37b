import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { buildCatalog } from '../../domain/catalog.ts';
import { described } from '../../http/schemas.ts';

export const catalogRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // The catalog is static data from src/domain; build it once.
  const catalog = buildCatalog();
  app.get(
    '/v1/catalog',
    {
      config: { auth: 'none' },
      schema: {
        operationId: 'getCatalog',
        tags: ['Catalog'],
        summary: 'Metrics, commands with parameters, default alert rules and webhook events (no key needed)',
        response: {
          200: described(
            Type.Object({}, { additionalProperties: true }),
            'The catalog: metrics, commands per device type (with params_schema), rules, device types, webhook events, device alarm events and the house state schema.',
          ),
          // The catalog takes no input, so no client error is expected; documented for completeness.
          '4xx': described(Type.Ref('Error'), 'Any client error is an Error object.'),
        },
      },
    },
    async () => catalog,
  );
};
