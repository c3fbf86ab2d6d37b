/**
 * Authentication, decided per route by `config.auth`:
 *  - 'api' (default): an API key `rk_live_…` / `rk_test_…`, or a console session cookie
 *    (`farmstead_session`, modules/people) when no Authorization header is sent: the person acts with the
 *    account, the session's mode and their role's policy (ROLE_PRESETS), and every write must carry the
 *    session's CSRF token in `X-CSRF-Token`;
 *    On routes marked `oauth` (the MCP endpoint) an OAuth access token `ro_…` (modules/oauth) works too:
 *    it acts with its grant's account, mode, farms and policy, only for the resource it was issued for
 *    (RFC 8707), and those routes' 401s name the protected resource metadata (RFC 9728);
 *  - 'device': a device key `rd_…` (device endpoints only);
 *  - 'none': public (catalog, health, OpenAPI).
 * Keys are looked up by their SHA-256 hash, through a short-lived per-process cache (src/calls/key-cache.ts)
 * that revocation, rotation and deletion clear at once in this process and, by notification, in every other.
 */
import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type {
  ActiveApiKey,
  AgentIdentity,
  ApiCaller,
  CachedApiKey,
  DeviceCaller,
  SessionIdentity,
  SessionLookup,
} from '../calls/callers.ts';
import { apiKeyCache, deviceKeyCache, KeyChangeListener } from '../calls/key-cache.ts';
import type { Db } from '../db/schema.ts';
import { AppError } from '../domain/errors.ts';
import { type Policy, ROLE_PRESETS } from '../domain/permissions.ts';
import type { Surface } from '../domain/usage.ts';
import { hashSecret, sameSecret } from '../lib/secrets.ts';
import { MINUTE_MS } from '../lib/time.ts';
import { checkAccess } from './permissions.ts';
import type { LimitKind, RateLimiter } from './rate-limit.ts';

export type AuthKind = 'api' | 'device' | 'none';

/** Looks up an OAuth access token; installed by the oauth module so auth stays in one place. */
export type AgentAuthenticator = (
  db: Db,
  token: string,
  now: number,
) => Promise<(CachedApiKey & { agent: AgentIdentity }) | null>;

/** Looks up a session token; installed by the people module so auth stays in one place. */
export type SessionAuthenticator = (db: Db, token: string, now: number) => Promise<SessionLookup | null>;

/** The console's session cookie. */
export const SESSION_COOKIE = 'farmstead_session';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The session token a request's Cookie header carries, or null. */
export function sessionToken(request: FastifyRequest): string | null {
  const header = request.headers.cookie;
  if (!header) return null;
  const token = parseCookie(header)[SESSION_COOKIE];
  return token ? token : null;
}

/** A Set-Cookie value clearing the session cookie (sign-out, or a cookie that no longer works). */
export function clearedSessionCookie(secure: boolean): string {
  return stringifySetCookie({
    name: SESSION_COOKIE,
    value: '',
    maxAge: 0,
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure,
  });
}

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthKind;
    /** Accepts OAuth access tokens for this route's URL as their resource (the MCP endpoint). */
    oauth?: boolean;
    /** Usage surface this route counts under (default 'api', device routes 'ingest'). */
    surface?: Surface;
  }
  interface FastifyRequest {
    caller: ApiCaller | DeviceCaller | null;
  }
}

export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

function unauthorized(message: string): AppError {
  return new AppError('unauthorized', message);
}

/** Touches last_used_at at most once a minute per key and process, so reads do not become writes. */
class LastUsedTracker {
  private readonly touched = new Map<string, number>();
  private readonly db: Db;
  private readonly keys: ApiKeyStore;
  constructor(db: Db, keys: ApiKeyStore) {
    this.db = db;
    this.keys = keys;
  }
  async touch(
    keyId: string,
    lastUsedAt: number | null,
    now: number,
    log: FastifyRequest['log'],
  ): Promise<void> {
    const last = Math.max(this.touched.get(keyId) ?? 0, lastUsedAt ?? 0);
    if (now - last < MINUTE_MS) return;
    this.touched.set(keyId, now);
    try {
      await this.keys.markUsed(this.db, keyId, now);
    } catch (err) {
      log.warn({ err }, 'could not record key use');
    }
  }
}

