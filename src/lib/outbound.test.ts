/**
 * The outbound client against real local servers: the guard at connect time (IP literals, a name that
 * resolves to loopback, a redirect's next hop), the switch, redirects, the size cap, each timeout (servers
 * that accept and never answer; small timeouts and no sleeps), the User-Agent and kept-alive connections.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Socket } from 'node:net';
import { after, describe, test } from 'node:test';
import {
  OUTBOUND_USER_AGENT,
  OutboundError,
  retryAfterMs,
  sendOutbound,
  sendOutboundUnderPolicy,
} from './outbound.ts';
import { refusalReason } from './url-guard.ts';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  socket: Socket;
}

const closers: Array<() => void> = [];
after(() => {
  for (const close of closers) close();
});

/** An HTTP server on `host` that records each request and answers through `answer` (never, if it does not). */
async function serve(
  answer: (req: IncomingMessage, res: ServerResponse, body: string) => void,
  host = '127.0.0.1',
): Promise<{ base: string; seen: Seen[]; connections: () => number }> {
  const seen: Seen[] = [];
  let connections = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body,
        socket: req.socket,
      });
      answer(req, res, body);
    });
  });
  server.on('connection', () => connections++);
  server.listen(0, host);
  await once(server, 'listening');
  closers.push(() => {
    server.closeAllConnections();
    server.close();
  });
  const port = (server.address() as AddressInfo).port;
  return {
    base: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    seen,
    connections: () => connections,
  };
}

async function failure(promise: Promise<unknown>): Promise<OutboundError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof OutboundError, `an OutboundError, not ${String(err)}`);
    return err;
  }
  assert.fail('the request should have failed');
}

const ok = (_req: IncomingMessage, res: ServerResponse) => res.writeHead(200).end('hello');

