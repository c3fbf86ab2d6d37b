/**
 * OAuth for MCP connectors end to end, driven by the MCP client SDK's own OAuth support against the real
 * server and the real consent page in a browser: discovery from the 401, registration by a client metadata
 * document (served here over https on the loopback, so FARMSTEAD_WEBHOOK_ALLOW_PRIVATE is on, and its
 * self-made certificate is trusted by this process) and by Dynamic Client Registration, PKCE through the
 * consent page, the token exchange, tool calls limited by the consent, refresh with rotation (the old
 * refresh token refused), and disconnecting taking effect at once. The refusals the RFCs require are
 * checked on both engines in src/modules/oauth/oauth.test.ts.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import tls from 'node:tls';
import {
  auth,
  Client,
  type OAuthClientProvider,
  refreshAuthorization,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import type { Page } from 'playwright-core';
import { screenshot } from './browser.ts';
import {
  assertNoHorizontalScroll,
  type ConsoleWorld,
  DESKTOP,
  openPage,
  PHONE,
  signedInPage,
  startConsole,
} from './console-helpers.ts';
import { PASSWORD, signedInPerson } from './people.ts';

type Provider = OAuthClientProvider & {
  authorizationUrl: URL | null;
  stored: { tokens?: { access_token: string; refresh_token?: string } };
};

/** An in-memory OAuthClientProvider, as an MCP client keeps one per server. */
function provider(name: string, redirectUrl: string, clientMetadataUrl?: string): Provider {
  const stored: Record<string, unknown> = {};
  const p: Provider = {
    authorizationUrl: null,
    stored: stored as Provider['stored'],
    get redirectUrl() {
      return redirectUrl;
    },
    ...(clientMetadataUrl ? { clientMetadataUrl } : {}),
    get clientMetadata() {
      return {
        client_name: name,
        redirect_uris: [redirectUrl],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      };
    },
    clientInformation: () => stored.client as never,
    saveClientInformation: (info) => {
      stored.client = info;
    },
    tokens: () => stored.tokens as never,
    saveTokens: (tokens) => {
      stored.tokens = tokens;
    },
    redirectToAuthorization: (url) => {
      p.authorizationUrl = url;
    },
    saveCodeVerifier: (verifier) => {
      stored.verifier = verifier;
    },
    codeVerifier: () => stored.verifier as string,
    saveDiscoveryState: (state) => {
      stored.discovery = state;
    },
    discoveryState: () => stored.discovery as never,
    invalidateCredentials: (scope) => {
      if (scope === 'all' || scope === 'tokens') delete stored.tokens;
      if (scope === 'all' || scope === 'client') delete stored.client;
    },
  };
  return p;
}

let world: ConsoleWorld;
let cimdServer: Server;
let cimdUrl: string;
let cimdFetches = 0;
let certDir: string;
const CALLBACK = 'http://127.0.0.1:1/callback';

before(async () => {
  world = await startConsole();
  // A certificate for 127.0.0.1, trusted by this process only: the client metadata document is https.
  certDir = mkdtempSync(path.join(os.tmpdir(), 'farmstead-cimd-'));
  execFileSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1'],
      ...['-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'],
      ...['-keyout', path.join(certDir, 'key.pem'), '-out', path.join(certDir, 'cert.pem')],
    ],
    { stdio: 'ignore' },
  );
  const cert = readFileSync(path.join(certDir, 'cert.pem'), 'utf8');
  tls.setDefaultCACertificates([...tls.getCACertificates('default'), cert]);
  cimdServer = createHttpsServer({ cert, key: readFileSync(path.join(certDir, 'key.pem')) }, (_req, res) => {
    cimdFetches++;
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({
        client_id: cimdUrl,
        client_name: 'Pasture Assistant',
        client_uri: 'https://127.0.0.1/',
        redirect_uris: [CALLBACK],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      }),
    );
  });
  await new Promise<void>((resolve) => cimdServer.listen(0, '127.0.0.1', resolve));
  cimdUrl = `https://127.0.0.1:${(cimdServer.address() as AddressInfo).port}/oauth/client.json`;
});

after(async () => {
  await new Promise<void>((resolve) => cimdServer.close(() => resolve()));
  rmSync(certDir, { recursive: true, force: true });
  await world.close();
});

function transportFor(p: Provider) {
  return new StreamableHTTPClientTransport(new URL('/mcp', world.base), { authProvider: p });
}

async function connected(p: Provider, era: 'legacy' | { pin: string }) {
  const client = new Client(
    { name: 'oauth-flow-test', version: '1.0.0' },
    { versionNegotiation: { mode: era } },
  );
  await client.connect(transportFor(p));
  return client;
}