/**
 * The API keys' two queries: finding a key by its hash, and recording its use. Installed by the keys
 * module (modules/keys/repository.ts), as the device and session authenticators are, so auth imports no
 * module.
 */
export interface ApiKeyStore {
  findByHash(db: Db, hash: string): Promise<ActiveApiKey | null>;
  markUsed(db: Db, keyId: string, at: number): Promise<void>;
}

async function authenticateApiKey(db: Db, keys: ApiKeyStore, token: string | null): Promise<CachedApiKey> {
  if (!token) {
    throw unauthorized('Send your API key in the header "Authorization: Bearer rk_live_…" (or rk_test_…).');
  }
  if (token.startsWith('rd_')) {
    throw unauthorized('This is a device key; it can only call the device endpoints. Use an API key (rk_…).');
  }
  if (!/^rk_(live|test)_[0-9A-Za-z]+$/.test(token)) {
    throw unauthorized('That is not an API key: API keys start with rk_live_ or rk_test_.');
  }
  const hash = hashSecret(token);
  const key = await apiKeyCache.lookup(db, hash, async () => {
    const found = await keys.findByHash(db, hash);
    if (!found) return null;
    const value: CachedApiKey = { ...found, policy: { families: found.grants }, session: null };
    return { value, id: found.keyId };
  });
  if (!key) throw unauthorized('This API key is not valid: it is unknown or has been revoked.');
  return key;
}

/** Looks up a device key; installed by the devices module so auth stays in one place. */
export type DeviceAuthenticator = (db: Db, token: string) => Promise<Omit<DeviceCaller, 'kind'> | null>;

/** What authentication is given: the lookups the modules install, the limiter, the usage counter. */
export interface AuthDeps {
  db: Db;
  /** Counts each authenticated call (modules/usage's UsageCounter). */
  usage: { count(accountId: string, surface: Surface, at: number): void };
  apiKeys: ApiKeyStore;
  deviceAuthenticator?: DeviceAuthenticator;
  sessionAuthenticator?: SessionAuthenticator;
  agentAuthenticator?: AgentAuthenticator;
  /** The sessions' clock (idle expiry); Date.now unless a test injects one. */
  clock?: () => number;
  /** Derives a session's CSRF token from its cookie token. */
  csrfTokenOf?: (token: string) => string;
  /** Null or absent: no rate limits (FARMSTEAD_RATE_LIMIT=off). */
  limiter?: RateLimiter | null;
  /** PostgreSQL: where to LISTEN for keys revoked by other processes (src/calls/key-cache.ts). */
  databaseUrl?: string | null;
}

/** What each credential's check is handed: the deps, the sessions' clock and the last-used tracker. */
interface AuthContext {
  deps: AuthDeps;
  clock: () => number;
  lastUsed: LastUsedTracker;
}

export function registerAuth(app: FastifyInstance, deps: AuthDeps): void {
  const context: AuthContext = {
    deps,
    clock: deps.clock ?? Date.now,
    lastUsed: new LastUsedTracker(deps.db, deps.apiKeys),
  };
  const keyChanges = new KeyChangeListener(deps.databaseUrl ?? null, (err) =>
    app.log.warn({ err }, 'key revocation notifications: connection lost; reconnecting'),
  );
  app.addHook('onClose', async () => keyChanges.close());
  app.decorateRequest('caller', null);
  addChallenge(app);

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    // Unmatched routes fall to the 404 handler, which needs no key.
    if (!request.routeOptions.url) return;
    const auth = request.routeOptions.config.auth ?? 'api';
    if (auth === 'none') return;
    keyChanges.ensure();
    try {
      if (auth === 'device') await byDeviceKey(context, request, reply);
      else await byApiCredential(context, request, reply);
    } catch (err) {
      await limitFailure(context, request, reply, err);
      throw err;
    }
  });
}

/**
 * Only a 401 asks for credentials (RFC 9110 §11.6.1); successful answers carry no challenge.
 * On an OAuth-protected route it names the protected resource metadata, where an MCP client starts.
 */
function addChallenge(app: FastifyInstance): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    if (reply.statusCode === 401) {
      const url = request.routeOptions.url;
      if (url && request.routeOptions.config.oauth) {
        const metadata = `${request.protocol}://${request.host}/.well-known/oauth-protected-resource${url}`;
        const invalid = request.headers.authorization ? ', error="invalid_token"' : '';
        reply.header('www-authenticate', `Bearer resource_metadata="${metadata}"${invalid}`);
      } else reply.header('www-authenticate', 'Bearer');
    }
    done(null, payload);
  });
}

