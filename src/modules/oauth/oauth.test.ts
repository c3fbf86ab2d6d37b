/**
 * OAuth for MCP connectors through the real app on both engines (the whole flow driven by the MCP client
 * SDK and a real browser is test/oauth-flow.test.ts): metadata, registration, the authorization request's
 * refusals, consent, the token endpoint's MUSTs (PKCE S256, one-time codes, redirect URI, resource
 * binding), refresh rotation, revocation, and access tokens at /mcp and nowhere else.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { forEachEngine, type TestApp, waitFor } from '../../../test/harness.ts';
import { type SignedIn, signedInPerson } from '../../../test/people.ts';
import { BUS_CHANNELS, openBus } from '../../db/notify.ts';
import { pruneOAuth } from './prune.ts';

const ORIGIN = 'http://localhost:80';
const RESOURCE = `${ORIGIN}/mcp`;
const REDIRECT = 'http://127.0.0.1:7777/callback';

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

async function form(t: TestApp, url: string, fields: Record<string, string>) {
  return t.request<Record<string, unknown>>('POST', url, {
    rawBody: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
}

async function register(t: TestApp, name = 'Test agent', redirect = REDIRECT) {
  const res = await t.request<{ client_id: string }>('POST', '/oauth/register', {
    body: { client_name: name, redirect_uris: [redirect], token_endpoint_auth_method: 'none' },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.client_id;
}

function authorizeQuery(clientId: string, challenge: string, extra: Record<string, string> = {}) {
  return new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'st-1',
    resource: RESOURCE,
    ...extra,
  });
}

/** Asks for a code as the console's consent page does; returns the redirect's parameters. */
async function allow(
  person: SignedIn,
  clientId: string,
  challenge: string,
  answer: Record<string, unknown> = { level: 'read' },
) {
  const request = Object.fromEntries(authorizeQuery(clientId, challenge));
  const res = await person.request<{ redirect_to: string }>('POST', '/v1/oauth/authorization', {
    body: { request, decision: 'allow', ...answer },
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return new URL(res.body.redirect_to).searchParams;
}

async function tokensFor(t: TestApp, person: SignedIn, answer?: Record<string, unknown>) {
  const clientId = await register(t);
  const { verifier, challenge } = pkce();
  const code = (await allow(person, clientId, challenge, answer)).get('code') ?? '';
  const res = await form(t, '/oauth/token', {
    grant_type: 'authorization_code',
    code,
    code_verifier: verifier,
    redirect_uri: REDIRECT,
    client_id: clientId,
    resource: RESOURCE,
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return { clientId, access: String(res.body.access_token), refresh: String(res.body.refresh_token) };
}

/** tools/list at /mcp with this token: the status, and the tools' names when it answered. */
async function listTools(t: TestApp, token: string) {
  const res = await t.request<unknown>('POST', '/mcp', {
    key: token,
    headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
  });
  let tools: string[] = [];
  if (res.status === 200) {
    // The answer may come as one Server-Sent Event.
    const text = typeof res.body === 'string' ? res.body : JSON.stringify(res.body);
    const json = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? '{}');
    const parsed = JSON.parse(json) as { result?: { tools: { name: string }[] } };
    tools = parsed.result?.tools.map((x) => x.name) ?? [];
  }
  return { status: res.status, tools };
}

/** A tools/call at /mcp with this token: the tool's structured answer. */
async function callTool(t: TestApp, token: string, name: string, args: Record<string, unknown> = {}) {
  const res = await t.request<unknown>('POST', '/mcp', {
    key: token,
    headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
  });
  assert.equal(res.status, 200);
  const text = typeof res.body === 'string' ? res.body : JSON.stringify(res.body);
  const json = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? '{}');
  return (JSON.parse(json) as { result: { structuredContent?: Record<string, unknown>; isError?: boolean } })
    .result;
}

forEachEngine('oauth', (t) => {
  test('the metadata documents name the resource, the issuer and what is supported', async () => {
    for (const path of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
    ]) {
      const prm = await t().request<Record<string, unknown>>('GET', path);
      assert.equal(prm.status, 200);
      assert.equal(prm.body.resource, RESOURCE);
      assert.deepEqual(prm.body.authorization_servers, [ORIGIN]);
    }
    const as = await t().request<Record<string, unknown>>('GET', '/.well-known/oauth-authorization-server');
    assert.equal(as.body.issuer, ORIGIN);
    assert.deepEqual(as.body.code_challenge_methods_supported, ['S256']);
    assert.equal(as.body.client_id_metadata_document_supported, true);
    assert.equal(as.body.authorization_response_iss_parameter_supported, true);
    assert.equal(as.body.token_endpoint, `${ORIGIN}/oauth/token`);
    // Browser-based clients read them from their own origin.
    assert.equal(as.headers['access-control-allow-origin'], '*');
    const preflight = await t().request('OPTIONS', '/oauth/register', {
      headers: { origin: 'http://localhost:6274', 'access-control-request-method': 'POST' },
    });
    assert.equal(preflight.status, 204);
    assert.match(String(preflight.headers['access-control-allow-headers']), /content-type/);
  });

  test('/mcp without credentials: 401 naming the resource metadata, and a message about API keys too', async () => {
    const res = await t().request<{ error: { message: string } }>('POST', '/mcp', {
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    assert.equal(res.status, 401);
    assert.equal(
      res.headers['www-authenticate'],
      `Bearer resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource/mcp"`,
    );
    assert.match(res.body.error.message, /OAuth/);
    assert.match(res.body.error.message, /rk_live_/);
    // Other routes keep their plain challenge.
    const api = await t().request('GET', '/v1/farms');
    assert.equal(api.headers['www-authenticate'], 'Bearer');
  });

  test('registering the same client again answers the same client_id; bad metadata is refused', async () => {
    const first = await register(t(), 'Same agent');
    const again = await register(t(), 'Same agent');
    assert.equal(again, first);
    const rows = await t()
      .database.db.selectFrom('oauth_clients')
      .select('id')
      .where('client_id', '=', first)
      .execute();
    assert.equal(rows.length, 1);
    assert.notEqual(await register(t(), 'Other agent'), first);
    const bad = await t().request<{ error: string }>('POST', '/oauth/register', {
      body: { client_name: 'x', redirect_uris: ['http://evil.example/cb'] },
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error, 'invalid_redirect_uri');
    const web = await t().request<{ error: string }>('POST', '/oauth/register', {
      body: { client_name: 'x', application_type: 'web', redirect_uris: ['http://127.0.0.1:5555/cb'] },
    });
    assert.equal(web.body.error, 'invalid_redirect_uri');
    const native = await t().request('POST', '/oauth/register', {
      body: { client_name: 'x', application_type: 'native', redirect_uris: ['http://127.0.0.1:5555/cb'] },
    });
    assert.equal(native.status, 201);
    const none = await t().request<{ error: string }>('POST', '/oauth/register', {
      body: { client_name: 'x' },
    });
    assert.equal(none.body.error, 'invalid_client_metadata');
  });

  test('the authorization endpoint: refusals shown or redirected, a good request goes to the consent page', async () => {
    const clientId = await register(t());
    const { challenge } = pkce();
    const ok = await t().request('GET', `/oauth/authorize?${authorizeQuery(clientId, challenge)}`);
    assert.equal(ok.status, 302);
    assert.match(String(ok.headers.location), /^\/connect\?response_type=code&client_id=/);

    // A loopback redirect URI on another port is the registered one (RFC 8252 §7.3: the app's port varies);
    // on another path, host or scheme it is not.
    const port = new URL(REDIRECT).port;
    const moved = REDIRECT.replace(`:${port}/`, ':53999/');
    assert.notEqual(moved, REDIRECT);
    const anyPort = await t().request(
      'GET',
      `/oauth/authorize?${authorizeQuery(clientId, challenge, { redirect_uri: moved })}`,
    );
    assert.equal(anyPort.status, 302, JSON.stringify(anyPort.body));
    for (const uri of [
      moved.replace('127.0.0.1', 'localhost'),
      moved.replace('http:', 'https:'),
      `${moved}/more`,
    ]) {
      const refusedUri = await t().request(
        'GET',
        `/oauth/authorize?${authorizeQuery(clientId, challenge, { redirect_uri: uri })}`,
      );
      assert.equal(refusedUri.status, 400, uri);
    }

    // An unregistered redirect URI is never redirected to.
    const other = authorizeQuery(clientId, challenge, { redirect_uri: 'http://127.0.0.1:9999/elsewhere' });
    const html = { accept: 'text/html,application/xhtml+xml' };
    const refused = await t().request<string>('GET', `/oauth/authorize?${other}`, { headers: html });
    assert.equal(refused.status, 400);
    assert.match(String(refused.headers['content-type']), /text\/html/);
    assert.match(refused.body, /not one of the redirect URIs registered/);
    const asJson = await t().request<{ error: { code: string } }>('GET', `/oauth/authorize?${other}`);
    assert.equal(asJson.body.error.code, 'invalid_request');
    const unknown = await t().request<string>(
      'GET',
      `/oauth/authorize?${authorizeQuery('mcp_nope', challenge)}`,
      { headers: html },
    );
    assert.equal(unknown.status, 400);
    assert.match(unknown.body, /No client/);

    const redirected = async (extra: Record<string, string>, drop?: string) => {
      const query = authorizeQuery(clientId, challenge, extra);
      if (drop) query.delete(drop);
      const res = await t().request('GET', `/oauth/authorize?${query}`);
      assert.equal(res.status, 302);
      const back = new URL(String(res.headers.location));
      assert.equal(`${back.origin}${back.pathname}`, REDIRECT);
      assert.equal(back.searchParams.get('state'), 'st-1');
      assert.equal(back.searchParams.get('iss'), ORIGIN);
      return back.searchParams;
    };
    const plain = await redirected({ code_challenge_method: 'plain', code_challenge: 'a'.repeat(43) });
    assert.equal(plain.get('error'), 'invalid_request');
    assert.match(plain.get('error_description') ?? '', /S256/);
    assert.equal((await redirected({}, 'code_challenge_method')).get('error'), 'invalid_request');
    assert.equal((await redirected({}, 'code_challenge')).get('error'), 'invalid_request');
    assert.equal((await redirected({ response_type: 'token' })).get('error'), 'unsupported_response_type');
    assert.equal(
      (await redirected({ resource: 'https://other.example/mcp' })).get('error'),
      'invalid_target',
    );
  });

  test('consent: a session only, levels within the role, farms of the account; deny answers access_denied', async () => {
    const account = await t().sharedAccount();
    const owner = await signedInPerson(t(), account, 'owner');
    const clientId = await register(t());
    const { challenge } = pkce();
    const query = authorizeQuery(clientId, challenge);
    const seen = await owner.request<{
      client: { name: string; redirect_host: string };
      levels: { level: string }[];
      farms: { id: string; mode: string }[];
    }>('GET', `/v1/oauth/authorization?${query}`);
    assert.equal(seen.status, 200, JSON.stringify(seen.body));
    assert.equal(seen.body.client.name, 'Test agent');
    assert.equal(seen.body.client.redirect_host, '127.0.0.1:7777');
    assert.deepEqual(
      seen.body.levels.map((l) => l.level),
      ['read', 'record', 'full'],
    );
    assert.ok(seen.body.farms.some((f) => f.mode === 'test'));

    const crew = await signedInPerson(t(), account, 'crew');
    const crewSees = await crew.request<{ levels: { level: string }[] }>(
      'GET',
      `/v1/oauth/authorization?${query}`,
    );
    assert.deepEqual(
      crewSees.body.levels.map((l) => l.level),
      ['read'],
    );
    const request = Object.fromEntries(query);
    const crewFull = await crew.request('POST', '/v1/oauth/authorization', {
      body: { request, decision: 'allow', level: 'full' },
    });
    assert.equal(crewFull.status, 403);

    const byKey = await t().request('POST', '/v1/oauth/authorization', {
      key: account.live_key,
      body: { request, decision: 'allow', level: 'read' },
    });
    assert.equal(byKey.status, 403);

    const foreign = await owner.request<{ error: { param: string } }>('POST', '/v1/oauth/authorization', {
      body: { request, decision: 'allow', level: 'read', mode: 'live', farms: ['farm_not_mine'] },
    });
    assert.equal(foreign.status, 400);
    assert.equal(foreign.body.error.param, 'farms');

    const denied = await owner.request<{ redirect_to: string }>('POST', '/v1/oauth/authorization', {
      body: { request, decision: 'deny' },
    });
    const back = new URL(denied.body.redirect_to).searchParams;
    assert.equal(back.get('error'), 'access_denied');
    assert.equal(back.get('iss'), ORIGIN);
  });

  test('the token endpoint: PKCE verifier, one-time code, redirect URI, client and resource must all match', async () => {
    const account = await t().sharedAccount();
    const owner = await signedInPerson(t(), account, 'owner');
    const clientId = await register(t());
    const { verifier, challenge } = pkce();
    const params = await allow(owner, clientId, challenge);
    assert.equal(params.get('state'), 'st-1');
    assert.equal(params.get('iss'), ORIGIN);
    const code = params.get('code') ?? '';
    const base = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: clientId };

    const wrongVerifier = await form(t(), '/oauth/token', { ...base, code_verifier: pkce().verifier });
    assert.equal(wrongVerifier.status, 400);
    assert.equal(wrongVerifier.body.error, 'invalid_grant');
    const otherResource = await form(t(), '/oauth/token', {
      ...base,
      code_verifier: verifier,
      resource: 'https://other.example/mcp',
    });
    assert.equal(otherResource.body.error, 'invalid_target');
    const otherRedirect = await form(t(), '/oauth/token', {
      ...base,
      code_verifier: verifier,
      redirect_uri: 'http://127.0.0.1:7777/other',
    });
    assert.equal(otherRedirect.body.error, 'invalid_grant');
    const otherClient = await form(t(), '/oauth/token', {
      ...base,
      code_verifier: verifier,
      client_id: await register(t(), 'Thief'),
    });
    assert.equal(otherClient.body.error, 'invalid_grant');

    const ok = await form(t(), '/oauth/token', { ...base, code_verifier: verifier, resource: RESOURCE });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.token_type, 'Bearer');
    assert.equal(ok.body.expires_in, 3600);
    assert.equal(ok.headers['cache-control'], 'no-store');
    assert.equal((await listTools(t(), String(ok.body.access_token))).status, 200);

    // The same code again: refused, and what it gave is revoked.
    const reused = await form(t(), '/oauth/token', { ...base, code_verifier: verifier });
    assert.equal(reused.status, 400);
    assert.equal(reused.body.error, 'invalid_grant');
    assert.equal((await listTools(t(), String(ok.body.access_token))).status, 401);

    const unsupported = await form(t(), '/oauth/token', { grant_type: 'password', client_id: clientId });
    assert.equal(unsupported.body.error, 'unsupported_grant_type');
    const json = await t().request<{ error: string }>('POST', '/oauth/token', { body: base });
    assert.equal(json.body.error, 'invalid_request');
  });

  test('access tokens: the consented tools at /mcp, refused by the REST API and for another resource', async () => {
    const account = await t().sharedAccount();
    const owner = await signedInPerson(t(), account, 'owner');
    const read = await tokensFor(t(), owner, { level: 'read' });
    const { tools } = await listTools(t(), read.access);
    assert.ok(tools.includes('list_farms'));
    assert.ok(!tools.includes('add_task'), 'a read-only agent sees no write tools');
    assert.ok(!tools.includes('house_command'));

    const record = await tokensFor(t(), owner, { level: 'record' });
    const recordTools = (await listTools(t(), record.access)).tools;
    assert.ok(recordTools.includes('add_task') && recordTools.includes('update_alert'));
    assert.ok(!recordTools.includes('house_command'));
    const full = await tokensFor(t(), owner, { level: 'full' });
    assert.ok((await listTools(t(), full.access)).tools.includes('house_command'));

    // A grant for one farm sees that farm only.
    const other = await t().request<{ id: string }>('POST', '/v1/farms', {
      key: account.test_key,
      body: { name: 'Second test farm' },
    });
    assert.equal(other.status, 201, JSON.stringify(other.body));
    const sample = (
      await t().request<{ data: { id: string }[] }>('GET', '/v1/farms', { key: account.test_key })
    ).body.data.find((f) => f.id !== other.body.id);
    assert.ok(sample);
    const one = await tokensFor(t(), owner, { level: 'read', mode: 'test', farms: [sample.id] });
    const listed = await callTool(t(), one.access, 'list_farms');
    const ids = JSON.stringify(listed.structuredContent);
    assert.ok(ids.includes(sample.id), ids);
    assert.ok(!ids.includes(other.body.id), 'the other farm is not in any answer');
    const brief = await callTool(t(), one.access, 'farm_brief', { farm_id: other.body.id });
    assert.equal(brief.isError, true);

    const rest = await t().request<{ error: { message: string } }>('GET', '/v1/farms', { key: read.access });
    assert.equal(rest.status, 401);
    assert.match(rest.body.error.message, /RFC 8707/);
    // The same token presented to this server under another name (another resource) is refused.
    const elsewhere = await t().request('POST', '/mcp', {
      key: read.access,
      headers: { host: 'farm.other.example', accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    assert.equal(elsewhere.status, 401);
    assert.match(String(elsewhere.headers['www-authenticate']), /error="invalid_token"/);
  });

  test('an agent speaks for the person who allowed it: farm_brief in their language unless it asks for another', async () => {
    const account = await t().sharedAccount();
    const owner = await signedInPerson(t(), account, 'owner');
    const farm = await t().request<{ id: string }>('POST', '/v1/farms', {
      key: account.test_key,
      body: { name: 'Finca del Sur' },
    });
    assert.equal(farm.status, 201, JSON.stringify(farm.body));
    assert.equal((await owner.request('PATCH', '/v1/me', { body: { language: 'es' } })).status, 200);
    try {
      const agent = await tokensFor(t(), owner, { level: 'read', mode: 'test', farms: [farm.body.id] });
      const own = await callTool(t(), agent.access, 'farm_brief');
      assert.equal(
        own.structuredContent?.headline,
        'Todo tranquilo en Finca del Sur: sin alertas, nada pendiente para hoy y todos los dispositivos reportando.',
      );
      const asked = await callTool(t(), agent.access, 'farm_brief', { language: 'en' });
      assert.match(String(asked.structuredContent?.headline), /^All quiet on Finca del Sur: /);
    } finally {
      await owner.request('PATCH', '/v1/me', { body: { language: 'en' } });
    }
  });

  test('refresh rotates: the old refresh token is refused, and coming back revokes the grant', async () => {
    const account = await t().sharedAccount();
    const owner = await signedInPerson(t(), account, 'owner');
    const first = await tokensFor(t(), owner);
    const refreshed = await form(t(), '/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: first.refresh,
      client_id: first.clientId,
      resource: RESOURCE,
    });
    assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
    assert.notEqual(refreshed.body.refresh_token, first.refresh);
    assert.equal((await listTools(t(), String(refreshed.body.access_token))).status, 200);

    const again = await form(t(), '/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: first.refresh,
      client_id: first.clientId,
    });
    assert.equal(again.status, 400);
    assert.equal(again.body.error, 'invalid_grant');
    // Reuse means a copy exists: every token of the grant stops at once.
    assert.equal((await listTools(t(), String(refreshed.body.access_token))).status, 401);
    const newer = await form(t(), '/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: String(refreshed.body.refresh_token),
      client_id: first.clientId,
    });
    assert.equal(newer.body.error, 'invalid_grant');
  });

  test('revocation (RFC 7009) and disconnecting from the account both take effect at the next call', async () => {
    const account = await t().sharedAccount();
    const owner = await signedInPerson(t(), account, 'owner');
    const one = await tokensFor(t(), owner);
    assert.equal((await listTools(t(), one.access)).status, 200);
    const revoked = await form(t(), '/oauth/revoke', { token: one.refresh, client_id: one.clientId });
    assert.equal(revoked.status, 200);
    assert.equal((await listTools(t(), one.access)).status, 401);
    assert.equal((await form(t(), '/oauth/revoke', { token: 'ro_unknown' })).status, 200);

    const two = await tokensFor(t(), owner, { level: 'record', mode: 'test', farms: null });
    assert.equal((await listTools(t(), two.access)).status, 200);
    const listed = await owner.request<{
      data: { id: string; level: string; mode: string; client_name: string; last_used_at: string | null }[];
    }>('GET', '/v1/agents');
    const agent = listed.body.data.find((a) => a.level === 'record');
    assert.ok(agent);
    assert.equal(agent.mode, 'test');
    assert.ok(agent.last_used_at, 'the tool call was recorded as its last use');
    assert.ok(!listed.body.data.some((a) => a.level === 'read' && a.id === one.clientId));
    const gone = await owner.request('DELETE', `/v1/agents/${agent.id}`);
    assert.equal(gone.status, 200);
    assert.equal((await listTools(t(), two.access)).status, 401);
    assert.equal((await owner.request('DELETE', `/v1/agents/${agent.id}`)).status, 404);
  });
});

forEachEngine('connected agents: who sees and disconnects which', (t) => {
  test('owners see every agent of the account, crew their own; a key needs the keys permission', async () => {
    const account = await t().account();
    const owner = await signedInPerson(t(), account, 'owner');
    const crew = await signedInPerson(t(), account, 'crew');
    await tokensFor(t(), owner, { level: 'full', mode: 'test' });
    await tokensFor(t(), crew, { level: 'read', mode: 'test' });
    type Agents = { data: { id: string; level: string; connected_by: string }[] };
    const all = await owner.request<Agents>('GET', '/v1/agents');
    assert.deepEqual(all.body.data.map((a) => a.level).sort(), ['full', 'read']);
    const own = await crew.request<Agents>('GET', '/v1/agents');
    assert.deepEqual(
      own.body.data.map((a) => a.connected_by),
      [crew.session.person.email],
    );
    const ownersAgent = all.body.data.find((a) => a.level === 'full');
    assert.ok(ownersAgent);
    assert.equal((await crew.request('DELETE', `/v1/agents/${ownersAgent.id}`)).status, 404);

    const byKey = await t().request<Agents>('GET', '/v1/agents', { key: account.live_key });
    assert.equal(byKey.status, 200);
    assert.equal(byKey.body.data.length, 2);
    const restricted = await t().request<{ key: string }>('POST', '/v1/keys', {
      key: account.live_key,
      body: { name: 'Reader', permissions: { records: 'read' } },
    });
    assert.equal(restricted.status, 201, JSON.stringify(restricted.body));
    const refused = await t().request('GET', '/v1/agents', { key: restricted.body.key });
    assert.equal(refused.status, 403);
  });
});

forEachEngine('oauth revocation reaches every process', (t) => {
  test('revoking an agent announces its grant on the key channel, which every process listens to', async () => {
    const heard: string[] = [];
    const bus = openBus({ databaseUrl: t().config.databaseUrl });
    await bus.listen(BUS_CHANNELS.apiKeys, (id) => heard.push(id));
    try {
      const account = await t().sharedAccount();
      const owner = await signedInPerson(t(), account, 'owner');
      await tokensFor(t(), owner);
      const [agent] = (await owner.request<{ data: { id: string }[] }>('GET', '/v1/agents')).body.data;
      assert.ok(agent);
      assert.equal((await owner.request('DELETE', `/v1/agents/${agent.id}`)).status, 200);
      await waitFor('the grant id on the key channel', () => heard.includes(agent.id));

      const other = await tokensFor(t(), owner);
      const grant = (
        await t()
          .database.db.selectFrom('oauth_tokens')
          .select('grant_id')
          .where('token_hash', '=', createHash('sha256').update(other.access).digest('hex'))
          .executeTakeFirstOrThrow()
      ).grant_id;
      await form(t(), '/oauth/revoke', { token: other.access });
      await waitFor('the revoked token’s grant on the key channel', () => heard.includes(grant));
    } finally {
      await bus.close();
    }
  });
});

forEachEngine('oauth pruning', (t) => {
  test('expired codes and tokens go, then the grants left with neither; a live grant stays', async () => {
    const account = await t().account();
    const owner = await signedInPerson(t(), account, 'owner');
    const live = await tokensFor(t(), owner);
    const revoked = await tokensFor(t(), owner);
    await form(t(), '/oauth/revoke', { token: revoked.access, client_id: revoked.clientId });
    const db = t().database.db;
    const grantOf = async (access: string) =>
      (
        await db
          .selectFrom('oauth_tokens')
          .select('grant_id')
          .where('token_hash', '=', createHash('sha256').update(access).digest('hex'))
          .executeTakeFirstOrThrow()
      ).grant_id;
    const liveGrant = await grantOf(live.access);
    const day = 24 * 60 * 60 * 1000;
    // Two days on: the access tokens have expired, the refresh tokens not; the revoked grant is gone.
    const pruned = await pruneOAuth(db, Date.now() + 2 * day);
    assert.ok(pruned.tokens >= 1 && pruned.grants >= 1, JSON.stringify(pruned));
    const grants = await db
      .selectFrom('oauth_grants')
      .select('id')
      .where('account_id', '=', account.account_id)
      .execute();
    assert.deepEqual(
      grants.map((g) => g.id),
      [liveGrant],
    );
    // Past the refresh token's 30 days nothing of it is left.
    await pruneOAuth(db, Date.now() + 31 * day);
    const after = await db.selectFrom('oauth_grants').select('id').where('id', '=', liveGrant).execute();
    assert.equal(after.length, 0);
  });
});

forEachEngine('oauth client metadata documents', (t) => {
  test('a metadata document on a private address is refused through the SSRF guard, with the switch named', async () => {
    const { challenge } = pkce();
    const query = authorizeQuery('https://127.0.0.1:9/oauth/client.json', challenge);
    const res = await t().request<string>('GET', `/oauth/authorize?${query}`, {
      headers: { accept: 'text/html' },
    });
    assert.equal(res.status, 400);
    assert.match(res.body, /could not be fetched/);
    assert.match(res.body, /loopback/);
    assert.match(res.body, /FARMSTEAD_WEBHOOK_ALLOW_PRIVATE/);
    const rows = await t().database.db.selectFrom('oauth_clients').select('id').execute();
    assert.equal(rows.length, 0, 'nothing is stored for a document that was not fetched');
  });
});
