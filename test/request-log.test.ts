import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.ts';
import type { Database } from '../src/db/database.ts';
import { openDatabase } from '../src/db/database.ts';
import type { Engine } from '../src/db/engine.ts';
import { loggableUrl, loggerOptions, redactUrl, SecretPaths } from '../src/http/logging.ts';
import { randomToken } from '../src/lib/secrets.ts';
import { createAccount } from '../src/modules/accounts/service.ts';
import { HOOKS_ROOT } from '../src/modules/broker-hooks/routes.ts';
import { createSetupLink } from '../src/modules/people/links.ts';
import { UsageCounter } from '../src/modules/usage/counter.ts';
import { ENGINES, testConfig, waitFor } from './engines.ts';
import { openSse } from './sse.ts';

test('redactUrl hides key-shaped values and credential-named parameters, and keeps the rest', () => {
  assert.equal(redactUrl('/v1/farms?api_key=abc123&limit=5'), '/v1/farms?api_key=[redacted]&limit=5');
  assert.equal(redactUrl(`/v1/farms?x=rk_live_${'a'.repeat(32)}`), '/v1/farms?x=rk_live_[redacted]');
  assert.equal(redactUrl(`/v1/keys/rd_${'b'.repeat(32)}`), '/v1/keys/rd_[redacted]');
  // The broker hooks' secret, on a path no route matched (a wrong method or a typo in the path), also where
  // the app does not serve the hooks (a broker pointed at a service not configured for them).
  assert.equal(redactUrl('/broker-hooks/s3cret-value/emqx/authm'), '/broker-hooks/[redacted]/emqx/authm');
  assert.equal(redactUrl('/broker-hooks/s3cret-value?x=1'), '/broker-hooks/[redacted]?x=1');
  assert.equal(redactUrl('/Broker-Hooks//s3cret-value/'), '/Broker-Hooks//[redacted]/');
  assert.equal(
    redactUrl(`${HOOKS_ROOT.replace(':secret', 's3cret-value')}/x?password=p`),
    '/broker-hooks/[redacted]/x?password=[redacted]',
  );
  // Secret places come from the routes' declarations (the route table gives the app's).
  const declared = new SecretPaths([{ url: '/v1/things/:id/claim/:code', secrets: ['code', 'pin'] }]);
  assert.equal(
    redactUrl('/v1/things/thing_1/claim/c0de/?pin=1234&limit=5', declared),
    '/v1/things/thing_1/claim/[redacted]/?pin=[redacted]&limit=5',
  );
  assert.equal(redactUrl('/v1/things/thing_1/claim/c0de/'), '/v1/things/thing_1/claim/c0de/');
  assert.equal(redactUrl('/v1/farms?token=t&key=k'), '/v1/farms?token=[redacted]&key=[redacted]');
  assert.equal(redactUrl('/v1/farms/farm_1/animals?q=rk'), '/v1/farms/farm_1/animals?q=rk');
});

test('loggableUrl hides the path and query parameters a route declares secret, by position', () => {
  const setup = { url: '/v1/setup/:token', config: { secrets: ['token'] } };
  assert.equal(loggableUrl('/v1/setup/abc', setup), '/v1/setup/[redacted]');
  assert.equal(loggableUrl('/v1/setup/abc/?x=abc', setup), '/v1/setup/[redacted]/?x=abc');
  const token = { url: '/oauth/token', config: { secrets: ['code', 'refresh_token'] } };
  assert.equal(loggableUrl('/oauth/token?code=c1&state=s', token), '/oauth/token?code=[redacted]&state=s');
  assert.equal(
    loggableUrl('/oauth/token?refresh%5Ftoken=r', token),
    '/oauth/token?refresh%5Ftoken=[redacted]',
  );
  assert.equal(loggableUrl('/v1/farms/farm_1', { url: '/v1/farms/:farm' }), '/v1/farms/farm_1');
});

