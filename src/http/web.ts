/**
 * What browsers and metered links need from the transport: CORS for the allow-listed origins
 * (FARMSTEAD_CORS_ORIGINS, none by default) and for every origin on the one route whose credential is in its
 * body (`openToAnyOrigin`), compressed responses (br or gzip, when asked and worth it),
 * and gzip request bodies (devices on metered links), whose decompressed size still counts against the
 * body limit (Fastify counts the bytes after the decompressing stream), so a gzip bomb is 413.
 */

import { constants as zlib } from 'node:zlib';
import compress from '@fastify/compress';
import cors from '@fastify/cors';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../domain/errors.ts';

/** Headers a browser app may read from our answers. */
const EXPOSED_HEADERS = [
  'request-id',
  'retry-after',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'ratelimit-policy',
  // A 401 from /mcp names the protected resource metadata, where a browser MCP client starts its OAuth.
  'www-authenticate',
];

/** Responses smaller than this are sent as they are: compressing them costs more than it saves. */
export const COMPRESS_THRESHOLD_BYTES = 1024;

export async function registerCors(app: FastifyInstance, origins: readonly string[]): Promise<void> {
  if (origins.length === 0) return;
  // The plugin's preflight route (OPTIONS *) needs no key: the route table declares it (PLUGIN_ROUTES).
  await app.register(cors, {
    origin: [...origins],
    methods: ['GET', 'POST', 'PATCH', 'DELETE'],
    allowedHeaders: ['authorization', 'content-type', 'content-encoding', 'idempotency-key'],
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 600,
  });
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** @fastify/cors's per-route switch: false, the allow-listed CORS leaves the route alone. */
    cors?: false;
  }
}

/** The header every answer of a route open to any origin carries (never with Allow-Credentials). */
async function anyOriginAnswer(_request: FastifyRequest, reply: FastifyReply, payload: unknown) {
  reply.header('access-control-allow-origin', '*');
  return payload;
}

/**
 * CORS open to every origin, for a route whose only credential travels in its body, never a cookie or a key
 * (a notification's acknowledge token): any page may call it, the ntfy web app's Acknowledge button among
 * them, and nothing a browser holds is sent or honoured (no Allow-Credentials). Declares the preflight
 * (OPTIONS at the URL, `auth: 'none'`, in the route table like any route) and returns the options to spread
 * into the route itself: every answer, errors included, allows any origin. The same with or without
 * FARMSTEAD_CORS_ORIGINS: the allow-listed CORS above leaves both alone (`cors: false`); no other route is
 * opened.
 */
export function openToAnyOrigin(app: FastifyInstance, url: string, method: 'POST') {
  app.options(
    url,
    { config: { auth: 'none', cors: false }, schema: { hide: true } },
    async (_request, reply) =>
      reply
        .code(204)
        .headers({
          'access-control-allow-origin': '*',
          'access-control-allow-methods': method,
          'access-control-allow-headers': 'content-type',
          'access-control-max-age': '600',
        })
        .send(),
  );
  return { config: { auth: 'none' as const, cors: false as const }, onSend: anyOriginAnswer };
}

/**
 * Brotli quality 5, not the plugin's 4: on this API's JSON (a catalog of 25 KB, a page of 100 records) quality
 * 4 came out larger than gzip, and 5 is 7–11% smaller for about the same time (about 1 ms for the catalog).
 */
const BROTLI_QUALITY = 5;

export async function registerCompression(app: FastifyInstance): Promise<void> {
  // Server-sent events (the live stream, MCP) are never compressed: the plugin's default types leave them out.
  await app.register(compress, {
    global: true,
    threshold: COMPRESS_THRESHOLD_BYTES,
    encodings: ['br', 'gzip'],
    brotliOptions: {
      params: {
        [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT,
        [zlib.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
      },
    },
    requestEncodings: ['gzip'],
    onUnsupportedRequestEncoding: (encoding) =>
      new AppError(
        'unsupported_media_type',
        `Request bodies may be compressed with Content-Encoding: gzip only, not "${encoding}".`,
      ),
  });
}