/**
 * Connects without a token: the SDK discovers the server from the 401, registers (or names its metadata
 * document) and hands the authorization URL over; the person answers in the browser; the SDK redeems the code.
 */
async function authorize(
  p: Provider,
  page: Page,
  era: 'legacy' | { pin: string },
  choose: (page: Page) => Promise<void>,
): Promise<void> {
  const client = new Client(
    { name: 'oauth-flow-test', version: '1.0.0' },
    { versionNegotiation: { mode: era } },
  );
  const transport = transportFor(p);
  await assert.rejects(client.connect(transport), (err) => err instanceof UnauthorizedError);
  const url = p.authorizationUrl;
  assert.ok(url, 'the SDK asked for an authorization');
  assert.equal(url.origin, world.base);
  assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
  assert.equal(url.searchParams.get('resource'), `${world.base}/mcp`);
  let callback: URL | null = null;
  await page.route(`${CALLBACK}**`, async (route) => {
    callback = new URL(route.request().url());
    await route.fulfill({ status: 200, contentType: 'text/plain', body: 'You can close this window.' });
  });
  await page.goto(url.href);
  await page.waitForURL(/\/connect\?/);
  await choose(page);
  await page.waitForURL(`${CALLBACK}**`);
  const back = callback as URL | null;
  assert.ok(back, 'the browser came back to the client');
  assert.equal(back.searchParams.get('iss'), world.base);
  assert.ok(back.searchParams.get('code'));
  await transport.finishAuth(back.searchParams);
  await client.close().catch(() => {});
}

async function toolNames(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((t) => t.name);
}

test('a client metadata document: consent in test mode, read only; refresh rotates; the old refresh token is refused', async () => {
  const cimd = provider('Pasture Assistant', CALLBACK, cimdUrl);
  const { page, problems } = await signedInPage(world, world.account, PHONE);
  await authorize(cimd, page, { pin: '2026-07-28' }, async (pg) => {
    await pg.getByRole('heading', { name: 'Connect Pasture Assistant?' }).waitFor();
    assert.match((await pg.locator('.redirect-host').textContent()) ?? '', /127\.0\.0\.1:1/);
    assert.equal(await pg.locator('.published-by').textContent(), new URL(cimdUrl).host);
    await pg.getByLabel('Test farms (sample)').check();
    await pg.getByLabel('Read only').check();
    await assertNoHorizontalScroll(pg);
    await screenshot(pg, 'console-connect-phone');
    await pg.getByRole('button', { name: 'Allow' }).scrollIntoViewIfNeeded();
    await screenshot(pg, 'console-connect-phone-answer');
    await pg.getByRole('button', { name: 'Allow' }).click();
  });
  assert.equal(cimd.stored.tokens?.access_token.startsWith('ro_'), true);
  assert.equal((cimd.stored as { client?: { client_id: string } }).client?.client_id, cimdUrl);

  const client = await connected(cimd, { pin: '2026-07-28' });
  const tools = await toolNames(client);
  assert.ok(tools.includes('list_farms') && tools.includes('farm_brief'));
  assert.ok(!tools.includes('add_task') && !tools.includes('house_command'), 'read only: no write tools');
  const farms = await client.callTool({ name: 'list_farms', arguments: {} });
  assert.match(JSON.stringify(farms.content), /Willow Creek Farm \(sample\)/);
  await client.close();

  // Refresh, as the SDK does when its token is refused: a new pair, the old refresh token spent.
  const old = cimd.stored.tokens;
  assert.ok(old?.refresh_token);
  assert.equal(await auth(cimd, { serverUrl: new URL('/mcp', world.base) }), 'AUTHORIZED');
  const renewed = cimd.stored.tokens;
  assert.ok(renewed?.refresh_token && renewed.refresh_token !== old.refresh_token);
  assert.notEqual(renewed.access_token, old.access_token);
  const again = await connected(cimd, { pin: '2026-07-28' });
  assert.ok((await toolNames(again)).includes('list_farms'));
  await again.close();
  const discovery = (cimd.stored as { discovery?: { authorizationServerMetadata?: never } }).discovery;
  await assert.rejects(
    refreshAuthorization(world.base, {
      metadata: discovery?.authorizationServerMetadata,
      clientInformation: { client_id: cimdUrl },
      refreshToken: old.refresh_token,
      resource: new URL(`${world.base}/mcp`),
    }),
    /invalid_grant|already used/,
  );
  // The metadata document was fetched once and then served from the cache.
  assert.equal(cimdFetches, 1);
  assert.deepEqual(
    problems.filter((x) => !x.includes(CALLBACK.slice(0, 20))),
    [],
  );
});