test('every kind of key, token, code and secret the service issues is hidden wherever it appears in a URL', () => {
  const tokens = {
    live: `rk_live_${'a'.repeat(32)}`,
    test: `rk_test_${'b'.repeat(32)}`,
    device: `rd_${'c'.repeat(32)}`,
    access: `ro_${'d'.repeat(32)}`,
    refresh: `rr_${'e'.repeat(40)}`,
    code: `rc_${'f'.repeat(32)}`,
    uplink: `lwi_${'g'.repeat(32)}`,
    // Standard base64: + / and = as they are, or percent-encoded.
    webhook: `whsec_${'h'.repeat(20)}+i/j${'k'.repeat(20)}=`,
  };
  for (const [kind, token] of Object.entries(tokens)) {
    const prefix = token.slice(0, token.indexOf('_', token.startsWith('rk_') ? 3 : 0) + 1);
    const secretPart = token.slice(prefix.length, prefix.length + 16);
    for (const url of [
      `/v1/farms?x=${token}`,
      `/v1/farms?limit=5&x=${token}&y=1`,
      `/v1/farms?x=${encodeURIComponent(token)}`,
      `/v1/farms?x=${encodeURIComponent(`a=${token}`)}`,
      `/v1/farms?x=%${token.charCodeAt(0).toString(16)}${token.slice(1)}`,
      `/v1/keys/${token}`,
      `/v1/keys/${encodeURIComponent(token)}/x`,
    ]) {
      const logged = redactUrl(url);
      assert.ok(!logged.includes(secretPart), `${kind}: ${url} → ${logged}`);
      assert.ok(!logged.includes(token.slice(-8)), `${kind}: ${url} → ${logged}`);
    }
    assert.equal(redactUrl(`/v1/farms?x=${token}&limit=5`), `/v1/farms?x=${prefix}[redacted]&limit=5`, kind);
  }
  assert.equal(
    redactUrl('/v1/farms?code_verifier=v&refresh_token=r'),
    '/v1/farms?code_verifier=[redacted]&refresh_token=[redacted]',
  );
  // Words that merely contain a prefix are not keys.
  assert.equal(
    redactUrl('/v1/farms/farm_1/animals?q=third_row&r=pro_x'),
    '/v1/farms/farm_1/animals?q=third_row&r=pro_x',
  );
});

/**
 * The prefixes the code puts before a random token: every one is a secret's (hidden above) or a public id's.
 * A new kind of secret must be added to logging.ts's KEY_PREFIXES; a new kind of id to this list.
 */
const PUBLIC_ID_PREFIXES = new Set(['agt_', 'ocl_', 'mcp_', 'req_']);

