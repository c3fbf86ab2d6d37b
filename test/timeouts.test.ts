/**
 * Slow clients and connection caps, on a real listener with raw sockets (node:net): a trickled body or
 * trickled headers are cut off at the configured deadlines, connections over the per-address or total cap
 * are refused with the Error object, and a normal client still works.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Config } from '../src/config.ts';
import { ENGINES, startTestApp, type TestApp, waitFor } from './harness.ts';
import type { Farm, FarmEvent, List } from './replies.ts';
import { openSse } from './sse.ts';

interface RawClient {
  socket: Socket;
  received(): string;
  /** Resolves with the ms from connecting to the socket's close. */
  closed: Promise<number>;
}

function rawConnect(port: number): Promise<RawClient> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    let text = '';
    const socket = connect({ host: '127.0.0.1', port });
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    socket.on('error', () => {});
    const closed = new Promise<number>((done) => socket.once('close', () => done(Date.now() - started)));
    socket.once('connect', () => resolve({ socket, received: () => text, closed }));
    socket.once('error', reject);
  });
}

async function listen(t: TestApp): Promise<number> {
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const address = t.app.server.address();
  assert.ok(address && typeof address === 'object');
  return address.port;
}

/** Sends `text` one byte every `everyMs` until the socket closes; returns how many bytes went out. */
function trickle(client: RawClient, text: string, everyMs: number): { sent(): number } {
  let i = 0;
  const timer = setInterval(() => {
    if (client.socket.destroyed || i >= text.length) return clearInterval(timer);
    client.socket.write(text[i++] as string);
  }, everyMs);
  client.socket.once('close', () => clearInterval(timer));
  return { sent: () => i };
}

/**
 * Deadlines as short as a loaded test machine allows without flaking (config's floor is 100 ms): real time
 * must pass for each, so they set most of this file's length. Node checks the request and headers deadlines
 * every min(1 s, headers deadline) (see timeoutOptions), so a cut comes up to one interval late. Trickling
 * clients send a byte every TRICKLE_MS, well inside the idle deadline, so only the deadline under test fires.
 */
const SHORT: Partial<Config> = {
  requestTimeoutMs: 500,
  headersTimeoutMs: 250,
  connectionTimeoutMs: 500,
  maxConnectionsPerAddress: 3,
};
const TRICKLE_MS = 50;
const LONGEST_DEADLINE_MS = 500;

for (const engine of ENGINES) {
  describe(`slow clients and connection caps [${engine}]`, () => {
    let t: TestApp;
    let port: number;
    before(async () => {
      t = await startTestApp(engine, SHORT);
      port = await listen(t);
    });
    after(async () => {
      await t.close();
    });

    test('a body trickled one byte at a time is cut off at the request deadline, with or without a key', async () => {
      const acct = await t.account();
      // Both at once: each waits out the same real deadline.
      const slowClient = async (auth: string) => {
        const client = await rawConnect(port);
        const body = JSON.stringify({ name: 'Slow Farm', timezone: 'Europe/Dublin' });
        client.socket.write(
          `POST /v1/farms HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
        );
        const sending = trickle(client, body, TRICKLE_MS);
        const closedAfter = await client.closed;
        assert.ok(closedAfter < 3_000, `held for ${closedAfter} ms`);
        assert.ok(sending.sent() < body.length, 'the body never completed');
        if (auth) assert.match(client.received(), /^HTTP\/1\.1 408 /);
      };
      await Promise.all([slowClient(`Authorization: Bearer ${acct.live_key}\r\n`), slowClient('')]);
      const farms = await t.request<List<Farm>>('GET', '/v1/farms', { key: acct.live_key });
      assert.equal(
        farms.body.data.some((f: { name: string }) => f.name === 'Slow Farm'),
        false,
        'nothing was written',
      );
    });

    test('headers trickled one byte at a time are cut off at the headers deadline', async () => {
      const client = await rawConnect(port);
      const sending = trickle(
        client,
        'GET /v1/catalog HTTP/1.1\r\nHost: x\r\nX-Slow: aaaaaaaaaaaaaaaaaaaa\r\n\r\n',
        TRICKLE_MS,
      );
      const closedAfter = await client.closed;
      assert.ok(closedAfter < 2_000, `held for ${closedAfter} ms`);
      assert.ok(sending.sent() < 40, `sent ${sending.sent()} bytes`);
    });

    test('a live stream outlives the request and idle-connection deadlines (no keep-alive comment due yet)', async () => {
      const acct = await t.account();
      const stream = await openSse(
        `http://127.0.0.1:${port}/v1/farms/${acct.sample_farm_id}/stream`,
        acct.test_key,
      );
      try {
        assert.equal(stream.status, 200);
        const opened = Date.now();
        // Real time must pass for a deadline to pass: three times the longest one, with nothing sent.
        await waitFor('every deadline to pass', () => Date.now() - opened > 3 * LONGEST_DEADLINE_MS, 10_000);
        assert.equal(stream.comments.length, 0, 'no keep-alive in between (15 s by default)');
        const event = await t.request<FarmEvent>('POST', `/v1/farms/${acct.sample_farm_id}/events`, {
          key: acct.test_key,
          body: { type: 'note', data: { note: 'still here' } },
        });
        assert.equal(event.status, 201);
        const got = await waitFor('the event', () =>
          stream.events.find((e) => e.json?.data?.id === event.body.id),
        );
        assert.equal(got.event, 'event.created');
      } finally {
        stream.close();
      }
    });

    test('a connection over the per-address cap is refused with 429 and the Error object; a normal client still works', async () => {
      const held = await Promise.all([rawConnect(port), rawConnect(port), rawConnect(port)]);
      const extra = await rawConnect(port);
      await extra.closed;
      const [head, body] = extra.received().split('\r\n\r\n');
      assert.match(head ?? '', /^HTTP\/1\.1 429 /);
      const error = JSON.parse(body ?? '');
      assert.equal(error.error.code, 'rate_limited');
      assert.match(error.error.message, /at most 3/);
      for (const client of held) client.socket.destroy();
      await Promise.all(held.map((c) => c.closed));
      // Closed connections are counted out: an ordinary client is served again.
      const res = await waitFor('a normal request to succeed', async () => {
        const r = await fetch(`http://127.0.0.1:${port}/v1/catalog`).catch(() => null);
        return r?.status === 200 ? r : null;
      });
      assert.ok(Array.isArray(((await res.json()) as { metrics?: unknown }).metrics));
    });
  });
}

describe('total connection cap', () => {
  test('connections beyond FARMSTEAD_MAX_CONNECTIONS are refused with 503 unavailable', async () => {
    const t = await startTestApp('sqlite', { maxConnections: 2, maxConnectionsPerAddress: 0 });
    try {
      const port = await listen(t);
      const held = await Promise.all([rawConnect(port), rawConnect(port)]);
      const extra = await rawConnect(port);
      await extra.closed;
      assert.match(extra.received(), /^HTTP\/1\.1 503 /);
      assert.equal(JSON.parse(extra.received().split('\r\n\r\n')[1] ?? '').error.code, 'unavailable');
      for (const client of held) client.socket.destroy();
    } finally {
      await t.close();
    }
  });
});
