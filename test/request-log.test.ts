import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.ts';
import type { Database } from '../src/db/database.ts';
import { openDatabase } from '../src/db/database.ts';
import type { Engine } from '../src/db/engine.ts';
import { loggableUrl, loggerOptions, redactUrl } from '../src/http/logging.ts';
import { randomToken } from '../src/lib/secrets.ts';
import { createAccount } from '../src/modules/accounts/service.ts';
import { createSetupLink } from '../src/modules/people/links.ts';
import { UsageCounter } from '../src/modules/usage/counter.ts';
import { ENGINES, testConfig, waitFor } from './engines.ts';
import { openSse } from './sse.ts';

test('redactUrl hides key-shaped values and credential-named parameters, and keeps the rest', () => {
  assert.equal(redactUrl('/v1/farms?api_key=abc123&limit=5'), '/v1/farms?api_key=[redacted]&limit=5');
  assert.equal(redactUrl(`/v1/farms?x=rk_live_${'a'.repeat(32)}`), '/v1/farms?x=rk_live_[redacted]');
  assert.equal(redactUrl(`/v1/keys/rd_${'b'.repeat(32)}`), '/v1/keys/rd_[redacted]');
  // The broker hooks' secret, on a path no route matched (a wrong method or a typo in the path).
  assert.equal(redactUrl('/broker-hooks/s3cret-value/emqx/authm'), '/broker-hooks/[redacted]/emqx/authm');
  assert.equal(redactUrl('/broker-hooks/s3cret-value?x=1'), '/broker-hooks/[redacted]?x=1');
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

/**
 * Path parameters that are record ids (public in any log), and the console's settings `section` (a word).
 * Any other parameter is a new kind of thing in a
 * path: its route must say whether it is a secret (`config.secrets`) or this list must name it.
 */
const NOT_SECRET = new Set(['farm', 'id', 'delivery_id', 'eui', 'hash', 'section', '*']);

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
