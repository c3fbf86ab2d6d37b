import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { after, test } from 'node:test';
import type { ClaimedDelivery } from './queue-repository.ts';
import { sendDelivery } from './transport.ts';

const settings = { webhookAllowPrivate: true, webhookTimeoutMs: 2_000, webhookRetryScheduleMs: [] };

function delivery(url: string, n: number): ClaimedDelivery {
  return {
    id: `dlv_${n}`,
    webhook_id: 'wh_1',
    url,
    secret: 'whsec_test',
    attempt_count: 0,
    event: { id: `msg_${n}`, type: 'animal.created', farm_id: 'farm_1', created_at: Date.now(), data: '{}' },
  };
}

const servers: Server[] = [];
after(() => {
  for (const s of servers) s.closeAllConnections();
  return Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
});

test('a kept-alive connection the receiver dropped is not a failed attempt: the send goes again on a new one', async () => {
  // The receiver answers the first request on each connection and drops any later one unanswered, as a
  // receiver does that closed an idle connection just as it was reused.
  const served = new WeakSet<Socket>();
  let answered = 0;
  const server = createServer((req, res) => {
    if (served.has(req.socket)) {
      req.socket.destroy();
      return;
    }
    served.add(req.socket);
    req.resume();
    req.on('end', () => {
      answered++;
      res.writeHead(204).end();
    });
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  const first = await sendDelivery(delivery(url, 1), settings);
  assert.equal(first.succeeded, true, first.error ?? '');
  const second = await sendDelivery(delivery(url, 2), settings);
  assert.equal(second.succeeded, true, `the reused connection's reset was retried: ${second.error}`);
  assert.equal(second.status_code, 204);
  assert.equal(answered, 2);
});
