/**
 * Checking an authorization request (RFC 6749 §4.1.1, RFC 7636 §4.3, RFC 8707 §2) before the consent page
 * shows it: who the client is, where it goes back to, PKCE S256, and the one resource tokens are for.
 */
import type { Db } from '../../db/schema.ts';
import { type ClientSettings, findClient, isRegisteredRedirect, type OAuthClient } from './clients.ts';
import { OAuthError, UntrustedRequestError } from './errors.ts';
import { redirectWith, type ServerUrls } from './urls.ts';

/** The parameters of an authorization request (RFC 6749 §4.1.1, RFC 7636 §4.3, RFC 8707 §2). */
export interface AuthorizationParams {
  response_type?: string;
  client_id?: string;
  redirect_uri?: string;
  state?: string;
  scope?: string;
  code_challenge?: string;
  code_challenge_method?: string;
  resource?: string | string[];
}

export interface CheckedRequest {
  client: OAuthClient;
  redirectUri: string;
  state: string | null;
  codeChallenge: string;
  resource: string;
}

/** An error that goes back to a trusted redirect URI. */
export class RedirectedError extends OAuthError {
  readonly location: string;
  constructor(
    error: string,
    description: string,
    checked: Pick<CheckedRequest, 'redirectUri' | 'state'>,
    issuer: string,
  ) {
    super(error, description);
    this.location = redirectWith(
      checked.redirectUri,
      { error, error_description: description },
      checked.state,
      issuer,
    );
  }
}

const CHALLENGE = /^[A-Za-z0-9\-._~]{43,128}$/;

/**
 * Checks an authorization request. A client or redirect URI that is not known throws UntrustedRequestError
 * (shown, never redirected: RFC 6749 §4.1.2.1); any other problem a RedirectedError.
 */
export async function checkAuthorizationRequest(
  db: Db,
  params: AuthorizationParams,
  urls: ServerUrls,
  settings: ClientSettings,
  now: number,
): Promise<CheckedRequest> {
  const clientId = params.client_id;
  if (typeof clientId !== 'string' || clientId === '') {
    throw new UntrustedRequestError(
      'invalid_request',
      'client_id is missing: the MCP client must say who it is.',
    );
  }
  const client = await findClient(db, clientId, settings, now);
  if (!client) {
    throw new UntrustedRequestError(
      'invalid_client',
      `No client "${clientId}" is registered here. Register it first (POST /oauth/register), or use an https client_id with a client metadata document.`,
    );
  }
  let redirectUri = params.redirect_uri;
  if (redirectUri === undefined && client.redirectUris.length === 1) redirectUri = client.redirectUris[0];
  if (typeof redirectUri !== 'string' || !isRegisteredRedirect(client, redirectUri)) {
    throw new UntrustedRequestError(
      'invalid_request',
      `redirect_uri ${JSON.stringify(redirectUri ?? null)} is not one of the redirect URIs registered for ${client.name}.`,
    );
  }
  const state = typeof params.state === 'string' ? params.state : null;
  const back = { redirectUri, state };
  const fail = (error: string, description: string) =>
    new RedirectedError(error, description, back, urls.issuer);
  if (params.response_type !== 'code') {
    throw fail(
      'unsupported_response_type',
      'response_type must be "code": only the authorization code flow is offered.',
    );
  }
  if (typeof params.code_challenge !== 'string' || params.code_challenge === '') {
    throw fail(
      'invalid_request',
      'code_challenge is required: this server requires PKCE (RFC 7636) with S256.',
    );
  }
  if (params.code_challenge_method !== 'S256') {
    throw fail(
      'invalid_request',
      `code_challenge_method must be "S256"${params.code_challenge_method ? `, not "${params.code_challenge_method}"` : ' (the "plain" default is not accepted)'}.`,
    );
  }
  if (!CHALLENGE.test(params.code_challenge)) {
    throw fail(
      'invalid_request',
      'code_challenge must be the base64url SHA-256 of the code verifier (43 characters).',
    );
  }
  const resources = params.resource === undefined ? [] : [params.resource].flat();
  if (resources.some((r) => r !== urls.resource)) {
    throw fail(
      'invalid_target',
      `This server issues tokens only for its MCP endpoint, resource "${urls.resource}".`,
    );
  }
  return { client, redirectUri, state, codeChallenge: params.code_challenge, resource: urls.resource };
}
