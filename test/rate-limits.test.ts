import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../src/config.ts';
import { addressBucket } from '../src/lib/address-bucket.ts';
import { device as addDevice, farm as liveFarm, report } from './factories.ts';
import {
  ENGINES,
  expectError,
  forEachEngine,
  openTestAppOn,
  startTestApp,
  type TestApp,
  waitFor,
} from './harness.ts';

const LIMITS = {
  rateLimitEnabled: true,
  rateLimitWindowMs: 60_000,
  rateLimitApiKey: 5,
  rateLimitDeviceKey: 3,
  rateLimitAuthFailures: 4,
};

test('FARMSTEAD_RATE_LIMIT=off turns limits off; defaults are on with documented numbers', () => {
  assert.equal(loadConfig({ FARMSTEAD_RATE_LIMIT: 'off' }).rateLimitEnabled, false);
  const defaults = loadConfig({});
  assert.equal(defaults.rateLimitEnabled, true);
  assert.equal(defaults.rateLimitWindowMs, 60_000);
  assert.equal(defaults.rateLimitApiKey, 1_200);
  assert.equal(defaults.rateLimitDeviceKey, 120);
  assert.equal(defaults.rateLimitAuthFailures, 30);
  assert.throws(() => loadConfig({ FARMSTEAD_RATE_LIMIT_API_KEY: '0' }), /FARMSTEAD_RATE_LIMIT_API_KEY/);
});

/**
 * Real time, shifted so that the app's first reading of the clock falls at the beginning of a rate-limit
 * window (windows are fixed, aligned to the clock): a test's few requests then never straddle two windows,
 * however the suite is timed. The shift is taken then, not when the file is loaded: `npm test` loads a
 * shard's files together, and runs this one minutes later.
 */
function windowAlignedClock(windowMs: number): () => number {
  let shift: number | undefined;
  return () => {
    shift ??= Date.now() % windowMs;
    return Date.now() - shift;
  };
}

/** The rate-limit bucket of an account's live key. */
async function liveKeyBucket(t: TestApp, accountId: string): Promise<string> {
  const key = await t.database.db
    .selectFrom('api_keys')
    .select('id')
    .where('account_id', '=', accountId)
    .where('mode', '=', 'live')
    .executeTakeFirstOrThrow();
  return `api:${key.id}`;
}

/** A bucket's count in the shared table (PostgreSQL). */
async function sharedCount(t: TestApp, bucket: string): Promise<number | null> {
  const row = await t.database.db
    .selectFrom('rate_limit_counters')
    .select('count')
    .where('bucket', '=', bucket)
    .executeTakeFirst();
  return row ? Number(row.count) : null;
}

