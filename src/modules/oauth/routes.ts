/**
 * OAuth for MCP connectors (docs/oauth.md). The protocol endpoints, public and answering OAuth's own error
 * format: the protected resource metadata (RFC 9728), the authorization server metadata (RFC 8414), the
 * authorization endpoint (which checks the request and hands it to the console's consent page, /connect),
 * the token endpoint, registration (RFC 7591) and revocation (RFC 7009). And the console's API: the
 * consent (GET and POST /v1/oauth/authorization, a signed-in person only) and connected agents
 * (/v1/agents). The server's URLs are the ones the client reached it by (protocol and Host, behind a
 * trusted proxy its forwarded ones): the issuer is that origin, the resource its /mcp.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../db/schema.ts';
import { AppError } from '../../domain/errors.ts';
import { apiCaller } from '../../http/auth.ts';
import { described, errorResponses, IdParams } from '../../http/schemas.ts';
import { listAgents, revokeAgent } from './agents.ts';
import {
  type AuthorizationParams,
  checkAuthorizationRequest,
  RedirectedError,
} from './authorization-request.ts';
import { type ClientSettings, registerClient, registrationResponse } from './clients.ts';
import { consent, describeRequest } from './consent.ts';
import { OAuthError } from './errors.ts';
import type { FormFields } from './form-fields.ts';
import { revokeToken } from './revocation.ts';
import {
  AgentList,
  AgentRevoked,
  AuthorizationQuery,
  ConsentAnswer,
  ConsentBody,
  ConsentRequest,
} from './schemas.ts';
import { token } from './token-endpoint.ts';
import { serverUrls } from './urls.ts';

export interface OAuthRoutesOptions {
  db: Db;
  clock: () => number;
  /** FARMSTEAD_WEBHOOK_ALLOW_PRIVATE: client metadata documents may be on private addresses. */
  allowPrivate: boolean;
}