/** A route taking an API key: which credential the request carries decides who checks it. */
async function byApiCredential(context: AuthContext, request: FastifyRequest, reply: FastifyReply) {
  // A bearer header wins over a cookie: a script's key is never overridden by a browser's session.
  if (!request.headers.authorization && context.deps.sessionAuthenticator) {
    const token = sessionToken(request);
    if (token !== null) return bySession(context, request, reply, token);
  }
  const token = bearerToken(request.headers.authorization);
  if (request.routeOptions.config.oauth && !token) {
    throw unauthorized(
      'Sign in to use this MCP server. An MCP client with OAuth (Claude, ChatGPT, MCP Inspector…) finds the sign-in from the resource_metadata of the WWW-Authenticate header and opens Farmstead’s consent page; add the server by its URL alone. Scripts can send an API key instead: "Authorization: Bearer rk_live_…" (or rk_test_…).',
    );
  }
  if (token?.startsWith('ro_')) return byAccessToken(context, request, reply, token);
  return byApiKey(context, request, reply, token);
}

/** A device key `rd_…`, on the device endpoints. */
async function byDeviceKey(
  context: AuthContext,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  const token = bearerToken(request.headers.authorization);
  if (!token) throw unauthorized('Send the device key in the header "Authorization: Bearer rd_…".');
  if (!token.startsWith('rd_')) {
    throw unauthorized('This endpoint takes a device key (rd_…), not an API key.');
  }
  const { db, deviceAuthenticator: authenticator } = context.deps;
  const device = authenticator
    ? await deviceKeyCache.lookup(db, hashSecret(token), async () => {
        const found = await authenticator(db, token);
        return found && { value: found, id: found.deviceId, farmId: found.farmId };
      })
    : null;
  if (!device) throw unauthorized('This device key is not valid: it is unknown or has been rotated.');
  request.caller = { kind: 'device', ...device };
  logWith(request, reply, { device: device.deviceId });
  await limitCaller(context, 'device', device.deviceId, reply);
  countUsage(context, request, device.accountId, Date.now(), 'ingest');
}

/** An API key `rk_live_…` / `rk_test_…` (or none: the 401 says what to send). */
async function byApiKey(
  context: AuthContext,
  request: FastifyRequest,
  reply: FastifyReply,
  token: string | null,
): Promise<void> {
  const now = Date.now();
  const { lastUsedAt, ...caller } = await authenticateApiKey(context.deps.db, context.deps.apiKeys, token);
  request.caller = { kind: 'api', ...caller };
  logWith(request, reply, { key: caller.prefix });
  await limitCaller(context, 'api', caller.keyId, reply);
  await context.lastUsed.touch(caller.keyId, lastUsedAt, now, request.log);
  countUsage(context, request, caller.accountId, now);
  checkAccess(request.routeOptions.config.access, { policy: caller.policy, farms: caller.farms });
}

/** An OAuth access token `ro_…`, only on routes marked `oauth` and only for the resource it was issued for. */
async function byAccessToken(
  context: AuthContext,
  request: FastifyRequest,
  reply: FastifyReply,
  token: string,
): Promise<void> {
  const url = request.routeOptions.url ?? '';
  const resource = `${request.protocol}://${request.host}${url}`;
  if (!request.routeOptions.config.oauth) {
    throw unauthorized(
      'This is an OAuth access token for the MCP server; it is refused elsewhere (RFC 8707). The REST API takes an API key (rk_live_… or rk_test_…).',
    );
  }
  const now = context.clock();
  const { db, agentAuthenticator } = context.deps;
  const found = agentAuthenticator ? await agentAuthenticator(db, token, now) : null;
  if (!found) {
    throw unauthorized(
      'This access token is not valid: unknown, expired or revoked. Refresh it, or connect again.',
    );
  }
  if (found.agent.resource !== resource) {
    throw unauthorized(
      `This access token was issued for the resource ${found.agent.resource}, not ${resource} (RFC 8707); connect to this server to get one for it.`,
    );
  }
  const { lastUsedAt: _lastUsed, ...caller } = found;
  request.caller = { kind: 'api', ...caller };
  logWith(request, reply, { agent: caller.keyId });
  await limitCaller(context, 'api', caller.keyId, reply);
  countUsage(context, request, caller.accountId, now);
  checkAccess(request.routeOptions.config.access, { policy: caller.policy, farms: caller.farms });
}