forEachEngine(
  'rate limits',
  (t) => {
    test('an API key gets its limit per window with RateLimit headers, then 429 rate_limited with Retry-After', async () => {
      const acct = await t().account();
      for (let i = 1; i <= 5; i++) {
        const res = await t().request('GET', '/v1/farms', { key: acct.live_key });
        assert.equal(res.status, 200);
        assert.equal(res.headers['ratelimit-limit'], '5');
        assert.equal(res.headers['ratelimit-remaining'], String(5 - i));
        assert.equal(res.headers['ratelimit-policy'], '5;w=60');
        const reset = Number(res.headers['ratelimit-reset']);
        assert.ok(reset >= 1 && reset <= 60, `reset ${reset}`);
      }
      const refused = await t().request('GET', '/v1/farms', { key: acct.live_key });
      const error = expectError(refused, 429, 'rate_limited');
      assert.match(error.message, /API key: at most 5 per 60 s/);
      const retry = Number(refused.headers['retry-after']);
      assert.ok(retry >= 1 && retry <= 60, `retry-after ${retry}`);
      assert.equal(refused.headers['ratelimit-remaining'], '0');
      assert.equal(refused.headers['www-authenticate'], undefined);
      // Per key: the account's other key is not affected.
      assert.equal((await t().request('GET', '/v1/farms', { key: acct.test_key })).status, 200);
    });

    test('a device key gets its own limit on ingest', async () => {
      const acct = await t().account();
      // Setup spends 3 of the API key's 5 requests.
      const farm = (await liveFarm(t(), acct.live_key)).id;
      const device = await addDevice(t(), acct.live_key, farm);
      const other = await addDevice(t(), acct.live_key, farm, { name: 'House 2' });
      for (let i = 0; i < 3; i++) {
        const res = await report(t(), device.device_key, { battery: 90 });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal(res.headers['ratelimit-limit'], '3');
      }
      const refused = await report(t(), device.device_key, { battery: 90 });
      assert.match(expectError(refused, 429, 'rate_limited').message, /device key/);
      assert.ok(Number(refused.headers['retry-after']) >= 1);
      assert.equal((await report(t(), other.device_key, { battery: 90 })).status, 200, 'per device');
    });

    test('failed authentication is limited per client address; valid keys from it still work', async () => {
      const acct = await t().account();
      for (let i = 0; i < 4; i++) {
        expectError(
          await t().request('GET', '/v1/farms', { key: `rk_live_${'x'.repeat(32)}` }),
          401,
          'unauthorized',
        );
      }
      const refused = await t().request('GET', '/v1/farms', { key: `rk_live_${'y'.repeat(32)}` });
      assert.match(expectError(refused, 429, 'rate_limited').message, /failed authentications/);
      assert.ok(Number(refused.headers['retry-after']) >= 1);
      expectError(await report(t(), 'rd_guess', {}), 429, 'rate_limited');
      assert.equal((await t().request('GET', '/v1/me', { key: acct.live_key })).status, 200);
    });
    test('on PostgreSQL the count is shared by every process: each adds its counts within a second', async (ctx) => {
      if (t().engine !== 'postgres') return ctx.skip('SQLite counts in its one process');
      const acct = await t().account();
      const other = await openTestAppOn(t());
      try {
        for (let i = 0; i < 5; i++) {
          assert.equal((await t().request('GET', '/v1/farms', { key: acct.live_key })).status, 200);
        }
        // What this process counted locally reaches the shared row within RATE_LIMIT_SYNC_MS.
        const bucket = await liveKeyBucket(t(), acct.account_id);
        await waitFor('the counts in the table', async () => (await sharedCount(t(), bucket)) === 5);
        expectError(await other.request('GET', '/v1/farms', { key: acct.live_key }), 429, 'rate_limited');
        expectError(await t().request('GET', '/v1/farms', { key: acct.live_key }), 429, 'rate_limited');
        assert.equal(await sharedCount(t(), bucket), 7, 'both refusals were counted in the table');
      } finally {
        await other.close();
      }
    });

    test('on PostgreSQL a keyed request does not write the shared table each time', async (ctx) => {
      if (t().engine !== 'postgres') return ctx.skip('SQLite counts in its one process');
      const acct = await t().account();
      const bucket = await liveKeyBucket(t(), acct.account_id);
      const first = await t().request('GET', '/v1/farms', { key: acct.live_key });
      const second = await t().request('GET', '/v1/farms', { key: acct.live_key });
      assert.deepEqual(
        [first.headers['ratelimit-remaining'], second.headers['ratelimit-remaining']],
        ['4', '3'],
      );
      // The first request of the window was counted in the table; the second here, until the sync.
      assert.equal(await sharedCount(t(), bucket), 1);
      await waitFor('the sync', async () => (await sharedCount(t(), bucket)) === 2);
    });
  },
  LIMITS,
  { clock: windowAlignedClock(LIMITS.rateLimitWindowMs) },
);

for (const engine of ENGINES) {
  test(`[${engine}] a refused key is served again in the next window`, async () => {
    const t = await startTestApp(engine, { ...LIMITS, rateLimitWindowMs: 1_000, rateLimitApiKey: 2 });
    try {
      const acct = await t.account();
      await t.request('GET', '/v1/farms', { key: acct.live_key });
      await t.request('GET', '/v1/farms', { key: acct.live_key });
      // Within the same one-second window the third is refused (retry until one lands in a fresh window).
      await waitFor('a refusal', async () => {
        const res = await t.request('GET', '/v1/farms', { key: acct.live_key });
        return res.status === 429;
      });
      await waitFor('the next window', async () => {
        const res = await t.request('GET', '/v1/farms', { key: acct.live_key });
        return res.status === 200 && res.headers['ratelimit-policy'] === '2;w=1';
      });
    } finally {
      await t.close();
    }
  });
}

test('with limits off (the test default) answers carry no RateLimit headers', async () => {
  const t = await startTestApp(ENGINES[0] ?? 'sqlite');
  try {
    const acct = await t.account();
    for (let i = 0; i < 20; i++) {
      const res = await t.request('GET', '/v1/farms', { key: acct.live_key });
      assert.equal(res.status, 200);
      assert.equal(res.headers['ratelimit-limit'], undefined);
    }
  } finally {
    await t.close();
  }
});

test('failed authentications count per IPv4 address and per IPv6 /64', () => {
  assert.equal(addressBucket('203.0.113.7'), '203.0.113.7');
  assert.equal(addressBucket('::ffff:203.0.113.7'), '203.0.113.7');
  assert.equal(addressBucket('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
  assert.equal(addressBucket('2001:0db8:0001:0002:ffff:1:2:3'), '2001:db8:1:2::/64');
  assert.equal(addressBucket('2001:db8::1'), '2001:db8:0:0::/64');
  assert.equal(addressBucket('::1'), '0:0:0:0::/64');
  assert.equal(addressBucket('fe80::1%eth0'), 'fe80:0:0:0::/64');
});