function urlsOf(request: FastifyRequest) {
  return serverUrls(`${request.protocol}://${request.host}`);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Answers an OAuthError in OAuth's format; anything else goes to the app's error handler. */
async function oauthAnswer<T>(reply: FastifyReply, work: () => Promise<T>): Promise<T | FastifyReply> {
  reply.header('cache-control', 'no-store');
  try {
    return await work();
  } catch (err) {
    if (err instanceof OAuthError) return reply.code(err.status).send(err.body());
    throw err;
  }
}

const FORM = 'application/x-www-form-urlencoded';

/** The protocol endpoints: no key, OAuth's error format. */
export const oauthRoutes: FastifyPluginAsyncTypebox<OAuthRoutesOptions> = async (
  app,
  { db, clock, allowPrivate },
) => {
  const settings: ClientSettings = { allowPrivate };
  const route = { config: { auth: 'none' as const }, schema: { hide: true } };

  // Browser-based MCP clients (MCP Inspector) read these from another origin: every answer may be read by
  // any origin (no cookies are involved: the metadata is public, and codes and tokens are bound by PKCE).
  app.addHook('onRequest', async (_request, reply) => {
    reply.header('access-control-allow-origin', '*');
  });
  for (const url of [
    '/.well-known/oauth-protected-resource',
    '/.well-known/oauth-protected-resource/mcp',
    '/.well-known/oauth-authorization-server',
    '/oauth/token',
    '/oauth/register',
    '/oauth/revoke',
  ]) {
    app.options(url, route, async (_request, reply) =>
      reply
        .code(204)
        .header('access-control-allow-methods', 'GET, POST')
        .header('access-control-allow-headers', 'content-type, mcp-protocol-version')
        .header('access-control-max-age', '600')
        .send(),
    );
  }

  // Token and revocation requests are forms (RFC 6749 §4.1.3); a repeated field stays a list so it is refused.
  app.addContentTypeParser(FORM, { parseAs: 'string' }, (_request, body, done) => {
    const fields: FormFields = {};
    for (const [name, value] of new URLSearchParams(body as string)) {
      const had = fields[name];
      fields[name] = had === undefined ? value : [had, value].flat();
    }
    done(null, fields);
  });
  const formOf = (request: FastifyRequest): FormFields => {
    if (!request.headers['content-type']?.toLowerCase().startsWith(FORM)) {
      throw new OAuthError('invalid_request', `Send the request as ${FORM} (RFC 6749).`);
    }
    return (request.body ?? {}) as FormFields;
  };

  const protectedResource = async (request: FastifyRequest) => {
    const urls = urlsOf(request);
    return {
      resource: urls.resource,
      authorization_servers: [urls.issuer],
      bearer_methods_supported: ['header'],
      resource_name: 'Farmstead',
      resource_documentation: `${urls.issuer}/docs/guide/mcp`,
    };
  };
  app.get('/.well-known/oauth-protected-resource', route, protectedResource);
  app.get('/.well-known/oauth-protected-resource/mcp', route, protectedResource);

  app.get('/.well-known/oauth-authorization-server', route, async (request) => {
    const { issuer } = urlsOf(request);
    return {
      issuer,
      authorization_endpoint: `${issuer}/oauth/authorize`,
      token_endpoint: `${issuer}/oauth/token`,
      registration_endpoint: `${issuer}/oauth/register`,
      revocation_endpoint: `${issuer}/oauth/revoke`,
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      revocation_endpoint_auth_methods_supported: ['none'],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
      service_documentation: `${issuer}/docs/guide/mcp`,
    };
  });

  app.get('/oauth/authorize', route, async (request, reply) => {
    reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
    try {
      await checkAuthorizationRequest(
        db,
        request.query as AuthorizationParams,
        urlsOf(request),
        settings,
        clock(),
      );
    } catch (err) {
      if (err instanceof RedirectedError) return reply.redirect(err.location, 302);
      if (err instanceof OAuthError) {
        // A person's browser gets a page; any other client the Error object.
        if (!request.headers.accept?.includes('text/html'))
          throw new AppError('invalid_request', err.message);
        return reply
          .code(400)
          .type('text/html; charset=utf-8')
          .send(
            `<!doctype html><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>Cannot connect</title><h1>This connection request cannot be used</h1><p>${escapeHtml(err.message)}</p>`,
          );
      }
      throw err;
    }
    const query = request.url.slice(request.url.indexOf('?'));
    return reply.redirect(`/connect${query}`, 302);
  });

  app.post('/oauth/token', route, async (request, reply) =>
    oauthAnswer(reply, () => token(db, formOf(request), urlsOf(request), clock())),
  );

  app.post('/oauth/register', route, async (request, reply) =>
    oauthAnswer(reply, async () => {
      const { client, createdAt } = await registerClient(db, request.body, clock());
      return reply.code(201).send(registrationResponse(client, createdAt));
    }),
  );

  app.post('/oauth/revoke', route, async (request, reply) =>
    oauthAnswer(reply, async () => {
      await revokeToken(db, formOf(request), clock());
      return reply.code(200).send();
    }),
  );
};

/** The console's side: the consent, and the connected agents. */
export const oauthConsoleRoutes: FastifyPluginAsyncTypebox<OAuthRoutesOptions> = async (
  app,
  { db, clock, allowPrivate },
) => {
  const settings: ClientSettings = { allowPrivate };
  const tags = ['Account'];
  const checked = async (request: FastifyRequest, params: AuthorizationParams) => {
    try {
      return await checkAuthorizationRequest(db, params, urlsOf(request), settings, clock());
    } catch (err) {
      // The consent page shows any problem with the request; nothing is redirected from here.
      if (err instanceof OAuthError) throw new AppError('invalid_request', err.message);
      throw err;
    }
  };

  app.get(
    '/v1/oauth/authorization',
    {
      schema: {
        operationId: 'getAuthorizationRequest',
        tags,
        summary:
          'What an MCP client asks for: its name, its redirect host, and what may be granted (console)',
        querystring: AuthorizationQuery,
        response: {
          200: described(ConsentRequest, 'The request, checked.'),
          ...errorResponses('invalid_request', 'unauthorized', 'forbidden'),
        },
      },
    },
    async (request) => describeRequest(db, apiCaller(request), await checked(request, request.query)),
  );

  app.post(
    '/v1/oauth/authorization',
    {
      schema: {
        operationId: 'answerAuthorizationRequest',
        tags,
        summary: 'Allow or deny an MCP client: farms, mode and level (console; a signed-in person only)',
        body: ConsentBody,
        response: {
          200: described(
            ConsentAnswer,
            'Where the browser goes next: the client’s redirect URI with the code (or access_denied), state and iss.',
          ),
          ...errorResponses('invalid_request', 'unauthorized', 'forbidden'),
        },
      },
    },
    async (request) => {
      const caller = apiCaller(request);
      const found = await checked(request, request.body.request);
      const { decision, mode, farms, level } = request.body;
      return consent(
        db,
        caller,
        found,
        {
          decision,
          ...(mode ? { mode } : {}),
          ...(farms !== undefined ? { farms } : {}),
          ...(level ? { level } : {}),
        },
        urlsOf(request),
        clock(),
      );
    },
  );

  app.get(
    '/v1/agents',
    {
      schema: {
        operationId: 'listAgents',
        tags,
        summary: 'Connected agents: the MCP clients people allowed, with their level and last use',
        response: {
          200: described(AgentList, 'Connected agents, newest first.'),
          ...errorResponses('unauthorized', 'forbidden'),
        },
      },
    },
    async (request) => listAgents(db, apiCaller(request)),
  );

  app.delete(
    '/v1/agents/:id',
    {
      schema: {
        operationId: 'revokeAgent',
        tags,
        summary: 'Disconnect an agent: its tokens stop working at the next call',
        params: IdParams,
        response: {
          200: described(AgentRevoked, 'The agent is disconnected.'),
          ...errorResponses('unauthorized', 'forbidden', { not_found: 'No connected agent with this id.' }),
        },
      },
    },
    async (request) => revokeAgent(db, apiCaller(request), request.params.id, clock()),
  );
};