/**
 * A console session cookie: the person acts with the account, the session's mode and their role's policy,
 * and every write carries the session's CSRF token.
 */
async function bySession(
  context: AuthContext,
  request: FastifyRequest,
  reply: FastifyReply,
  token: string,
): Promise<void> {
  const now = context.clock();
  const { db, sessionAuthenticator, csrfTokenOf } = context.deps;
  const found = sessionAuthenticator ? await sessionAuthenticator(db, token, now) : null;
  if (!found || !csrfTokenOf) {
    reply.header('set-cookie', clearedSessionCookie(request.protocol === 'https'));
    throw unauthorized(
      'Your session has ended (signed out, idle for 30 days, or the password changed). Sign in again: POST /v1/session.',
    );
  }
  const { accountId, mode, ...person } = found;
  const policy: Policy = ROLE_PRESETS[person.role];
  const session: SessionIdentity = { ...person, csrfToken: csrfTokenOf(token) };
  request.caller = {
    kind: 'api',
    accountId,
    keyId: person.personId,
    keyName: `session of ${person.email}`,
    mode,
    prefix: 'session',
    grants: policy.families,
    farms: null,
    policy,
    session,
  };
  logWith(request, reply, { person: person.personId });
  checkCsrf(request, session.csrfToken);
  // Every signed-in person of an account shares one limit, as one key would.
  await limitCaller(context, 'session', accountId, reply);
  countUsage(context, request, accountId, now);
  checkAccess(request.routeOptions.config.access, { policy, farms: null, role: person.role });
}

/** A write signed in with a cookie must prove it came from the console, not from another site's form. */
function checkCsrf(request: FastifyRequest, csrfToken: string): void {
  if (SAFE_METHODS.has(request.method)) return;
  const sent = request.headers['x-csrf-token'];
  if (typeof sent !== 'string' || !sameSecret(sent, csrfToken)) {
    throw new AppError(
      'forbidden',
      'This request is signed in with a session cookie, so it must send the session’s CSRF token in the X-CSRF-Token header (csrf_token of GET /v1/session).',
    );
  }
}

/** Each caller's own rate limit (http/rate-limit.ts): past it, 429 with Retry-After. */
async function limitCaller(context: AuthContext, kind: LimitKind, id: string, reply: FastifyReply) {
  await context.deps.limiter?.hitKey(kind, id, reply);
}

/** Failed credentials are counted per address; past the limit they answer 429 instead of 401. */
async function limitFailure(
  context: AuthContext,
  request: FastifyRequest,
  reply: FastifyReply,
  err: unknown,
) {
  if (err instanceof AppError && err.code === 'unauthorized') {
    await context.deps.limiter?.failedAuthentication(request.ip, reply);
  }
}

/** Counts an authenticated call for its account, under the route's usage surface. */
function countUsage(
  context: AuthContext,
  request: FastifyRequest,
  accountId: string,
  at: number,
  surface: Surface = 'api',
): void {
  context.deps.usage.count(accountId, request.routeOptions.config.surface ?? surface, at);
}

/**
 * Adds bindings to the request's logger. Fastify gives each request its own child logger (shared by
 * request and reply), so the bindings are set on it in place rather than by making another child per
 * request; where there is no own child (logging off, or a shared logger) both are replaced by a child.
 */
function logWith(request: FastifyRequest, reply: FastifyReply, bindings: Record<string, string>): void {
  const log = request.log as FastifyRequest['log'] & { setBindings?: (b: Record<string, string>) => void };
  if (log !== request.server.log && log === reply.log && typeof log.setBindings === 'function') {
    log.setBindings(bindings);
    return;
  }
  request.log = log.child(bindings);
  reply.log = request.log;
}

/** The API caller of a route registered with auth 'api'. */
export function apiCaller(request: FastifyRequest): ApiCaller {
  const caller = request.caller;
  if (caller?.kind !== 'api') throw unauthorized('An API key is required.');
  return caller;
}

/** The device caller of a route registered with auth 'device'. */
export function deviceCaller(request: FastifyRequest): DeviceCaller {
  const caller = request.caller;
  if (caller?.kind !== 'device') throw unauthorized('A device key is required.');
  return caller;
}
