/**
 * The clients that may ask for a grant (docs/oauth.md):
 *  - by Client ID Metadata Document: the client_id is an https URL whose JSON document names the client and
 *    its redirect URIs. It is fetched through the outbound client (lib/outbound.ts: the SSRF guard in the
 *    connection, FARMSTEAD_WEBHOOK_ALLOW_PRIVATE the one switch), with a deadline, a size cap and no redirects, and kept in oauth_clients for CIMD_FRESH_MS,
 *    so every process shares one copy;
 *  - by Dynamic Client Registration (RFC 7591): the metadata is stored and a client_id returned; the same
 *    metadata registered again returns the same client (its fingerprint is unique), so clients that register
 *    on every connection do not pile up rows.
 * Every client is public (token_endpoint_auth_method `none`): PKCE protects the code, rotation the refresh
 * token.
 */
import { createHash } from 'node:crypto';
import type { Db } from '../../db/schema.ts';
import { sendOutbound } from '../../lib/outbound.ts';
import { randomToken } from '../../lib/secrets.ts';
import { OAuthError } from './errors.ts';
import { findClientRow, insertRegisteredClient, saveMetadataDocument } from './repository.ts';

/** How long a fetched client metadata document is used before it is fetched again. */
export const CIMD_FRESH_MS = 60 * 60 * 1000;
const CIMD_TIMEOUT_MS = 5000;
const CIMD_MAX_BYTES = 16 * 1024;
const MAX_REDIRECT_URIS = 20;
const MAX_NAME = 200;

export interface OAuthClient {
  rowId: string;
  clientId: string;
  kind: 'dcr' | 'cimd';
  name: string;
  redirectUris: string[];
}

export interface ClientSettings {
  allowPrivate: boolean;
}

function invalidMetadata(message: string): OAuthError {
  return new OAuthError(
    /^redirect_uri "/.test(message) ? 'invalid_redirect_uri' : 'invalid_client_metadata',
    message,
  );
}

function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '127.0.0.1' || host === '[::1]';
}

/**
 * Whether an authorization request's redirect_uri is one the client registered: the same text, or for http on
 * a loopback host (a native app's, RFC 8252 §7.3) the same but for the port, which the server must let vary:
 * the app listens on whichever port it gets when it asks, and a client metadata document cannot know it.
 */
export function isRegisteredRedirect(client: Pick<OAuthClient, 'redirectUris'>, asked: string): boolean {
  if (client.redirectUris.includes(asked)) return true;
  const portless = loopbackWithoutPort(asked);
  return portless !== null && client.redirectUris.some((uri) => loopbackWithoutPort(uri) === portless);
}

/** An http loopback URI without its port (null for any other URI). */
function loopbackWithoutPort(uri: string): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' || !isLoopbackHost(url.hostname)) return null;
  url.port = '';
  return url.toString();
}

/**
 * A native app's own scheme (RFC 8252 §7.1): a domain name its maker controls, reversed (`com.example.app`),
 * so it names one app; a bare word (`blob`, `javascript`, `myapp`) does not.
 */
const PRIVATE_USE_SCHEME = /^[a-z][a-z0-9-]*(?:\.[a-z0-9-]+)+:$/i;

/**
 * A redirect URI a client may register, by an allow list: https; http on a loopback host (native apps,
 * RFC 8252 §7.3); or an app's own private-use scheme in reverse-domain form (§7.1). Never a fragment (RFC
 * 6749 §3.1.2), a bare trailing `#` included, which URL parsing reports as no fragment at all.
 */
function checkRedirectUri(raw: unknown, fail: (m: string) => OAuthError): string {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > 2000) {
    throw fail('redirect_uris must be strings of at most 2000 characters.');
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw fail(`redirect_uri "${raw}" is not an absolute URL.`);
  }
  if (raw.includes('#')) throw fail(`redirect_uri "${raw}" must not have a fragment (#).`);
  if (url.protocol === 'https:') return raw;
  if (url.protocol === 'http:') {
    if (isLoopbackHost(url.hostname)) return raw;
    throw fail(`redirect_uri "${raw}" must use https (http only on localhost or a loopback address).`);
  }
  if (PRIVATE_USE_SCHEME.test(url.protocol)) return raw;
  throw fail(
    `redirect_uri "${raw}" must use https, http on a loopback address, or an app's own scheme in reverse-domain form (com.example.app:/callback, RFC 8252).`,
  );
}

interface CheckedMetadata {
  name: string;
  redirectUris: string[];
  metadata: Record<string, unknown>;
}

/** The metadata fields both ways of registering share (RFC 7591 §2). */
function checkMetadata(body: unknown, fail: (m: string) => OAuthError): CheckedMetadata {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw fail('The client metadata must be a JSON object.');
  }
  const m = body as Record<string, unknown>;
  const uris = m.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0) {
    throw fail('redirect_uris is required: a non-empty array of the URIs the authorization answers go to.');
  }
  if (uris.length > MAX_REDIRECT_URIS) throw fail(`At most ${MAX_REDIRECT_URIS} redirect_uris.`);
  const redirectUris = uris.map((u) => checkRedirectUri(u, fail));
  // OpenID Connect DCR §2, as the MCP 2026-07-28 era asks clients to declare: a web client's redirect URIs
  // are https on a host that is not the loopback; a native app's may be loopback http or its own scheme.
  const type = m.application_type;
  if (type !== undefined && type !== 'web' && type !== 'native') {
    throw fail('application_type must be "web" or "native".');
  }
  if (type === 'web') {
    const local = redirectUris.find((u) => {
      const url = new URL(u);
      return url.protocol !== 'https:' || isLoopbackHost(url.hostname);
    });
    if (local)
      throw fail(
        `redirect_uri "${local}" does not suit a web client (application_type "web"): use https on a public host, or register as "native".`,
      );
  }
  const name = m.client_name === undefined ? null : m.client_name;
  if (name !== null && (typeof name !== 'string' || name.trim() === '' || name.length > MAX_NAME)) {
    throw fail(`client_name must be a non-empty string of at most ${MAX_NAME} characters.`);
  }
  if (m.response_types !== undefined) {
    if (!Array.isArray(m.response_types) || !m.response_types.includes('code')) {
      throw fail('response_types must include "code": this server issues authorization codes only.');
    }
  }
  if (m.grant_types !== undefined) {
    if (!Array.isArray(m.grant_types) || !m.grant_types.includes('authorization_code')) {
      throw fail('grant_types must include "authorization_code".');
    }
  }
  const host = new URL(redirectUris[0] as string).host;
  return { name: name?.trim() ?? (host || 'An MCP client'), redirectUris, metadata: m };
}

