/**
 * The admin API's kicks (FARMSTEAD_MQTT_BROKER_ADMIN) through the real server, on both engines. EMQX and
 * VerneMQ are not installed here: a local HTTP receiver answers as their documents give (EMQX 5's REST API
 * "Clients": DELETE /api/v5/clients/{clientid}, 204 when kicked, 404 CLIENTID_NOT_FOUND otherwise, 401 for
 * a wrong key; VerneMQ's vmq-docs administration/http-administration.md: GET
 * /api/v1/session/disconnect?client-id=…, HTTP Basic with the API key as the user, 200 `[]`) and records
 * every call. A device is let in through the hooks with a client id, its key is rotated or it is deleted
 * through the REST API, and the receiver must get the kick for that client id with the right login. On
 * PostgreSQL a second app on the same database (its own pool, bus connection and memory: what a second
 * process has) lets the device in, and the rotation through the first app kicks it through the bus.
 * RabbitMQ's kick (by username, rabbit_mgmt_wm_connection_user_name: 204, or 404 without a connection) is
 * tested here the same way, and against a real node in test/rabbitmq-hooks.test.ts.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { after, before, describe, test } from 'node:test';
import {
  api,
  type Running,
  SECRET,
  startAnotherApp,
  startHookApp,
  twoDevices,
} from '../../../test/broker-hooks.ts';
import { ENGINES, waitFor } from '../../../test/engines.ts';
import type { MqttBrokerAdminConfig } from '../../config.ts';

interface Call {
  method: string;
  url: string;
  authorization: string | undefined;
}

interface Receiver {
  admin: MqttBrokerAdminConfig;
  calls: Call[];
  /** EMQX: client ids connected (a kick removes one; another is 404). */
  connected: Set<string>;
  /** Answers 503 to this many calls first (a broker busy or restarting). */
  failNext: number;
  close(): Promise<void>;
}

const EMQX_LOGIN = 'fs-kick:emqx-secret-5f0c';
const VERNE_KEY = 'JxctXkZ1OTVnlwvguSCE9KtujacMkOLF';
const basic = (login: string) => `Basic ${Buffer.from(login).toString('base64')}`;