describe('the outbound client', () => {
  test('a private address is refused before anything is sent, and reached with the switch on', async () => {
    const server = await serve(ok);
    const refused = await failure(sendOutbound({ url: `${server.base}/x`, allowPrivate: false }));
    assert.equal(refused.kind, 'refused_address');
    assert.match(
      refused.message,
      /^refused: 127\.0\.0\.1 is a loopback address; .*FARMSTEAD_WEBHOOK_ALLOW_PRIVATE=1/,
    );
    assert.equal(server.connections(), 0);
    const answer = await sendOutbound({ url: `${server.base}/x`, allowPrivate: true });
    assert.equal(answer.status, 200);
    assert.equal(answer.body.toString(), 'hello');
    assert.equal(server.seen.length, 1);
  });

  test('a name that resolves to loopback is refused inside the connection, by the address it resolved to', async () => {
    const server = await serve(ok);
    const port = new URL(server.base).port;
    const refused = await failure(sendOutbound({ url: `http://localhost:${port}/x`, allowPrivate: false }));
    assert.equal(refused.kind, 'refused_address');
    assert.match(
      refused.message,
      /^refused: localhost resolves to (127\.0\.0\.1|::1), which is a loopback address/,
    );
    assert.equal(server.connections(), 0);
  });

  test('redirects are not followed unless allowed; each hop is guarded again, and credentials stay with their origin', async () => {
    const inside = await serve(ok, '::1');
    const outside = await serve((req, res) => {
      const status = req.url === '/see-other' ? 303 : 302;
      res.writeHead(status, { location: `${inside.base}/landed` }).end('moved');
    });
    // The client's own policy with one exception: 127.0.0.1 stands in for a public address, so the
    // redirect starts from an allowed host and its next hop, ::1, is what the guard must refuse.
    const policy = (address: string) => (address === '127.0.0.1' ? null : refusalReason(address));
    const unfollowed = await sendOutboundUnderPolicy(policy, { url: `${outside.base}/a` });
    assert.equal(unfollowed.status, 302, 'a 3xx is the answer when no redirect is allowed');
    const refused = await failure(
      sendOutboundUnderPolicy(policy, { url: `${outside.base}/a`, redirects: 1 }),
    );
    assert.equal(refused.kind, 'refused_address');
    assert.match(refused.message, /^refused: ::1 is a loopback address/);
    assert.equal(inside.connections(), 0);

    const followed = await sendOutbound({
      url: `${outside.base}/a`,
      allowPrivate: true,
      redirects: 1,
      headers: { authorization: 'Bearer secret' },
    });
    assert.equal(followed.status, 200);
    assert.equal(followed.url, `${inside.base}/landed`);
    assert.equal(
      inside.seen[0]?.headers.authorization,
      undefined,
      'the bearer key is not sent to another origin',
    );
    const posted = await sendOutbound({
      url: `${outside.base}/see-other`,
      method: 'POST',
      body: '{"a":1}',
      headers: { 'content-type': 'application/json' },
      allowPrivate: true,
      redirects: 1,
    });
    assert.equal(posted.status, 200);
    assert.equal(inside.seen[1]?.method, 'GET', 'a 303 is followed with a GET');
    assert.equal(inside.seen[1]?.body, '');
    const tooMany = await sendOutbound({ url: `${outside.base}/a`, allowPrivate: true, redirects: 0 });
    assert.equal(tooMany.status, 302);
  });

  test('an answer larger than the cap is refused, with or without a Content-Length', async () => {
    const big = 'x'.repeat(5000);
    const server = await serve((req, res) => {
      if (req.url === '/declared') res.writeHead(200, { 'content-length': big.length }).end(big);
      else {
        res.writeHead(200);
        res.write(big.slice(0, 2500));
        res.end(big.slice(2500));
      }
    });
    for (const path of ['/declared', '/chunked']) {
      const tooLarge = await failure(
        sendOutbound({ url: `${server.base}${path}`, allowPrivate: true, maxResponseBytes: 4999 }),
      );
      assert.equal(tooLarge.kind, 'too_large', path);
      assert.equal(tooLarge.message, 'the answer is larger than 4999 bytes');
      const fits = await sendOutbound({
        url: `${server.base}${path}`,
        allowPrivate: true,
        maxResponseBytes: 5000,
      });
      assert.equal(fits.body.length, 5000, path);
    }
  });

  test('connecting is bounded: a server that accepts and never completes the TLS handshake', async () => {
    const silent = createTcpServer(() => {});
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const sockets: Socket[] = [];
    silent.on('connection', (s) => sockets.push(s));
    closers.push(() => {
      for (const s of sockets) s.destroy();
      silent.close();
    });
    const port = (silent.address() as AddressInfo).port;
    const started = performance.now();
    const timedOut = await failure(
      sendOutbound({
        url: `https://127.0.0.1:${port}/`,
        allowPrivate: true,
        connectTimeoutMs: 150,
        timeoutMs: 5000,
      }),
    );
    assert.equal(timedOut.kind, 'connect_timeout');
    assert.equal(timedOut.message, 'timed out: no connection within 150 ms');
    assert.ok(performance.now() - started < 2000);
  });

  test('the response headers are bounded: a server that reads the request and never answers', async () => {
    const server = await serve(() => {});
    const timedOut = await failure(
      sendOutbound({ url: `${server.base}/`, allowPrivate: true, headersTimeoutMs: 150, timeoutMs: 5000 }),
    );
    assert.equal(timedOut.kind, 'headers_timeout');
    assert.equal(timedOut.message, 'timed out: no response within 150 ms');
    // Without a headers timeout of its own, the whole deadline ends the wait and says the same.
    const deadline = await failure(
      sendOutbound({ url: `${server.base}/`, allowPrivate: true, timeoutMs: 150 }),
    );
    assert.equal(deadline.kind, 'timeout');
    assert.equal(deadline.message, 'timed out: no response within 150 ms');
  });

  test('the whole exchange is bounded: a server that starts an answer and never finishes it', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200);
      res.write('the start');
    });
    const started = performance.now();
    const timedOut = await failure(
      sendOutbound({ url: `${server.base}/`, allowPrivate: true, timeoutMs: 200 }),
    );
    assert.equal(timedOut.kind, 'timeout');
    assert.equal(timedOut.message, 'timed out: the answer was not complete within 200 ms');
    assert.ok(performance.now() - started < 2000);
  });

  test("the caller's signal aborts the exchange", async () => {
    const arrived = Promise.withResolvers<void>();
    const server = await serve(() => arrived.resolve());
    const controller = new AbortController();
    const pending = sendOutbound({ url: `${server.base}/`, allowPrivate: true, signal: controller.signal });
    await arrived.promise;
    controller.abort();
    const aborted = await failure(pending);
    assert.equal(aborted.kind, 'aborted');
  });

  test('one User-Agent on every request, whatever the caller set; connections are kept alive and reused', async () => {
    const server = await serve(ok);
    const callers: Array<Record<string, string>> = [{}, { 'User-Agent': 'something-else' }, {}, {}];
    for (const headers of callers) {
      await sendOutbound({ url: `${server.base}/`, allowPrivate: true, headers, body: 'x' });
    }
    assert.deepEqual(
      server.seen.map((s) => s.headers['user-agent']),
      callers.map(() => OUTBOUND_USER_AGENT),
    );
    assert.equal(OUTBOUND_USER_AGENT, 'Farmstead/1.0');
    assert.equal(server.seen[0]?.method, 'POST', 'a body without a method is a POST');
    // undici may open a second connection while the first is being handed back to the pool; not four.
    assert.ok(server.connections() <= 2, `${server.connections()} connections for four requests in turn`);
  });

  test('a kept-alive connection the server closed as it was reused is not the answer: the request goes again on a new one', async () => {
    // The server answers the first request on each connection and drops any later one unanswered, as a
    // server does that closed an idle connection just as it was reused.
    const served = new WeakSet<Socket>();
    let dropped = 0;
    const server = await serve((req, res) => {
      if (served.has(req.socket)) {
        dropped++;
        req.socket.destroy();
        return;
      }
      served.add(req.socket);
      res.writeHead(204).end();
    });
    for (let i = 0; i < 4; i++) {
      const answer = await sendOutbound({
        url: `${server.base}/`,
        method: 'POST',
        body: `${i}`,
        allowPrivate: true,
      });
      assert.equal(answer.status, 204, `request ${i}`);
    }
    assert.ok(dropped >= 1, 'a request was sent on a reused connection and dropped');
    assert.equal(server.seen.length, 4 + dropped);
  });

  test('a URL that is not absolute http(s) is refused as bad_url; a network failure says what happened', async () => {
    assert.equal(
      (await failure(sendOutbound({ url: 'ftp://example.com/x', allowPrivate: true }))).kind,
      'bad_url',
    );
    assert.equal((await failure(sendOutbound({ url: '/relative', allowPrivate: true }))).kind, 'bad_url');
    const server = await serve(ok);
    const port = new URL(server.base).port;
    closers.at(-1)?.();
    const refused = await failure(sendOutbound({ url: `http://127.0.0.1:${port}/`, allowPrivate: true }));
    assert.equal(refused.kind, 'network');
    assert.equal(refused.message, 'connection refused (ECONNREFUSED)');
  });
});

test('retryAfterMs reads Retry-After as delta-seconds or an HTTP-date (RFC 9110), else undefined', () => {
  const now = Date.parse('1994-11-06T08:49:00Z');
  assert.equal(retryAfterMs('120', now), 120_000);
  assert.equal(retryAfterMs(' 0 ', now), 0);
  // The three HTTP-date forms, all GMT (the asctime form names no zone).
  assert.equal(retryAfterMs('Sun, 06 Nov 1994 08:49:37 GMT', now), 37_000);
  assert.equal(retryAfterMs('Sunday, 06-Nov-94 08:49:37 GMT', now), 37_000);
  assert.equal(retryAfterMs('Sun Nov  6 08:49:37 1994', now), 37_000);
  // A date already past: no wait.
  assert.equal(retryAfterMs('Sat, 05 Nov 1994 08:49:37 GMT', now), 0);
  for (const bad of [undefined, '', '-5', '1.5', 'soon', '2024-01-01', 'Sun, 99 Nov 1994 99:99:99 GMT']) {
    assert.equal(retryAfterMs(bad, now), undefined, String(bad));
  }
});
