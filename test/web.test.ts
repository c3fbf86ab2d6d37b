import assert from 'node:assert/strict';
import { test } from 'node:test';
import { brotliDecompressSync, deflateSync, gunzipSync, gzipSync } from 'node:zlib';
import { device as addDevice, farm as liveFarm } from './factories.ts';
import { forEachEngine, type TestApp } from './harness.ts';
import { baseUrl } from './mcp.ts';
import type { List, Reading } from './replies.ts';

const ORIGIN = 'https://app.example.com';

/** A raw inject, for bodies and headers the harness does not shape. */
async function inject(
  t: TestApp,
  options: { method: string; url: string; headers?: Record<string, string>; payload?: Buffer | string },
) {
  return t.app.inject({ ...options, method: options.method as 'GET' });
}

forEachEngine(
  'CORS, compression and gzip bodies',
  (t) => {
    test('an allow-listed origin gets CORS headers and a preflight without a key; others get none', async () => {
      const acct = await t().sharedAccount();
      const preflight = await inject(t(), {
        method: 'OPTIONS',
        url: '/v1/farms',
        headers: {
          origin: ORIGIN,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization,content-type',
        },
      });
      assert.equal(preflight.statusCode, 204);
      assert.equal(preflight.headers['access-control-allow-origin'], ORIGIN);
      assert.match(String(preflight.headers['access-control-allow-methods']), /POST/);
      assert.match(String(preflight.headers['access-control-allow-headers']), /authorization/);
      const res = await inject(t(), {
        method: 'GET',
        url: '/v1/farms',
        headers: { origin: ORIGIN, authorization: `Bearer ${acct.live_key}` },
      });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['access-control-allow-origin'], ORIGIN);
      assert.match(String(res.headers['access-control-expose-headers']), /request-id/);
      const other = await inject(t(), {
        method: 'GET',
        url: '/v1/farms',
        headers: { origin: 'https://evil.example', authorization: `Bearer ${acct.live_key}` },
      });
      assert.equal(other.headers['access-control-allow-origin'], undefined);
    });

    test('large responses are compressed with br or gzip when asked; small ones and unasked ones are not', async () => {
      const acct = await t().sharedAccount();
      const url = `/v1/farms/${acct.sample_farm_id}/animals?limit=500`;
      const auth = { authorization: `Bearer ${acct.test_key}` };
      const plain = await inject(t(), { method: 'GET', url, headers: auth });
      assert.equal(plain.headers['content-encoding'], undefined);
      assert.ok(plain.rawPayload.length > 1024);
      const gz = await inject(t(), { method: 'GET', url, headers: { ...auth, 'accept-encoding': 'gzip' } });
      assert.equal(gz.headers['content-encoding'], 'gzip');
      assert.deepEqual(JSON.parse(gunzipSync(gz.rawPayload).toString()), JSON.parse(plain.payload));
      assert.ok(gz.rawPayload.length < plain.rawPayload.length);
      const br = await inject(t(), {
        method: 'GET',
        url,
        headers: { ...auth, 'accept-encoding': 'br, gzip' },
      });
      assert.equal(br.headers['content-encoding'], 'br');
      assert.deepEqual(JSON.parse(brotliDecompressSync(br.rawPayload).toString()), JSON.parse(plain.payload));
      const small = await inject(t(), {
        method: 'GET',
        url: '/v1/me',
        headers: { ...auth, 'accept-encoding': 'gzip' },
      });
      assert.equal(small.statusCode, 200);
      assert.equal(small.headers['content-encoding'], undefined, 'a small answer is sent as is');
    });

    test('ingest accepts a gzip body; a gzip bomb over the body limit is 413; a broken one is 400', async () => {
      const acct = await t().sharedAccount();
      const farm = (await liveFarm(t(), acct.live_key)).id;
      const device = await addDevice(t(), acct.live_key, farm);
      const headers = {
        authorization: `Bearer ${device.device_key}`,
        'content-type': 'application/json',
        'content-encoding': 'gzip',
      };
      const body = { readings: [{ metric: 'feed.bin_pct', value: 61 }] };
      const ok = await inject(t(), {
        method: 'POST',
        url: '/v1/ingest',
        headers,
        payload: gzipSync(JSON.stringify(body)),
      });
      assert.equal(ok.statusCode, 200, ok.payload);
      const readings = await t().request<List<Reading>>('GET', `/v1/devices/${device.id}/readings`, {
        key: acct.live_key,
      });
      assert.equal(readings.body.data[0]!.value, 61);
      // About 2 MB of JSON that gzips to a few kilobytes; the body limit (1 MB) counts decompressed bytes.
      const bomb = gzipSync(JSON.stringify({ state: { note: 'a'.repeat(2 * 1024 * 1024) } }));
      assert.ok(bomb.length < 10_000);
      const refused = await inject(t(), { method: 'POST', url: '/v1/ingest', headers, payload: bomb });
      assert.equal(refused.statusCode, 413, refused.payload);
      assert.equal(JSON.parse(refused.payload).error.code, 'payload_too_large');
      const broken = await inject(t(), {
        method: 'POST',
        url: '/v1/ingest',
        headers,
        payload: Buffer.from('not gzip at all'),
      });
      assert.equal(broken.statusCode, 400, broken.payload);
      assert.equal(typeof JSON.parse(broken.payload).error.message, 'string');
      const deflate = await inject(t(), {
        method: 'POST',
        url: '/v1/ingest',
        headers: { ...headers, 'content-encoding': 'deflate' },
        payload: deflateSync(JSON.stringify(body)),
      });
      assert.equal(deflate.statusCode, 415);
      assert.equal(JSON.parse(deflate.payload).error.code, 'unsupported_media_type');
      const after = await t().request<List<Reading>>('GET', `/v1/devices/${device.id}/readings`, {
        key: acct.live_key,
      });
      assert.equal(after.body.data.length, 1, 'the refused reports stored nothing');
    });

    test('MCP answers still work when the client accepts compression; event streams are never compressed', async () => {
      const acct = await t().sharedAccount();
      const url = `${await baseUrl(t())}/mcp`;
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${acct.test_key}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'accept-encoding': 'gzip, br',
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'find_animals', arguments: { limit: 500 } },
        }),
      });
      assert.equal(res.status, 200);
      const type = res.headers.get('content-type') ?? '';
      const text = await res.text();
      if (type.startsWith('text/event-stream')) {
        assert.equal(res.headers.get('content-encoding'), null, 'an event stream is sent uncompressed');
        assert.match(text, /^(event|data|id):/m);
      } else {
        assert.match(
          res.headers.get('content-encoding') ?? '',
          /br|gzip/,
          'a large JSON answer is compressed',
        );
      }
      assert.match(text, /"structuredContent"/);
    });
  },
  { corsOrigins: [ORIGIN] },
);