function answer(res: ServerResponse, status: number, body?: unknown): void {
  if (body === undefined) {
    res.writeHead(status).end();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

const RABBIT_LOGIN = 'farmstead-kick:rabbit-pw-81aa';

async function startReceiver(kind: 'emqx' | 'vernemq' | 'rabbitmq'): Promise<Receiver> {
  const login = kind === 'emqx' ? EMQX_LOGIN : kind === 'rabbitmq' ? RABBIT_LOGIN : `${VERNE_KEY}:`;
  const receiver: Receiver = {
    admin: { kind, url: '', authorization: basic(login) },
    calls: [],
    connected: new Set(),
    failNext: 0,
    close: async () => {},
  };
  const server: Server = createServer((req: IncomingMessage, res) => {
    const url = new URL(req.url ?? '/', 'http://receiver');
    receiver.calls.push({
      method: req.method ?? '',
      url: req.url ?? '',
      authorization: req.headers.authorization,
    });
    if (req.headers.authorization !== basic(login)) {
      return answer(res, 401, { code: 'BAD_API_KEY_OR_SECRET', message: 'Check api_key/api_secret' });
    }
    if (receiver.failNext > 0) {
      receiver.failNext--;
      return answer(res, 503, { code: 'SERVICE_UNAVAILABLE', message: 'busy' });
    }
    if (kind === 'rabbitmq') {
      // rabbit_mgmt_wm_connection_user_name: 404 when the user has no connection, else closes them all.
      const match = /^\/api\/connections\/username\/([^/]+)$/.exec(url.pathname);
      if (req.method !== 'DELETE' || !match) return answer(res, 405);
      if (!receiver.connected.delete(decodeURIComponent(match[1] as string))) {
        return answer(res, 404, { error: 'Object Not Found', reason: 'Not Found' });
      }
      return answer(res, 204);
    }
    if (kind === 'emqx') {
      const match = /^\/api\/v5\/clients\/([^/]+)$/.exec(url.pathname);
      if (req.method !== 'DELETE' || !match)
        return answer(res, 404, { code: 'NOT_FOUND', message: 'no route' });
      const clientId = decodeURIComponent(match[1] as string);
      if (!receiver.connected.delete(clientId)) {
        return answer(res, 404, { code: 'CLIENTID_NOT_FOUND', message: 'Client ID not found' });
      }
      return answer(res, 204);
    }
    if (
      req.method !== 'GET' ||
      url.pathname !== '/api/v1/session/disconnect' ||
      !url.searchParams.has('client-id')
    ) {
      return answer(res, 200, { type: 'alert', alert: [{ type: 'text', text: 'usage' }] });
    }
    return answer(res, 200, []);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  Object.assign(receiver.admin, { url: `http://127.0.0.1:${port}` });
  receiver.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return receiver;
}

function postJson(r: Running, path: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${r.base}/broker-hooks/${SECRET}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  }).then(async (res) => {
    assert.equal(res.status, 200, await res.clone().text());
    return res.json();
  });
}

const emqxLogin = (r: Running, username: string, password: string, clientid: string) =>
  postJson(r, '/emqx/authn', { username, password, clientid });

/** The calls whose URL is `url`, once at least `count` arrived (within 5 s). */
function callsTo(receiver: Receiver, url: string, count = 1): Promise<Call[]> {
  return waitFor(
    `${count} call(s) to ${url}`,
    () => {
      const found = receiver.calls.filter((c) => c.url === url);
      return found.length >= count ? found : null;
    },
    5_000,
  );
}

for (const engine of ENGINES) {
  describe(`EMQX kicks [${engine}]`, () => {
    let receiver: Receiver;
    let r: Running;
    before(async () => {
      receiver = await startReceiver('emqx');
      r = await startHookApp(engine, { mqttBrokerAdmin: receiver.admin });
    });
    after(async () => {
      await r.close();
      await receiver.close();
    });

    test('a rotated key kicks the client ids that device was let in with, and only those', async () => {
      const { mine, theirs } = await twoDevices(r);
      for (const id of ['mine-a', 'mine-b', 'theirs-a']) receiver.connected.add(id);
      const allow = { result: 'allow', is_superuser: false };
      assert.deepEqual(await emqxLogin(r, mine.id, mine.device_key, 'mine-a'), allow);
      assert.deepEqual(await emqxLogin(r, mine.id, mine.device_key, 'mine-b'), allow);
      assert.deepEqual(await emqxLogin(r, theirs.id, theirs.device_key, 'theirs-a'), allow);
      // A login refused is not remembered: nothing of it is kicked.
      const deny = { result: 'deny', is_superuser: false };
      assert.deepEqual(await emqxLogin(r, mine.id, theirs.device_key, 'intruder'), deny);

      const rotated = await api<{ device_key: string }>(r, 'POST', `/v1/devices/${mine.id}/key`);
      for (const id of ['mine-a', 'mine-b']) {
        const [call] = await callsTo(receiver, `/api/v5/clients/${id}`);
        assert.equal(call?.method, 'DELETE');
        assert.equal(call?.authorization, basic(EMQX_LOGIN));
      }
      await waitFor('both kicks logged', () =>
        r.lines.filter((l) => l.includes('session disconnected') && l.includes(mine.id)).length === 2
          ? true
          : null,
      );
      assert.ok(!receiver.connected.has('mine-a') && !receiver.connected.has('mine-b'));
      assert.ok(receiver.connected.has('theirs-a'), 'another device was kicked');
      assert.ok(!receiver.calls.some((c) => c.url.includes('intruder')), 'a refused login was kicked');

      // Let in again with the new key: remembered again, and a second rotation kicks that session only.
      receiver.connected.add('mine-c');
      assert.deepEqual(await emqxLogin(r, mine.id, rotated.device_key, 'mine-c'), allow);
      const before = receiver.calls.length;
      await api(r, 'POST', `/v1/devices/${mine.id}/key`);
      await callsTo(receiver, '/api/v5/clients/mine-c');
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.deepEqual(
        receiver.calls.slice(before).map((c) => c.url),
        ['/api/v5/clients/mine-c'],
      );
    });

    test('a deleted device is kicked; a kick answered 503 is tried again; no login reaches the log', async () => {
      const { theirs } = await twoDevices(r);
      receiver.connected.add('gone-a');
      await emqxLogin(r, theirs.id, theirs.device_key, 'gone-a');
      receiver.failNext = 1;
      const res = await fetch(`${r.base}/v1/devices/${theirs.id}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${r.liveKey}` },
      });
      assert.equal(res.status, 200);
      const calls = await callsTo(receiver, '/api/v5/clients/gone-a', 2);
      assert.equal(calls.length, 2);
      assert.ok(!receiver.connected.has('gone-a'));
      assert.ok(r.lines.some((l) => l.includes('trying again') && l.includes('HTTP 503')));
      const log = r.lines.join('\n');
      assert.doesNotMatch(log, /emqx-secret-5f0c/);
      assert.doesNotMatch(log, new RegExp(Buffer.from(EMQX_LOGIN).toString('base64')));
    });

    test('a farm deleted kicks the sessions of its devices', async () => {
      const { mine } = await twoDevices(r);
      const farmId = (await api<{ farm_id: string }>(r, 'GET', `/v1/devices/${mine.id}`)).farm_id;
      receiver.connected.add('farm-a');
      await emqxLogin(r, mine.id, mine.device_key, 'farm-a');
      const res = await fetch(`${r.base}/v1/farms/${farmId}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${r.liveKey}` },
      });
      assert.equal(res.status, 200, await res.text());
      await callsTo(receiver, '/api/v5/clients/farm-a');
      assert.ok(!receiver.connected.has('farm-a'));
    });

    test('a wrong admin login is logged as refused, once, without the login', async () => {
      const wrong = await startReceiver('emqx');
      const other = await startHookApp(engine, {
        mqttBrokerAdmin: { ...wrong.admin, authorization: basic('fs-kick:wrong-secret-77') },
      });
      try {
        const { mine } = await twoDevices(other);
        await emqxLogin(other, mine.id, mine.device_key, 'w-1');
        await api(other, 'POST', `/v1/devices/${mine.id}/key`);
        await callsTo(wrong, '/api/v5/clients/w-1');
        const refused = await waitFor('the refusal logged', () =>
          other.lines.find((l) => l.includes('refused to disconnect')),
        );
        assert.match(refused, /"answer":"HTTP 401"/);
        assert.doesNotMatch(other.lines.join('\n'), /wrong-secret-77/);
        assert.equal(wrong.calls.length, 1, 'a refusal is not tried again');
      } finally {
        await other.close();
        await wrong.close();
      }
    });
  });

  describe(`VerneMQ kicks [${engine}]`, () => {
    let receiver: Receiver;
    let r: Running;
    before(async () => {
      receiver = await startReceiver('vernemq');
      r = await startHookApp(engine, { mqttBrokerAdmin: receiver.admin });
    });
    after(async () => {
      await r.close();
      await receiver.close();
    });

    test('auth_on_register remembers client id and mountpoint; a rotation disconnects them with the API key', async () => {
      const { mine } = await twoDevices(r);
      const register = (clientId: string, mountpoint: string) =>
        postJson(
          r,
          '/vernemq',
          {
            peer_addr: '127.0.0.1',
            peer_port: 8888,
            username: mine.id,
            password: mine.device_key,
            mountpoint,
            client_id: clientId,
            clean_session: false,
          },
          { 'vernemq-hook': 'auth_on_register' },
        );
      assert.deepEqual(await register('vmq-1', ''), { result: 'ok' });
      assert.deepEqual(await register('vmq 2', 'farm-a'), { result: 'ok' });
      // A client id VerneMQ's query language cannot carry is let in, and never sent.
      assert.deepEqual(await register('bad"id', ''), { result: 'ok' });
      await api(r, 'POST', `/v1/devices/${mine.id}/key`);
      const [plain] = await callsTo(receiver, '/api/v1/session/disconnect?client-id=vmq-1');
      assert.equal(plain?.method, 'GET');
      assert.equal(plain?.authorization, basic(`${VERNE_KEY}:`));
      await callsTo(receiver, '/api/v1/session/disconnect?client-id=vmq+2&--mountpoint=farm-a');
      await waitFor('both kicks logged', () =>
        r.lines.filter((l) => l.includes('session disconnected')).length === 2 ? true : null,
      );
      assert.ok(!receiver.calls.some((c) => c.url.includes('bad')));
      assert.equal(r.lines.filter((l) => l.includes('cannot name')).length, 1);
      assert.doesNotMatch(r.lines.join('\n'), new RegExp(VERNE_KEY));
    });
  });
}