function rowToClient(row: {
  id: string;
  client_id: string;
  kind: 'dcr' | 'cimd';
  name: string;
  redirect_uris: string;
}): OAuthClient {
  return {
    rowId: row.id,
    clientId: row.client_id,
    kind: row.kind,
    name: row.name,
    redirectUris: JSON.parse(row.redirect_uris) as string[],
  };
}

/** What RFC 7591 §3.2.1 answers for a registered client. */
export function registrationResponse(client: OAuthClient, issuedAt: number) {
  return {
    client_id: client.clientId,
    client_id_issued_at: Math.floor(issuedAt / 1000),
    client_name: client.name,
    redirect_uris: client.redirectUris,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
}

/** Registers a client (RFC 7591), or finds the one registered before with the same metadata. */
export async function registerClient(
  db: Db,
  body: unknown,
  now: number,
): Promise<{ client: OAuthClient; createdAt: number }> {
  const checked = checkMetadata(body, invalidMetadata);
  // Only the fields this server uses decide sameness; the answer always names a public client.
  const fingerprint = createHash('sha256')
    .update(JSON.stringify({ name: checked.name, redirect_uris: checked.redirectUris }))
    .digest('hex');
  const row = await insertRegisteredClient(db, {
    id: `ocl_${randomToken(20)}`,
    client_id: `mcp_${randomToken(24)}`,
    kind: 'dcr',
    name: checked.name,
    redirect_uris: JSON.stringify(checked.redirectUris),
    metadata: JSON.stringify(checked.metadata),
    fingerprint,
    created_at: now,
    fetched_at: now,
  });
  return { client: rowToClient(row), createdAt: row.created_at };
}

/** Whether a client_id names a metadata document: an https URL with a path (the CIMD draft, §3). */
export function isMetadataDocumentUrl(clientId: string): boolean {
  try {
    const url = new URL(clientId);
    return url.protocol === 'https:' && url.pathname !== '/' && !url.hash && !url.username;
  } catch {
    return false;
  }
}

/** GETs a client metadata document through the outbound client: a deadline, a size cap, no redirects. */
async function fetchDocument(url: URL, settings: ClientSettings): Promise<string> {
  const answer = await sendOutbound({
    url,
    headers: { accept: 'application/json' },
    allowPrivate: settings.allowPrivate,
    timeoutMs: CIMD_TIMEOUT_MS,
    maxResponseBytes: CIMD_MAX_BYTES,
  });
  if (answer.status !== 200) {
    throw new Error(`it answered HTTP ${answer.status} (redirects are not followed)`);
  }
  return answer.body.toString('utf8');
}

async function fetchMetadataDocument(clientId: string, settings: ClientSettings): Promise<CheckedMetadata> {
  const fail = (message: string) =>
    new OAuthError('invalid_client', `The client metadata document at ${clientId} is not usable: ${message}`);
  let text: string;
  try {
    text = await fetchDocument(new URL(clientId), settings);
  } catch (err) {
    throw new OAuthError(
      'invalid_client',
      `The client metadata document at ${clientId} could not be fetched: ${(err as Error).message}`,
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw fail('it is not JSON.');
  }
  const checked = checkMetadata(body, fail);
  if (checked.metadata.client_id !== clientId) {
    throw fail(`its client_id must be the document's own URL, "${clientId}".`);
  }
  const method = checked.metadata.token_endpoint_auth_method;
  if (method !== undefined && method !== 'none') {
    throw fail(`token_endpoint_auth_method "${String(method)}" is not supported; public clients use "none".`);
  }
  return checked;
}

/**
 * The client a client_id names, or null when no such client was registered. A metadata document URL is
 * fetched when it is not cached or its copy is stale (OAuthError when it cannot be fetched or is invalid).
 */
export async function findClient(
  db: Db,
  clientId: string,
  settings: ClientSettings,
  now: number,
): Promise<OAuthClient | null> {
  const row = await findClientRow(db, clientId);
  if (!isMetadataDocumentUrl(clientId)) return row && row.kind === 'dcr' ? rowToClient(row) : null;
  if (row && now - row.fetched_at < CIMD_FRESH_MS) return rowToClient(row);
  const checked = await fetchMetadataDocument(clientId, settings);
  const values = {
    name: checked.name,
    redirect_uris: JSON.stringify(checked.redirectUris),
    metadata: JSON.stringify(checked.metadata),
    fetched_at: now,
  };
  const saved = await saveMetadataDocument(
    db,
    {
      id: `ocl_${randomToken(20)}`,
      client_id: clientId,
      kind: 'cimd',
      fingerprint: null,
      created_at: now,
      ...values,
    },
    values,
  );
  return rowToClient(saved);
}