test('Dynamic Client Registration: one farm, read and record; the account page disconnects it at once', async () => {
  const dcr = provider('Barn Helper', CALLBACK);
  const { page, problems } = await signedInPage(world, world.account, DESKTOP);
  page.on('dialog', (dialog) => dialog.accept());
  const farms = await world.t.request<{ data: { id: string; name: string }[] }>('GET', '/v1/farms', {
    key: world.account.test_key,
  });
  const farm = farms.body.data[0];
  assert.ok(farm);
  await authorize(dcr, page, 'legacy', async (pg) => {
    await pg.getByRole('heading', { name: 'Connect Barn Helper?' }).waitFor();
    await pg.getByLabel('Test farms (sample)').check();
    await pg.getByLabel('Every test farm, also ones added later').uncheck();
    await pg.getByLabel(farm.name).check();
    await pg.getByLabel('Read and record').check();
    await pg.getByRole('button', { name: 'Allow' }).click();
  });
  assert.match((dcr.stored as { client?: { client_id: string } }).client?.client_id ?? '', /^mcp_/);
  assert.equal(await page.locator('.published-by').count(), 0, 'a registered client has no publisher');

  const client = await connected(dcr, 'legacy');
  const tools = await toolNames(client);
  assert.ok(tools.includes('add_task') && tools.includes('log_event') && tools.includes('update_alert'));
  assert.ok(!tools.includes('house_command'), 'read and record: no house or device commands');
  const task = await client.callTool({
    name: 'add_task',
    arguments: { farm_id: farm.id, title: 'Check the water troughs' },
  });
  assert.equal(task.isError ?? false, false, JSON.stringify(task.content));

  await page.goto(`${world.base}/account`);
  const card = page.locator('.agent', { hasText: 'Barn Helper' });
  await card.waitFor();
  assert.match((await card.textContent()) ?? '', /read and record/);
  assert.match((await card.textContent()) ?? '', /1 farm/);
  assert.doesNotMatch((await card.textContent()) ?? '', /last used never/);
  await card.getByRole('button', { name: 'Disconnect' }).click();
  await page.locator('.agent', { hasText: 'Barn Helper' }).waitFor({ state: 'detached' });

  // The very next call is refused; the SDK's attempt to refresh fails too, so it asks to authorize again.
  dcr.authorizationUrl = null;
  await assert.rejects(
    client.listTools(),
    (err) => err instanceof UnauthorizedError || /401|nauthorized/.test(String(err)),
  );
  await client.close().catch(() => {});
  assert.deepEqual(
    problems.filter((x) => !x.includes(CALLBACK.slice(0, 20))),
    [],
  );
});

test('not signed in: the sign-in page first, then the consent; Deny answers access_denied to the client', async () => {
  const person = await signedInPerson(world.t, world.account, 'crew');
  const dcr = provider('Night Watch', CALLBACK);
  const { page, problems } = await openPage(world, PHONE);
  const client = new Client(
    { name: 'oauth-flow-test', version: '1.0.0' },
    { versionNegotiation: { mode: 'legacy' } },
  );
  await assert.rejects(client.connect(transportFor(dcr)), (err) => err instanceof UnauthorizedError);
  assert.ok(dcr.authorizationUrl);
  await page.goto(dcr.authorizationUrl.href);
  await page.waitForURL(/\/sign-in\?next=%2Fconnect%3F/);
  await page.getByLabel('Email').fill(person.session.person.email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Connect Night Watch?' }).waitFor();
  // Crew may let an agent read, no more.
  assert.equal(await page.getByLabel('Read only').count(), 1);
  assert.equal(await page.getByLabel('Full').count(), 0);
  let back: URL | null = null;
  await page.route(`${CALLBACK}**`, async (route) => {
    back = new URL(route.request().url());
    await route.fulfill({ status: 200, contentType: 'text/plain', body: 'ok' });
  });
  await page.getByRole('button', { name: 'Deny' }).click();
  await page.waitForURL(`${CALLBACK}**`);
  const answer = back as URL | null;
  assert.ok(answer);
  assert.equal(answer.searchParams.get('error'), 'access_denied');
  assert.equal(answer.searchParams.get('iss'), world.base);
  const transport = transportFor(dcr);
  await assert.rejects(transport.finishAuth(answer.searchParams), /access_denied|did not allow/);
  assert.equal(dcr.stored.tokens, undefined, 'no tokens after a denial');
  assert.deepEqual(
    problems.filter((x) => !x.includes(CALLBACK.slice(0, 20))),
    [],
  );
});