describe('RabbitMQ kicks (the device, by username)', () => {
  let receiver: Receiver;
  let r: Running;
  before(async () => {
    receiver = await startReceiver('rabbitmq');
    r = await startHookApp(ENGINES[0] ?? 'sqlite', { mqttBrokerAdmin: receiver.admin });
  });
  after(async () => {
    await r.close();
    await receiver.close();
  });

  test('a rotation asks for the username even when no hook of this process let it in; a farm deleted kicks those let in', async () => {
    const { mine, theirs } = await twoDevices(r);
    // Connected before this process started (nothing remembered): still kicked, by its username.
    receiver.connected.add(mine.id);
    await api(r, 'POST', `/v1/devices/${mine.id}/key`);
    const [call] = await callsTo(receiver, `/api/connections/username/${mine.id}`);
    assert.equal(call?.method, 'DELETE');
    assert.equal(call?.authorization, basic(RABBIT_LOGIN));
    assert.ok(!receiver.connected.has(mine.id));
    // A device with no connection: RabbitMQ's 404 is nothing to do, not a failure.
    await api(r, 'POST', `/v1/devices/${mine.id}/key`);
    await callsTo(receiver, `/api/connections/username/${mine.id}`, 2);
    await waitFor('the 404 read as nothing to do', () =>
      r.lines.find((l) => l.includes('no session to disconnect')),
    );
    assert.ok(!r.lines.some((l) => l.includes('"level":50')), 'an error was logged');
    // Let in through the user path, then its farm deleted: the remembered username is kicked.
    const allowed = await fetch(`${r.base}/broker-hooks/${SECRET}/rabbitmq/user`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: theirs.id, password: theirs.device_key }).toString(),
    });
    assert.equal(await allowed.text(), 'allow');
    receiver.connected.add(theirs.id);
    const farmId = (await api<{ farm_id: string }>(r, 'GET', `/v1/devices/${theirs.id}`)).farm_id;
    const res = await fetch(`${r.base}/v1/farms/${farmId}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${r.liveKey}` },
    });
    assert.equal(res.status, 200);
    await callsTo(receiver, `/api/connections/username/${theirs.id}`);
    assert.ok(!receiver.connected.has(theirs.id));
    assert.doesNotMatch(r.lines.join('\n'), /rabbit-pw-81aa/);
  });
});

describe('two processes on PostgreSQL', { skip: !ENGINES.includes('postgres') && 'no PostgreSQL' }, () => {
  let receiver: Receiver;
  let first: Running;
  let second: Running;
  before(async () => {
    receiver = await startReceiver('emqx');
    first = await startHookApp('postgres', { mqttBrokerAdmin: receiver.admin });
    second = await startAnotherApp(first);
  });
  after(async () => {
    await second.close();
    await first.close();
    await receiver.close();
  });

  test('a key rotated through one process kicks the client let in through the other', async () => {
    const { mine } = await twoDevices(first);
    receiver.connected.add('via-second');
    assert.deepEqual(await emqxLogin(second, mine.id, mine.device_key, 'via-second'), {
      result: 'allow',
      is_superuser: false,
    });
    await api(first, 'POST', `/v1/devices/${mine.id}/key`);
    const [call] = await callsTo(receiver, '/api/v5/clients/via-second');
    assert.equal(call?.authorization, basic(EMQX_LOGIN));
    await waitFor('the second process logged its kick', () =>
      second.lines.find((l) => l.includes('session disconnected') && l.includes('via-second')),
    );
    assert.ok(!first.lines.some((l) => l.includes('via-second')), 'the first process knew the client');
  });
});
