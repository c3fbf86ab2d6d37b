/**
 * The authorization server's work (docs/oauth.md): checking an authorization request, the consent (a grant
 * and a one-time code), the token endpoint (authorization code with PKCE S256; refresh with rotation),
 * revocation (RFC 7009), and what the auth hook asks of an access token. Codes and tokens are random and
 * stored as SHA-256 hashes; a grant revoked here stops its tokens at the next call in every process (the
 * key cache is told, here and over the notification bus, as for a revoked API key).
 */
import { createHash } from 'node:crypto';
import type { ApiCaller, CachedApiKey } from '../../calls/callers.ts';
import { apiKeyCache, forgetApiKey } from '../../calls/key-cache.ts';
import type { Db } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import { AGENT_LEVELS, type AgentLevel, agentPolicy, policyWithin } from '../../domain/agent-access.ts';
import { AppError, invalid } from '../../domain/errors.ts';
import { ROLE_PRESETS } from '../../domain/permissions.ts';
import { hashSecret, type KeyMode, randomToken, sameSecret } from '../../lib/secrets.ts';
import { toIso } from '../../lib/time.ts';
import { CIMD_FRESH_MS, type ClientSettings, findClient, type OAuthClient } from './clients.ts';
import { OAuthError, UntrustedRequestError } from './errors.ts';
import {
  accountFarms,
  existingFarmIds,
  findAccessToken,
  findCode,
  findGrantWithClient,
  findRefreshToken,
  findTokenGrant,
  grantExists,
  insertGrantWithCode,
  insertTokenPair,
  listGrants,
  markCodeUsed,
  markRefreshUsed,
  pruneRows,
  revokeGrantRows,
  touchGrant,
} from './repository.ts';

/** Access tokens are short-lived; a client refreshes them. */
export const ACCESS_TOKEN_TTL_MS = 60 * 60 * 1000;
/** A refresh token not used for this long expires (each use replaces it with a new one). */
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** An authorization code is redeemed within this, once. */
export const CODE_TTL_MS = 60 * 1000;
const LAST_USED_EVERY_MS = 60 * 1000;

export const ACCESS_TOKEN_PREFIX = 'ro_';
const REFRESH_TOKEN_PREFIX = 'rr_';
const CODE_PREFIX = 'rc_';

/** Where this server is, as the client reached it: the issuer, and the MCP endpoint as the resource. */
export interface ServerUrls {
  issuer: string;
  resource: string;
}

export function serverUrls(origin: string): ServerUrls {
  return { issuer: origin, resource: `${origin}/mcp` };
}

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

