import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { parsePage } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import { apiCaller, deviceCaller } from '../../http/auth.ts';
import {
  BODY_ERRORS,
  described,
  documentBodyAs,
  errorResponses,
  IdParams,
  ListOf,
} from '../../http/schemas.ts';
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
      // Checked by QueueCommandBody and the commands service; the document shows each command's params.
      config: documentBodyAs(Type.Ref('CommandRequest')),
      schema: {
        operationId: 'createDeviceCommand',
        tags: ['Devices'],
        summary: 'Queue a command for a device (on the sample farm it is simulated and done at once)',
        params: IdParams,
        body: QueueCommandBody,
        response: {
          201: described(CommandRef, 'The command, queued (or done at once on the sample farm).'),
          ...errorResponses(
            {
              invalid_request:
                'The body is malformed, the device does not take this command, or a parameter is wrong; `param` names it (`command`, `params.<name>`).',
            },
            'unauthorized',
            'not_found',
            ...BODY_ERRORS,
          ),
        },
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
        operationId: 'listDeviceCommands',
        tags: ['Devices'],
        summary: "A device's command history, newest first",
        params: IdParams,
        querystring: CommandListQuery,
        response: {
          200: described(ListOf(CommandRef), 'A page of commands, newest first.'),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found'),
        },
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
        operationId: 'pollDeviceCommands',
        tags: ['Device ingest'],
        summary: "The calling device's queued commands; they are marked delivered",
        response: {
          200: described(
            Type.Object({ data: Type.Array(CommandRef) }),
            'The commands waiting for the device, now delivered.',
          ),
          ...errorResponses('unauthorized'),
        },
      },
    },
    async (request) => ({ data: await pollCommands(db, deviceCaller(request)) }),
  );

  app.post(
    '/v1/device/commands/:id',
    {
      config: { auth: 'device', surface: 'ingest' },
      schema: {
        operationId: 'answerDeviceCommand',
        tags: ['Device ingest'],
        summary: 'Answer a delivered command: done or failed, with a result',
        params: IdParams,
        body: AnswerCommandBody,
        response: {
          200: described(CommandRef, 'The command, done or failed.'),
          ...errorResponses(
            'invalid_request',
            'unauthorized',
            {
              not_found: 'No command with this id for the calling device.',
              conflict: 'The command is not delivered yet (pick it up first) or is already answered.',
            },
            ...BODY_ERRORS,
          ),
        },
      },
    },
    async (request) => answerCommand(db, deviceCaller(request), request.params.id, request.body),
  );
};
