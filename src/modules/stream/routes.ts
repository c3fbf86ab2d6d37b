/**
 * GET /v1/farms/{farm}/stream: the farm's live stream (Server-Sent Events). The handler checks the caller
 * and the farm like any farm read, then hands a body stream to the hub (hub.ts) and returns at once;
 * Fastify pipes it to the socket for as long as the stream lives.
 */
import { PassThrough } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../../db/schema.ts';
import { AppError } from '../../domain/errors.ts';
import { apiCaller } from '../../http/auth.ts';
import { errorResponses, FarmParams } from '../../http/schemas.ts';
import { requireFarm } from '../farms/access.ts';
import { REPORT_EVENT } from './frames.ts';
import type { StreamHub } from './hub.ts';
import { STREAM_DESCRIPTION, StreamQuery } from './schemas.ts';
import { includedFrames, mayReceive, resumeAfter, stillAllowed } from './service.ts';

export const streamRoutes: FastifyPluginAsyncTypebox<{
  db: Db;
  hub: StreamHub;
  /** FARMSTEAD_MAX_STREAMS_PER_KEY: open streams per credential on this process; 0: no cap. */
  maxStreamsPerKey: number;
}> = async (app, { db, hub, maxStreamsPerKey }) => {
  // Open streams per credential (a key, an agent's grant, a person): the per-address cap alone lets one key
  // spread over many addresses hold every connection of the process.
  const openPerKey = new Map<string, number>();
  app.get(
    '/v1/farms/:farm/stream',
    {
      schema: {
        operationId: 'streamFarmEvents',
        tags: ['Live stream'],
        summary: "A live stream of the farm's events (Server-Sent Events)",
        description: STREAM_DESCRIPTION,
        params: FarmParams,
        querystring: StreamQuery,
        headers: Type.Object({
          'last-event-id': Type.Optional(
            Type.String({
              description: 'Resume after this event id (EventSource sends it when it reconnects).',
            }),
          ),
        }),
        response: {
          200: {
            description: 'The stream: events as they happen, until the client or the server ends it.',
            content: {
              'text/event-stream': {
                schema: Type.String({
                  description:
                    'Server-Sent Events: `id:`, `event:` and `data:` lines, and `: keep-alive` comments.',
                  examples: [
                    'id: msg_01k0000000aaaaaaaaaaaaaaaa\nevent: alert.created\ndata: {"id":"msg_01k0000000aaaaaaaaaaaaaaaa","type":"alert.created","farm_id":"farm_…","created_at":"2026-05-01T06:00:00.000Z","data":{"id":"alt_…","object":"alert"}}\n\n: keep-alive\n\n',
                  ],
                }),
              },
            },
          },
          ...errorResponses('invalid_request', 'unauthorized', 'not_found', 'rate_limited', 'unavailable'),
        },
      },
    },
    async (request, reply) => {
      const caller = apiCaller(request);
      const farm = await requireFarm(db, caller, request.params.farm);
      const lastEventId = resumeAfter(request.headers['last-event-id'], request.query.last_event_id);
      const include = includedFrames(request.query.include);
      const holder = caller.keyId;
      const open = openPerKey.get(holder) ?? 0;
      if (maxStreamsPerKey > 0 && open >= maxStreamsPerKey) {
        // A slot frees when one of its streams closes, which no clock says: a minute is a sensible wait.
        reply.header('retry-after', '60');
        throw new AppError(
          'rate_limited',
          `This key already has ${open} live streams open here (at most ${maxStreamsPerKey}, FARMSTEAD_MAX_STREAMS_PER_KEY): close one first.`,
        );
      }
      openPerKey.set(holder, open + 1);
      reply.raw.once('close', () => {
        const left = (openPerKey.get(holder) ?? 1) - 1;
        if (left > 0) openPerKey.set(holder, left);
        else openPerKey.delete(holder);
      });
      // A key's grants, or a signed-in person's role: the same policy every route is checked against.
      const { policy } = caller;
      const body = new PassThrough();
      try {
        await hub.open({
          farmId: farm.id,
          lastEventId,
          accepts: (type, data) => mayReceive(policy, type, data),
          reports: include.has(REPORT_EVENT) && mayReceive(policy, REPORT_EVENT, ''),
          stillAllowed: () => stillAllowed(db, caller, farm.id),
          body,
          response: reply.raw,
        });
      } catch (err) {
        body.destroy();
        if (hub.isClosed()) {
          throw new AppError(
            'unavailable',
            'The server is shutting down; retry on another instance or shortly.',
          );
        }
        throw err;
      }
      // A stream lives as long as its client wants: the idle-connection timeout must not cut it (its
      // keep-alive comments would not count as activity everywhere).
      request.raw.socket.setTimeout(0);
      return (
        reply
          .header('content-type', 'text/event-stream; charset=utf-8')
          .header('cache-control', 'no-cache, no-transform')
          .header('x-accel-buffering', 'no')
          // The documented type is the stream's text; what is sent is the stream that carries it.
          .send(body as unknown as string)
      );
    },
  );
};