/** The redirect an authorization request ends with: the code (or error), state and iss (RFC 9207). */
export function redirectWith(
  redirectUri: string,
  params: Record<string, string>,
  state: string | null,
  issuer: string,
): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  if (state !== null) url.searchParams.set('state', state);
  url.searchParams.set('iss', issuer);
  return url.toString();
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
  if (typeof redirectUri !== 'string' || !client.redirectUris.includes(redirectUri)) {
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

/** What the consent page shows about a request. */
export async function describeRequest(db: Db, caller: ApiCaller, checked: CheckedRequest) {
  const session = requirePerson(caller);
  const farms = await accountFarms(db, caller.accountId);
  const role = ROLE_PRESETS[session.role];
  return {
    client: {
      client_id: checked.client.clientId,
      name: checked.client.name,
      redirect_host: new URL(checked.redirectUri).host || checked.redirectUri,
      registration: checked.client.kind === 'cimd' ? ('metadata_document' as const) : ('dynamic' as const),
      // A metadata document's host vouches for the client (the CIMD draft asks to show it); a registration has none.
      published_by: checked.client.kind === 'cimd' ? new URL(checked.client.clientId).host : null,
    },
    farms: farms.map((f) => ({ id: f.id, name: f.name, mode: f.mode })),
    mode: caller.mode,
    levels: (Object.keys(AGENT_LEVELS) as AgentLevel[])
      .filter((level) => policyWithin(agentPolicy(level), role))
      .map((level) => ({ level, title: AGENT_LEVELS[level].title })),
  };
}

function requirePerson(caller: ApiCaller): NonNullable<ApiCaller['session']> {
  if (!caller.session) {
    throw new AppError(
      'forbidden',
      'Only a person signed in to the console can connect an agent; an API key cannot grant access.',
    );
  }
  return caller.session;
}

export interface ConsentInput {
  decision: 'allow' | 'deny';
  mode?: KeyMode;
  farms?: string[] | null;
  level?: AgentLevel;
}

/** The person's answer: a grant and a one-time code (allow), or access_denied; either way, where to go. */
export async function consent(
  db: Db,
  caller: ApiCaller,
  checked: CheckedRequest,
  input: ConsentInput,
  urls: ServerUrls,
  now: number,
): Promise<{ redirect_to: string }> {
  const session = requirePerson(caller);
  if (input.decision === 'deny') {
    return {
      redirect_to: redirectWith(
        checked.redirectUri,
        { error: 'access_denied', error_description: 'The person did not allow access.' },
        checked.state,
        urls.issuer,
      ),
    };
  }
  const level = input.level;
  if (!level || !(level in AGENT_LEVELS)) throw invalid('level', 'level must be read, record or full.');
  if (!policyWithin(agentPolicy(level), ROLE_PRESETS[session.role])) {
    throw new AppError(
      'forbidden',
      `A ${session.role} cannot let an agent do more than they may do themselves; choose read.`,
      {
        param: 'level',
      },
    );
  }
  const mode = input.mode ?? caller.mode;
  const farms = input.farms ?? null;
  if (farms !== null) {
    if (farms.length === 0) throw invalid('farms', 'Pick at least one farm (or every farm).');
    const found = await existingFarmIds(db, caller.accountId, mode, farms);
    const missing = farms.find((id) => !found.has(id));
    if (missing) throw invalid('farms', `No ${mode} farm with id "${missing}" in this account.`);
  }
  const code = `${CODE_PREFIX}${randomToken(32)}`;
  await inTransaction(db, (trx) =>
    insertGrantWithCode(
      trx,
      {
        id: `agt_${randomToken(20)}`,
        account_id: caller.accountId,
        person_id: session.personId,
        client_row_id: checked.client.rowId,
        client_name: checked.client.name,
        redirect_uri: checked.redirectUri,
        resource: checked.resource,
        mode,
        farms: farms === null ? null : JSON.stringify([...new Set(farms)]),
        level,
        created_at: now,
        last_used_at: null,
        revoked_at: null,
      },
      { code_hash: hashSecret(code), code_challenge: checked.codeChallenge, expires_at: now + CODE_TTL_MS },
    ),
  );
  return { redirect_to: redirectWith(checked.redirectUri, { code }, checked.state, urls.issuer) };
}

/** The form fields of a token or revocation request. */
export type FormFields = Record<string, string | string[] | undefined>;

function field(form: FormFields, name: string): string | undefined {
  const value = form[name];
  if (Array.isArray(value)) throw new OAuthError('invalid_request', `${name} is sent more than once.`);
  return value;
}

function required(form: FormFields, name: string): string {
  const value = field(form, name);
  if (value === undefined || value === '') throw new OAuthError('invalid_request', `${name} is required.`);
  return value;
}

const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

export interface TokenAnswer {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
}

async function issueTokens(trx: Db, grantId: string, now: number): Promise<TokenAnswer> {
  const access = `${ACCESS_TOKEN_PREFIX}${randomToken(32)}`;
  const refresh = `${REFRESH_TOKEN_PREFIX}${randomToken(40)}`;
  await insertTokenPair(
    trx,
    grantId,
    { hash: hashSecret(access), expiresAt: now + ACCESS_TOKEN_TTL_MS },
    { hash: hashSecret(refresh), expiresAt: now + REFRESH_TOKEN_TTL_MS },
  );
  return {
    access_token: access,
    token_type: 'Bearer',
    expires_in: Math.floor(ACCESS_TOKEN_TTL_MS / 1000),
    refresh_token: refresh,
  };
}

const invalidGrant = (message: string) => new OAuthError('invalid_grant', message);

/** A failure that must still commit (a grant revoked because a code or refresh token came back). */
class RevokedOnReuse extends Error {
  readonly grantId: string;
  readonly failure: OAuthError;
  constructor(grantId: string, failure: OAuthError) {
    super(failure.message);
    this.grantId = grantId;
    this.failure = failure;
  }
}

/** The token endpoint (RFC 6749 §3.2, §4.1.3, §6; RFC 7636 §4.6; RFC 8707 §2.2). */
export async function token(db: Db, form: FormFields, urls: ServerUrls, now: number): Promise<TokenAnswer> {
  const grantType = required(form, 'grant_type');
  if (grantType !== 'authorization_code' && grantType !== 'refresh_token') {
    throw new OAuthError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token.');
  }
  const clientId = required(form, 'client_id');
  const resource = field(form, 'resource');
  if (resource !== undefined && resource !== urls.resource) {
    throw new OAuthError('invalid_target', `This server issues tokens only for resource "${urls.resource}".`);
  }
  const secret =
    grantType === 'authorization_code' ? required(form, 'code') : required(form, 'refresh_token');
  const redirectUri = grantType === 'authorization_code' ? required(form, 'redirect_uri') : null;
  const verifier = grantType === 'authorization_code' ? required(form, 'code_verifier') : null;
  let revokedGrant: string | null = null;
  try {
    return await inTransaction(db, async (trx) => {
      const grant = (grantId: string) => findGrantWithClient(trx, grantId);
      if (grantType === 'authorization_code') {
        const code = await findCode(trx, hashSecret(secret));
        const found = code && (await grant(code.grant_id));
        if (!code || !found || found.revoked_at !== null)
          throw invalidGrant('This authorization code is not valid: unknown, revoked or already used.');
        if (found.client_id !== clientId)
          throw invalidGrant('This authorization code was issued to another client.');
        if (code.used_at !== null) {
          // RFC 6749 §4.1.2: a code used twice revokes what it gave.
          throw new RevokedOnReuse(
            found.id,
            invalidGrant('This authorization code was already used; the access it gave is revoked.'),
          );
        }
        if (code.expires_at <= now)
          throw invalidGrant('This authorization code has expired; authorize again.');
        if (redirectUri !== found.redirect_uri)
          throw invalidGrant('redirect_uri differs from the one of the authorization request.');
        if (!verifier || !VERIFIER.test(verifier)) {
          throw new OAuthError(
            'invalid_request',
            'code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~.',
          );
        }
        const challenge = createHash('sha256').update(verifier).digest('base64url');
        if (!sameSecret(challenge, code.code_challenge))
          throw invalidGrant('code_verifier does not match the code_challenge (PKCE).');
        if (!(await markCodeUsed(trx, code.code_hash, now)))
          throw invalidGrant('This authorization code was already used.');
        return issueTokens(trx, found.id, now);
      }
      const row = await findRefreshToken(trx, hashSecret(secret));
      const found = row && (await grant(row.grant_id));
      if (!row || !found || found.revoked_at !== null)
        throw invalidGrant('This refresh token is not valid: unknown or revoked.');
      if (found.client_id !== clientId)
        throw invalidGrant('This refresh token was issued to another client.');
      if (row.used_at !== null) {
        // A rotated refresh token came back: someone holds a copy. Revoke the grant (OAuth 2.1 §4.3.1).
        throw new RevokedOnReuse(
          found.id,
          invalidGrant(
            'This refresh token was already used (rotated); the grant is revoked. Authorize again.',
          ),
        );
      }
      if (row.expires_at <= now) throw invalidGrant('This refresh token has expired; authorize again.');
      if (!(await markRefreshUsed(trx, row.token_hash, now)))
        throw invalidGrant('This refresh token was already used.');
      return issueTokens(trx, found.id, now);
    });
  } catch (err) {
    if (!(err instanceof RevokedOnReuse)) throw err;
    await inTransaction(db, (trx) => revokeGrantRows(trx, err.grantId, now));
    revokedGrant = err.grantId;
    throw err.failure;
  } finally {
    if (revokedGrant) forgetApiKey(revokedGrant);
  }
}

/**
 * Revocation (RFC 7009): an access or refresh token ends its grant (the connected agent) and every token of
 * it. An unknown token, or one of another client, is answered the same (200) and changes nothing.
 */
export async function revokeToken(db: Db, form: FormFields, now: number): Promise<void> {
  const secret = required(form, 'token');
  const clientId = field(form, 'client_id');
  const grantId = await inTransaction(db, async (trx) => {
    const row = await findTokenGrant(trx, hashSecret(secret));
    if (!row || (clientId !== undefined && row.client_id !== clientId)) return null;
    await revokeGrantRows(trx, row.id, now);
    return row.id;
  });
  if (grantId) forgetApiKey(grantId);
}

/** What an access token authenticates as; `agent` says it is one (and to which resource it is bound). */
export type AgentLookup = CachedApiKey & { agent: NonNullable<CachedApiKey['agent']> };

const lastTouched = new Map<string, number>();

/** Looks up an access token (through the key cache); null when unknown, expired or revoked. */
export async function authenticateAccessToken(
  db: Db,
  accessToken: string,
  now: number,
): Promise<AgentLookup | null> {
  const hash = hashSecret(accessToken);
  const found = await apiKeyCache.lookup(db, hash, async () => {
    const row = await findAccessToken(db, hash);
    if (!row) return null;
    const policy = agentPolicy(row.level);
    const value: AgentLookup = {
      accountId: row.account_id,
      keyId: row.id,
      keyName: `agent ${row.client_name}`,
      mode: row.mode,
      prefix: 'oauth',
      grants: policy.families,
      farms: row.farms === null ? null : (JSON.parse(row.farms) as string[]),
      policy,
      session: null,
      lastUsedAt: row.last_used_at,
      agent: {
        grantId: row.id,
        clientName: row.client_name,
        resource: row.resource,
        expiresAt: row.expires_at,
      },
    };
    return { value, id: row.id };
  });
  if (!found?.agent || found.agent.expiresAt <= now) return null;
  const last = Math.max(lastTouched.get(found.keyId) ?? 0, found.lastUsedAt ?? 0);
  if (now - last >= LAST_USED_EVERY_MS) {
    if (lastTouched.size >= 10_000) lastTouched.clear();
    lastTouched.set(found.keyId, now);
    await touchGrant(db, found.keyId, now);
  }
  return found as AgentLookup;
}

/** Who may see and revoke connected agents: a key with the keys family, an owner (all), anyone else (their own). */
function agentScope(caller: ApiCaller): { personId: string | null; write: boolean } {
  if (caller.session) {
    return caller.session.role === 'owner'
      ? { personId: null, write: true }
      : { personId: caller.session.personId, write: true };
  }
  const level = caller.policy.families.keys;
  if (!level)
    throw new AppError('forbidden', 'This key lacks the keys permission, which connected agents need.');
  return { personId: null, write: level === 'write' };
}

/** The account's connected agents (grants not revoked), newest first. */
export async function listAgents(db: Db, caller: ApiCaller) {
  const scope = agentScope(caller);
  const rows = await listGrants(db, caller.accountId, scope.personId);
  return {
    data: rows.map((r) => ({
      id: r.id,
      client_name: r.client_name,
      redirect_host: new URL(r.redirect_uri).host || r.redirect_uri,
      mode: r.mode,
      farms: r.farms === null ? null : (JSON.parse(r.farms) as string[]),
      level: r.level,
      connected_by: r.email,
      created_at: toIso(r.created_at),
      last_used_at: toIso(r.last_used_at),
    })),
  };
}

/** Revokes a connected agent: its tokens stop working at the next call, in every process. */
export async function revokeAgent(db: Db, caller: ApiCaller, id: string, now: number) {
  const scope = agentScope(caller);
  if (!scope.write)
    throw new AppError('forbidden', 'This key can read connected agents but not revoke them (keys:write).');
  const done = await inTransaction(db, async (trx) => {
    if (!(await grantExists(trx, caller.accountId, id, scope.personId))) return false;
    await revokeGrantRows(trx, id, now);
    return true;
  });
  if (!done) throw new AppError('not_found', `No connected agent with id "${id}".`);
  forgetApiKey(id);
  return { id, revoked_at: toIso(now) };
}

/**
 * The `oauth.prune` job: expired codes and tokens, then grants left with neither (revoked, expired, or
 * consented to but never redeemed) a day on, and cached client metadata documents no grant uses once stale.
 * Registered (DCR) clients stay: a client keeps its client_id and comes back with it.
 */
export function pruneOAuth(db: Db, now: number) {
  return pruneRows(db, now, now - CIMD_FRESH_MS);
}
