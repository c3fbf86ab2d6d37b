import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../../db/schema.ts';
import { apiCaller, deviceCaller } from '../../http/auth.ts';
import { parsePage } from '../../http/pagination.ts';
import { errorResponses, IdParams, ListOf } from '../../http/schemas.ts';
import { AnswerCommandBody, CommandListQuery, QueueCommandBody } from './schemas.ts';
import { answerCommand, listCommands, pollCommands, queueCommand } from './service.ts';

export const commandRoutes: FastifyPluginAsyncTypebox<{
  db: Db;
  commandExpirySeconds: number;
  commandRedeliverSeconds: number;
}> = async (app, { db, commandExpirySeconds, commandRedeliverSeconds }) => {
  const CommandRef = Type.Ref('Command');

  app.post(
    '/v1/devices/:id/commands',
    {
      schema: {
        tags: ['Devices'],
        summary: 'Queue a command for a device (on the sample farm it is simulated and done at once)',
        params: IdParams,
        body: QueueCommandBody,
        response: { 201: CommandRef, ...errorResponses },
      },
    },
    async (request, reply) =>
      reply.status(201).send(
        await queueCommand(db, apiCaller(request), request.params.id, request.body, {
          defaultExpirySeconds: commandExpirySeconds,
          defaultRedeliverSeconds: commandRedeliverSeconds,
        }),
      ),
  );

  app.get(
    '/v1/devices/:id/commands',
    {
      schema: {
        tags: ['Devices'],
        summary: "A device's command history, newest first",
        params: IdParams,
        querystring: CommandListQuery,
        response: { 200: ListOf(CommandRef), ...errorResponses },
      },
    },
    async (request) => {
      const { limit, before, status } = request.query;
      return listCommands(db, apiCaller(request), request.params.id, parsePage({ limit, before }), {
        status,
      });
    },
  );

  app.get(
    '/v1/device/commands',
    {
      config: { auth: 'device', surface: 'ingest' },
      schema: {
        tags: ['Device ingest'],
        summary: "The calling device's queued commands; they are marked delivered",
        response: { 200: Type.Object({ data: Type.Array(CommandRef) }), ...errorResponses },
      },
    },
    async (request) => ({ data: await pollCommands(db, deviceCaller(request)) }),
  );

  app.post(
    '/v1/device/commands/:id',
    {
      config: { auth: 'device', surface: 'ingest' },
      schema: {
        tags: ['Device ingest'],
        summary: 'Answer a delivered command: done or failed, with a result',
        params: IdParams,
        body: AnswerCommandBody,
        response: { 200: CommandRef, ...errorResponses },
      },
    },
    async (request) => answerCommand(db, deviceCaller(request), request.params.id, request.body),
  );
};
