/**
 * The MCP server at /mcp on the main listener: Streamable HTTP, stateless, both protocol eras (the
 * 2025 `initialize` handshake and 2026-07-28 per-request envelopes), served by the SDK's fetch-shaped
 * handler. Fastify does what it does for every route first: the API key (401 with WWW-Authenticate),
 * usage counted under `mcp`, JSON body parsing and size limit; this route adds the Origin check and
 * hands the parsed request to the SDK, which builds a fresh server for the key on each request. The SDK
 * and the tools are loaded on the first MCP request, so a process that never serves MCP (most test apps, a
 * CLI run) never loads them (about 0.2 s of CPU); src/http/route-table.test.ts loads them to compile every
 * tool schema.
 */
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { Db } from '../../db/schema.ts';
import { AppError } from '../../domain/errors.ts';
import { apiCaller, bearerToken } from '../../http/auth.ts';
import { isOriginAllowed, ownOrigin } from './origin.ts';
import { rpcParamsError } from './rpc-params.ts';
import type { ToolContext } from './tool.ts';
import { parseToolsets } from './toolsets.ts';

/** The first protocol revision with structuredContent in tool results. */
const STRUCTURED_CONTENT_SINCE = '2025-06-18';

export interface McpRoutesOptions {
  db: Db;
  /** Browser origins allowed besides the server's own (FARMSTEAD_MCP_ALLOWED_ORIGINS). */
  allowedOrigins: readonly string[];
  commandExpirySeconds: number;
  commandRedeliverSeconds: number;
  /** FARMSTEAD_MCP_READ_ONLY: offer no tool that changes anything. */
  readOnly: boolean;
}

/** Where the tool context rides in AuthInfo.extra from the route to the server factory. */
const TOOL_CONTEXT = 'farmstead.toolContext';

function toWebRequest(request: FastifyRequest, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else headers.set(name, String(value));
  }
  // The body is re-serialised from the parsed JSON, so the original framing no longer applies.
  headers.delete('content-length');
  headers.delete('transfer-encoding');
  const hasBody = request.method === 'POST' && request.body !== undefined;
  return new Request(`${request.protocol}://${request.host}${request.url}`, {
    method: request.method,
    headers,
    signal,
    ...(hasBody ? { body: JSON.stringify(request.body) } : {}),
  });
}

async function loadHandler(app: FastifyInstance) {
  const [{ createMcpHandler }, { createMcpServer }] = await Promise.all([
    import('@modelcontextprotocol/server'),
    import('./server.ts'),
  ]);
  return createMcpHandler(
    (ctx) => {
      const toolContext = ctx.authInfo?.extra?.[TOOL_CONTEXT] as ToolContext | undefined;
      // The route always passes it; a request without one would be a wiring bug, never anonymous access.
      if (!toolContext) throw new Error('MCP server requested without an authenticated caller');
      return createMcpServer(toolContext);
    },
    { onerror: (err) => app.log.debug({ err }, 'MCP request refused by the protocol layer') },
  );
}

export const mcpRoutes: FastifyPluginAsync<McpRoutesOptions> = async (app, options) => {
  let loaded: ReturnType<typeof loadHandler> | undefined;
  const handlerOf = () => {
    loaded ??= loadHandler(app);
    return loaded;
  };
  app.addHook('onClose', async () => {
    if (loaded) await (await loaded).close();
  });

  // POST only: the server is stateless, with no SSE stream to GET and no session to DELETE (405).
  app.route({
    method: 'POST',
    url: '/mcp',
    // Tool calls take idempotency_key as an argument instead of the header.
    config: { surface: 'mcp', idempotency: false, oauth: true },
    schema: { hide: true },
    onRequest: async (request) => {
      const origin = request.headers.origin;
      if (!isOriginAllowed(origin, ownOrigin(request.protocol, request.host), options.allowedOrigins)) {
        throw new AppError(
          'forbidden',
          `Requests from the web origin ${JSON.stringify(origin)} may not use the MCP server. Call it from an MCP client (no Origin header), from this server's own origin, or ask the operator to add the origin to FARMSTEAD_MCP_ALLOWED_ORIGINS.`,
        );
      }
    },
    handler: async (request, reply) => {
      const paramsError = rpcParamsError(request.body);
      if (paramsError) return reply.code(200).send(paramsError);
      const caller = apiCaller(request);
      const query = request.query as Record<string, unknown> | undefined;
      const asked = typeof query?.toolsets === 'string' ? query.toolsets : request.headers['x-mcp-toolsets'];
      const toolsets = parseToolsets(Array.isArray(asked) ? asked.join(',') : asked);
      const version = request.headers['mcp-protocol-version'];
      const toolContext: ToolContext = {
        db: options.db,
        scope: { accountId: caller.accountId, mode: caller.mode, farms: caller.farms, policy: caller.policy },
        policy: caller.policy,
        keyId: caller.keyId,
        personId: caller.session?.personId ?? caller.agent?.personId ?? null,
        log: request.log,
        commandExpirySeconds: options.commandExpirySeconds,
        commandRedeliverSeconds: options.commandRedeliverSeconds,
        readOnly: options.readOnly,
        toolsets,
        // structuredContent came with 2025-06-18; an older client gets the JSON as text.
        structured: typeof version !== 'string' || version >= STRUCTURED_CONTENT_SINCE,
      };
      const authInfo: AuthInfo = {
        token: bearerToken(request.headers.authorization) ?? '',
        clientId: caller.keyId,
        scopes: [],
        extra: { [TOOL_CONTEXT]: toolContext },
      };
      const abort = new AbortController();
      reply.raw.once('close', () => abort.abort());
      let response: Response;
      try {
        const handler = await handlerOf();
        response = await handler.fetch(toWebRequest(request, abort.signal), {
          authInfo,
          ...(request.body !== undefined ? { parsedBody: request.body } : {}),
        });
      } catch (err) {
        // The client went away mid-request: nobody is left to answer, and it is not a server fault.
        if (abort.signal.aborted) return reply.hijack();
        throw err;
      }
      reply.code(response.status);
      response.headers.forEach((value, name) => {
        reply.header(name, value);
      });
      if (!response.body) return reply.send();
      if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
        return reply.send(Readable.fromWeb(response.body as NodeReadableStream));
      }
      return reply.send(await response.text());
    },
  });
};