test('the code issues no token with a prefix the log does not know', () => {
  const root = path.resolve(import.meta.dirname, '../src');
  const files = (readdirSync(root, { recursive: true }) as string[]).filter(
    (f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.includes(`console${path.sep}web`),
  );
  const prefixes = new Set<string>();
  for (const file of files) {
    const text = readFileSync(path.join(root, file), 'utf8');
    const constants = new Map<string, string>();
    for (const m of text.matchAll(/const (\w+) = '([a-z]+_)';/g))
      constants.set(m[1] as string, m[2] as string);
    for (const m of text.matchAll(/`((?:[a-z]*_|\$\{\w+\})+)\$\{random(?:Token|Bytes)\(/g)) {
      const literal = (m[1] as string).replace(/\$\{(\w+)\}/g, (whole, name: string) =>
        name === 'mode' ? '{mode}' : (constants.get(name) ?? whole),
      );
      for (const mode of ['live', 'test']) prefixes.add(literal.replace('{mode}', mode));
    }
  }
  assert.ok(prefixes.size >= 8, `found ${[...prefixes].join(', ')}`);
  const unknown = [...prefixes].filter((prefix) => {
    if (PUBLIC_ID_PREFIXES.has(prefix)) return false;
    if (!/^[a-z_]+$/.test(prefix)) return true;
    return redactUrl(`/v1/farms?x=${prefix}${'Z'.repeat(32)}`).includes('Z'.repeat(32));
  });
  assert.deepEqual(unknown, []);
});

/**
 * Path parameters that are record ids (public in any log), the console's settings `section` and the user
 * guide's `page` (words). Any other parameter is a new kind of thing in a
 * path: its route must say whether it is a secret (`config.secrets`) or this list must name it.
 */
const NOT_SECRET = new Set(['farm', 'id', 'delivery_id', 'eui', 'hash', 'section', 'page', '*']);

/** The app on a fresh database of `engine`, logging JSON lines at info into `lines`, closed after `fn`. */
async function withLoggedApp(
  engine: Engine,
  fn: (logged: {
    app: FastifyInstance;
    database: Database;
    lines: Record<string, unknown>[];
  }) => Promise<void>,
): Promise<void> {
  const lines: Record<string, unknown>[] = [];
  const stream = { write: (line: string) => void lines.push(JSON.parse(line)) };
  const { config, cleanup } = await testConfig(engine, { webhookWorkerInProcess: false }, { migrated: true });
  const database = await openDatabase(config, { onPoolError: () => {} });
  const usage = new UsageCounter(database.db, 60_000);
  const app = await buildApp({
    config,
    database,
    usage,
    logger: loggerOptions({ logLevel: 'info', logFormat: 'json' }, stream),
  });
  try {
    await fn({ app, database, lines });
  } finally {
    await app.close();
    await usage.close().catch(() => {});
    await database.close();
    await cleanup();
  }
}

for (const engine of ENGINES) {
  test(`[${engine}] the request log carries the key prefix and never a key sent in the query string`, async () => {
    await withLoggedApp(engine, async ({ app, database, lines }) => {
      const acct = await createAccount(database.db, { name: 'Log test' });
      const res = await app.inject({
        method: 'GET',
        url: `/v1/farms?api_key=${acct.live_key}&other=${acct.test_key}`,
        headers: { authorization: `Bearer ${acct.live_key}` },
      });
      assert.equal(res.statusCode, 400, 'unknown query parameters are refused, and still logged safely');
      const ok = await app.inject({
        method: 'GET',
        url: '/v1/farms',
        headers: { authorization: `Bearer ${acct.live_key}` },
      });
      assert.equal(ok.statusCode, 200);
      const text = lines.map((l) => JSON.stringify(l)).join('\n');
      assert.ok(!text.includes(acct.live_key), 'the live key is in the log');
      assert.ok(!text.includes(acct.test_key.slice(8)), 'the test key is in the log');
      assert.match(text, /api_key=\[redacted\]/);
      const answered = lines.filter((l) => l.msg === 'request');
      assert.equal(answered.length, 2);
      for (const line of answered) {
        assert.equal(line.key, acct.live_key.slice(0, 12), 'prefix on every request line');
        for (const member of ['method', 'route', 'status', 'duration_ms', 'reqId'])
          assert.ok(member in line, member);
      }
    });
  });
}

for (const engine of ENGINES) {
  test(`[${engine}] a live stream leaves one request line when it ends, whichever side ends it`, async () => {
    await withLoggedApp(engine, async ({ app, database, lines }) => {
      const streamLines = () =>
        lines.filter((l) => l.msg === 'request' && l.route === '/v1/farms/:farm/stream');
      const acct = await createAccount(database.db, { name: 'Stream log test' });
      await app.listen({ host: '127.0.0.1', port: 0 });
      const address = app.server.address();
      const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/v1/farms/${acct.sample_farm_id}/stream`;

      // The client leaves.
      const left = await openSse(url, acct.test_key);
      assert.equal(left.status, 200);
      await waitFor('the opening frame', () => left.retry !== null);
      assert.equal(streamLines().length, 0, 'nothing logged while the stream runs');
      left.close();
      await waitFor('the line of the stream its client closed', () => streamLines().length === 1);
      const [closed] = streamLines();
      assert.equal(closed?.status, 200);
      assert.equal(closed?.closed_by_client, true);
      assert.equal(closed?.key, acct.test_key.slice(0, 12));

      // The server ends it (shutting down): the response completes, logged once, without closed_by_client.
      const ended = await openSse(url, acct.test_key);
      await waitFor('the opening frame', () => ended.retry !== null);
      await app.close();
      assert.deepEqual(await ended.ended, { clean: true });
      await waitFor('the line of the stream the server ended', () => streamLines().length === 2);
      assert.equal(streamLines()[1]?.closed_by_client, undefined);
    });
  });
}

for (const engine of ENGINES) {
  test(`[${engine}] no one-time token (setup, acknowledge, OAuth code) is in the log of a request that carried it`, async () => {
    await withLoggedApp(engine, async ({ app, database, lines }) => {
      const acct = await createAccount(database.db, { name: 'Token log test' });
      const { token: setup } = await createSetupLink(
        database.db,
        { accountId: acct.account_id, email: null, role: 'owner' },
        Date.now(),
      );
      const ack = randomToken(32);
      const [code, verifier, refresh] = [randomToken(32), randomToken(43), randomToken(32)];
      const requests: { method: 'GET' | 'POST'; url: string; body?: object }[] = [
        { method: 'GET', url: `/setup/${setup}` },
        { method: 'GET', url: `/setup/${setup}?from=mail` },
        { method: 'GET', url: `/v1/setup/${setup}` },
        { method: 'POST', url: `/v1/setup/${setup}`, body: { password: 'short' } },
        { method: 'GET', url: `/ack/${ack}` },
        { method: 'GET', url: `/v1/notifications/acknowledge/${ack}` },
        {
          method: 'POST',
          url: `/oauth/token?grant_type=authorization_code&code=${code}&code_verifier=${verifier}`,
        },
        { method: 'POST', url: `/oauth/token?grant_type=refresh_token&refresh_token=${refresh}` },
        { method: 'POST', url: `/oauth/revoke?token=${refresh}` },
      ];
      for (const r of requests) {
        const res = await app.inject({
          method: r.method,
          url: r.url,
          ...(r.body ? { payload: r.body } : {}),
        });
        assert.ok(res.statusCode < 500, `${r.method} ${r.url}: ${res.statusCode}`);
      }
      const logged = lines.filter((l) => l.msg === 'request');
      assert.equal(logged.length, requests.length, 'one line per request');
      const text = lines.map((l) => JSON.stringify(l)).join('\n');
      for (const [name, secret] of Object.entries({ setup, ack, code, verifier, refresh }))
        assert.ok(!text.includes(secret), `the ${name} token is in the log`);
      assert.deepEqual(
        logged.map((l) => l.url),
        [
          '/setup/[redacted]',
          '/setup/[redacted]?from=mail',
          '/v1/setup/[redacted]',
          '/v1/setup/[redacted]',
          '/ack/[redacted]',
          '/v1/notifications/acknowledge/[redacted]',
          '/oauth/token?grant_type=authorization_code&code=[redacted]&code_verifier=[redacted]',
          '/oauth/token?grant_type=refresh_token&refresh_token=[redacted]',
          '/oauth/revoke?token=[redacted]',
        ],
      );
    });
  });
}

for (const engine of ENGINES) {
  test(`[${engine}] no token is in the log of a path no route matched, nor of a key-shaped query value`, async () => {
    await withLoggedApp(engine, async ({ app, database, lines }) => {
      const acct = await createAccount(database.db, { name: 'Unmatched log test' });
      const { token: setup } = await createSetupLink(
        database.db,
        { accountId: acct.account_id, email: null, role: 'owner' },
        Date.now(),
      );
      const ack = randomToken(43);
      const code = `rc_${randomToken(32)}`;
      const keys = {
        access: `ro_${randomToken(32)}`,
        refresh: `rr_${randomToken(40)}`,
        code,
        uplink: `lwi_${randomToken(32)}`,
        webhook: `whsec_${randomToken(20)}+/${randomToken(20)}=`,
        device: `rd_${randomToken(32)}`,
      };
      const requests: { method: 'GET' | 'POST'; url: string; logged: string }[] = [
        // A trailing slash, an extra segment, another case, a doubled slash, an escaped letter: no route.
        { method: 'GET', url: `/v1/setup/${setup}/`, logged: '/v1/setup/[redacted]/' },
        { method: 'POST', url: `/v1/setup/${setup}/`, logged: '/v1/setup/[redacted]/' },
        { method: 'GET', url: `/setup/${setup}/`, logged: '/setup/[redacted]/' },
        { method: 'GET', url: `/setup/${setup}/?from=mail`, logged: '/setup/[redacted]/?from=mail' },
        { method: 'GET', url: `/ack/${ack}/x`, logged: '/ack/[redacted]/x' },
        {
          method: 'GET',
          url: `/v1/notifications/acknowledge/${ack}/`,
          logged: '/v1/notifications/acknowledge/[redacted]/',
        },
        {
          method: 'POST',
          url: `/v1/notifications/acknowledge/${ack}/extra`,
          logged: '/v1/notifications/acknowledge/[redacted]/extra',
        },
        { method: 'GET', url: `/V1/Setup/${setup}`, logged: '/V1/Setup/[redacted]' },
        { method: 'GET', url: `//v1/setup/${setup}/`, logged: '//v1/setup/[redacted]/' },
        { method: 'GET', url: `/v1/%73etup/${setup}/`, logged: '/v1/%73etup/[redacted]/' },
        // An unmatched route's query secret.
        { method: 'POST', url: `/oauth/token/?code=${code}`, logged: '/oauth/token/?code=[redacted]' },
        // Key-shaped values in parameters not named like credentials.
        ...Object.values(keys).map((key) => ({
          method: 'GET' as const,
          url: `/v1/farms?x=${encodeURIComponent(key)}`,
          logged: `/v1/farms?x=${key.slice(0, key.indexOf('_') + 1)}[redacted]`,
        })),
      ];
      for (const r of requests) {
        const res = await app.inject({
          method: r.method,
          url: r.url,
          headers: { authorization: `Bearer ${acct.test_key}` },
        });
        assert.ok(res.statusCode < 500, `${r.method} ${r.url}: ${res.statusCode}`);
      }
      const logged = lines.filter((l) => l.msg === 'request');
      assert.equal(logged.length, requests.length, 'one line per request');
      const text = lines.map((l) => JSON.stringify(l)).join('\n');
      for (const [name, secret] of Object.entries({ setup, ack, ...keys })) {
        assert.ok(!text.includes(secret.slice(3, 20)), `the ${name} token is in the log`);
        assert.ok(!text.includes(secret.slice(-12)), `the ${name} token's end is in the log`);
      }
      assert.deepEqual(
        logged.map((l) => l.url),
        requests.map((r) => r.logged),
      );
    });
  });
}

test('every route that declares a secret path parameter hides it on paths no route matches', async () => {
  await withLoggedApp(ENGINES[0] ?? 'sqlite', async ({ app }) => {
    const secretPaths = app.routeTable.secretPaths();
    let checked = 0;
    for (const route of app.routeTable.routes) {
      const segments = route.url.split('/');
      if (!segments.some((s) => s.startsWith(':') && route.secrets.includes(s.slice(1)))) continue;
      const tokens: string[] = [];
      const url = segments
        .map((s) => {
          if (!s.startsWith(':')) return s;
          const token = randomToken(32);
          if (route.secrets.includes(s.slice(1))) tokens.push(token);
          return token;
        })
        .join('/');
      const variants = [
        url,
        `${url}/`,
        `${url}/more`,
        `${url}/?q=1`,
        url.toUpperCase(),
        `/${url}`,
        url.replace(/[a-z]/, (c) => `%${c.charCodeAt(0).toString(16)}`),
        // A request target in absolute form, as a client talking to a proxy writes it.
        `http://farm.example${url}/`,
      ];
      for (const variant of variants) {
        const logged = redactUrl(variant, secretPaths);
        for (const token of tokens) {
          assert.ok(
            !logged.includes(token) && !logged.includes(token.toUpperCase()),
            `${route.method} ${route.url}: ${variant} logged as ${logged}`,
          );
        }
        checked++;
      }
    }
    assert.ok(checked >= 8 * 4, `the setup, acknowledge and console routes at least (${checked})`);
  });
});

test('every path parameter of every route is a record id or declared secret (a new route decides which)', async () => {
  await withLoggedApp(ENGINES[0] ?? 'sqlite', async ({ app }) => {
    const undecided: string[] = [];
    for (const route of app.routeTable.routes) {
      for (const segment of route.url.split('/')) {
        const param = segment.startsWith(':') ? segment.slice(1) : segment === '*' ? '*' : null;
        if (param === null || NOT_SECRET.has(param) || route.secrets.includes(param)) continue;
        undecided.push(`${route.method} ${route.url} :${param}`);
      }
    }
    assert.deepEqual(undecided, []);
  });
});
