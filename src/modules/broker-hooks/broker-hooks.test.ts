/**
 * The broker hooks through the real HTTP server, on both engines, with each broker's documented requests.
 * Fixtures are the documents' own examples with the device's names put in:
 *  - EMQX: docs.emqx.com/en/emqx/latest/access-control/authn/http.md and authz/http.md (the bodies
 *    docs/deployment.md tells the operator to configure; answers `{"result": …, "is_superuser": …}`);
 *  - VerneMQ: vernemq/vmq-docs plugindevelopment/webhookplugins.md ("Webhook example payload" of each hook);
 *  - RabbitMQ: rabbitmq/rabbitmq-server deps/rabbitmq_auth_backend_http/README.md ("What Must My Web Server
 *    Do?": the parameters of each path, GET query or POST form).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { api, type Running, SECRET, startHookApp, twoDevices } from '../../../test/broker-hooks.ts';
import { ENGINES } from '../../../test/engines.ts';
import { topicOfRoutingKey } from './rabbitmq.ts';
import { hookLogin, hookMayPublish } from './service.ts';

function postJson(r: Running, path: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${r.base}/broker-hooks/${SECRET}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

async function json(res: Response): Promise<unknown> {
  assert.equal(res.status, 200, await res.clone().text());
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  return res.json();
}

async function text(res: Response): Promise<string> {
  assert.equal(res.status, 200, await res.clone().text());
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
  return res.text();
}

test('a routing key is read back as the MQTT topic or filter it came from', () => {
  assert.equal(topicOfRoutingKey('farmstead.devices.dev_1.report'), 'farmstead/devices/dev_1/report');
  assert.equal(topicOfRoutingKey('farmstead.devices.dev_1.*.result'), 'farmstead/devices/dev_1/+/result');
  assert.equal(topicOfRoutingKey('farmstead.devices.#'), 'farmstead/devices/#');
});

test("Farmstead's own broker login is let in with its password only, and may publish anywhere", async () => {
  const deps = {
    db: undefined as never,
    service: { username: 'farmstead', password: 'service-password' },
  };
  assert.deepEqual(await hookLogin(deps, 'farmstead', 'service-password'), { kind: 'service' });
  assert.equal(await hookLogin(deps, 'farmstead', 'wrong'), null);
  assert.equal(
    await hookLogin({ ...deps, service: { username: 'farmstead', password: null } }, 'farmstead', ''),
    null,
  );
  assert.ok(hookMayPublish(deps, 'farmstead', 'farmstead/devices/dev_1/commands'));
  assert.ok(!hookMayPublish(deps, 'dev_1', 'farmstead/devices/dev_1/commands'));
});

for (const engine of ENGINES) {
  describe(`broker hooks [${engine}]`, () => {
    let r: Running;
    let mine: { id: string; device_key: string };
    let theirs: { id: string; device_key: string };
    before(async () => {
      r = await startHookApp(engine);
      ({ mine, theirs } = await twoDevices(r));
    });
    after(async () => {
      await r.close();
    });

    const reportOf = (id: string) => `farmstead/devices/${id}/report`;

    test('EMQX authentication: the right key, a wrong key, and a username that is not the device', async () => {
      const authn = (username: string, password: string) =>
        postJson(r, '/emqx/authn', { username, password, clientid: `${username}-c1` }).then(json);
      assert.deepEqual(await authn(mine.id, mine.device_key), { result: 'allow', is_superuser: false });
      assert.deepEqual(await authn(mine.id, theirs.device_key), { result: 'deny', is_superuser: false });
      assert.deepEqual(await authn(mine.id, `rd_${'x'.repeat(40)}`), { result: 'deny', is_superuser: false });
      assert.deepEqual(await authn(theirs.id, mine.device_key), { result: 'deny', is_superuser: false });
      assert.deepEqual(await authn('', ''), { result: 'deny', is_superuser: false });
      // Its own id as client id, or any other name, but never another device's id (that session is the other's).
      const withClient = (clientid: string) =>
        postJson(r, '/emqx/authn', { username: mine.id, password: mine.device_key, clientid }).then(json);
      assert.deepEqual(await withClient(mine.id), { result: 'allow', is_superuser: false });
      assert.deepEqual(await withClient('barn-sensor-7'), { result: 'allow', is_superuser: false });
      assert.deepEqual(await withClient(theirs.id), { result: 'deny', is_superuser: false });
    });

    test('EMQX authorization: its own report and answers, not another device’s topic, its own subtree only', async () => {
      const authz = (action: string, topic: string, username = mine.id) =>
        postJson(r, '/emqx/authz', { username, clientid: 'c1', action, topic }).then(json);
      assert.deepEqual(await authz('publish', reportOf(mine.id)), { result: 'allow' });
      assert.deepEqual(await authz('publish', `farmstead/devices/${mine.id}/commands/cmd_1/result`), {
        result: 'allow',
      });
      assert.deepEqual(await authz('publish', reportOf(theirs.id)), { result: 'deny' });
      assert.deepEqual(await authz('publish', `farmstead/devices/${mine.id}/commands`), { result: 'deny' });
      assert.deepEqual(await authz('subscribe', `farmstead/devices/${mine.id}/#`), { result: 'allow' });
      assert.deepEqual(await authz('subscribe', `farmstead/devices/${theirs.id}/#`), { result: 'deny' });
      assert.deepEqual(await authz('subscribe', 'farmstead/devices/+/commands'), { result: 'deny' });
      assert.deepEqual(await authz('subscribe', 'farmstead/#'), { result: 'deny' });
      assert.deepEqual(await authz('all', reportOf(mine.id)), { result: 'deny' });
      const bad = await postJson(r, '/emqx/authz', { username: mine.id, action: 'steal', topic: 't' });
      assert.equal(bad.status, 400);
    });

    test('VerneMQ webhooks: auth_on_register, auth_on_publish, auth_on_subscribe and their MQTT 5 forms', async () => {
      const hook = (name: string, body: unknown) =>
        postJson(r, '/vernemq', body, { 'vernemq-hook': name }).then(json);
      const ok = { result: 'ok' };
      const notAllowed = { result: { error: 'not_allowed' } };
      // auth_on_register's example payload, with the device's login.
      const register = (username: string, password: string) => ({
        peer_addr: '127.0.0.1',
        peer_port: 8888,
        username,
        password,
        mountpoint: '',
        client_id: 'clientid',
        clean_session: false,
      });
      assert.deepEqual(await hook('auth_on_register', register(mine.id, mine.device_key)), ok);
      assert.deepEqual(await hook('auth_on_register', register(mine.id, theirs.device_key)), notAllowed);
      assert.deepEqual(await hook('auth_on_register', register(theirs.id, mine.device_key)), notAllowed);
      assert.deepEqual(
        await hook('auth_on_register', { ...register(mine.id, 'x'), username: null }),
        notAllowed,
      );
      // A CONNECT with a username and no password is refused, not a malformed call (VerneMQ would go on
      // down its plugin chain).
      assert.deepEqual(
        await hook('auth_on_register', { ...register(mine.id, 'x'), password: null }),
        notAllowed,
      );
      const { password: _none, ...withoutPassword } = register(mine.id, 'x');
      assert.deepEqual(await hook('auth_on_register', withoutPassword), notAllowed);
      // auth_on_register_m5's example payload.
      const register5 = {
        peer_addr: '127.0.0.1',
        peer_port: 8888,
        mountpoint: '',
        client_id: 'client-id',
        username: mine.id,
        password: mine.device_key,
        clean_start: true,
        properties: {},
      };
      assert.deepEqual(await hook('auth_on_register_m5', register5), ok);
      assert.deepEqual(await hook('auth_on_register_m5', { ...register5, password: 'password' }), notAllowed);

      // auth_on_publish's example payload (the payload base64, VerneMQ's default).
      const publish = (topic: string) => ({
        username: mine.id,
        client_id: 'clientid',
        mountpoint: '',
        qos: 1,
        topic,
        payload: Buffer.from('{"readings":[]}').toString('base64'),
        retain: false,
      });
      assert.deepEqual(await hook('auth_on_publish', publish(reportOf(mine.id))), ok);
      assert.deepEqual(await hook('auth_on_publish', publish(reportOf(theirs.id))), notAllowed);
      assert.deepEqual(
        await hook('auth_on_publish_m5', { ...publish(reportOf(mine.id)), properties: {} }),
        ok,
      );
      assert.deepEqual(
        await hook('auth_on_publish_m5', { ...publish(reportOf(theirs.id)), properties: {} }),
        notAllowed,
      );

      // auth_on_subscribe's example payload: per-filter answers when some are refused.
      const subscribe = (...topics: string[]) => ({
        client_id: 'clientid',
        mountpoint: '',
        username: mine.id,
        topics: topics.map((topic, i) => ({ topic, qos: i % 2 ? 2 : 1 })),
      });
      const own = `farmstead/devices/${mine.id}/commands`;
      const other = `farmstead/devices/${theirs.id}/commands`;
      assert.deepEqual(await hook('auth_on_subscribe', subscribe(own)), ok);
      assert.deepEqual(await hook('auth_on_subscribe', subscribe(other)), notAllowed);
      assert.deepEqual(await hook('auth_on_subscribe', subscribe('farmstead/devices/#')), notAllowed);
      assert.deepEqual(await hook('auth_on_subscribe', subscribe(own, other)), {
        result: 'ok',
        topics: [
          { topic: own, qos: 1 },
          { topic: other, qos: 128 },
        ],
      });
      assert.deepEqual(await hook('auth_on_subscribe_m5', { ...subscribe(own, other), properties: {} }), {
        result: 'ok',
        modifiers: {
          topics: [
            { topic: own, qos: 1 },
            { topic: other, qos: 135 },
          ],
        },
      });

      const unknown = await postJson(r, '/vernemq', publish(reportOf(mine.id)), {
        'vernemq-hook': 'on_publish',
      });
      assert.equal(unknown.status, 400);
      assert.equal(((await unknown.json()) as { error: { param: string } }).error.param, 'vernemq-hook');
    });

    test('RabbitMQ: user, vhost, resource and topic paths, by GET and by POST form', async () => {
      const ask = async (path: string, fields: Record<string, string>, method: 'GET' | 'POST') => {
        const query = new URLSearchParams(fields).toString();
        const url = `${r.base}/broker-hooks/${SECRET}/rabbitmq/${path}`;
        return text(
          method === 'GET'
            ? await fetch(`${url}?${query}`)
            : await fetch(url, {
                method: 'POST',
                headers: { 'content-type': 'application/x-www-form-urlencoded' },
                body: query,
              }),
        );
      };
      const key = (topic: string) => topic.replaceAll('/', '.').replaceAll('+', '*');
      for (const method of ['GET', 'POST'] as const) {
        assert.equal(await ask('user', { username: mine.id, password: mine.device_key }, method), 'allow');
        assert.equal(await ask('user', { username: mine.id, password: theirs.device_key }, method), 'deny');
        assert.equal(await ask('user', { username: theirs.id, password: mine.device_key }, method), 'deny');
        assert.equal(await ask('user', { username: mine.id }, method), 'deny');
        assert.equal(await ask('vhost', { username: mine.id, vhost: '/', ip: '127.0.0.1' }, method), 'allow');
        const resource = (resource: string, name: string, permission: string) =>
          ask('resource', { username: mine.id, vhost: '/', resource, name, permission }, method);
        assert.equal(await resource('exchange', 'amq.topic', 'write'), 'allow');
        assert.equal(await resource('exchange', 'amq.topic', 'configure'), 'deny');
        assert.equal(await resource('queue', 'mqtt-subscription-clientidqos1', 'configure'), 'allow');
        assert.equal(await resource('queue', `mqtt-subscription-${mine.id}qos1`, 'read'), 'allow');
        // Another device's session queue: its subscriptions, its commands.
        assert.equal(await resource('queue', `mqtt-subscription-${theirs.id}qos1`, 'read'), 'deny');
        assert.equal(await resource('queue', 'orders', 'read'), 'deny');
        assert.equal(await resource('exchange', 'amq.direct', 'write'), 'deny');
        const topic = (permission: string, routingKey: string) =>
          ask(
            'topic',
            {
              username: mine.id,
              vhost: '/',
              resource: 'topic',
              name: 'amq.topic',
              permission,
              routing_key: routingKey,
            },
            method,
          );
        assert.equal(await topic('write', key(reportOf(mine.id))), 'allow');
        assert.equal(await topic('write', key(reportOf(theirs.id))), 'deny');
        assert.equal(await topic('read', key(`farmstead/devices/${mine.id}/+/result`)), 'allow');
        assert.equal(await topic('read', key(`farmstead/devices/${theirs.id}/#`)), 'deny');
        assert.equal(await topic('read', key('farmstead/devices/+/commands')), 'deny');
      }
      const twice = await fetch(`${r.base}/broker-hooks/${SECRET}/rabbitmq/user`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `username=${mine.id}&username=${theirs.id}&password=x`,
      });
      assert.equal(twice.status, 400);
    });

    test('a rotated key is refused at once, by every format', async () => {
      const before = await postJson(r, '/emqx/authn', { username: mine.id, password: mine.device_key }).then(
        json,
      );
      assert.deepEqual(before, { result: 'allow', is_superuser: false });
      const rotated = await api<{ device_key: string }>(r, 'POST', `/v1/devices/${mine.id}/key`);
      const deny = { result: 'deny', is_superuser: false };
      assert.deepEqual(
        await postJson(r, '/emqx/authn', { username: mine.id, password: mine.device_key }).then(json),
        deny,
      );
      assert.deepEqual(
        await postJson(
          r,
          '/vernemq',
          { username: mine.id, password: mine.device_key },
          { 'vernemq-hook': 'auth_on_register' },
        ).then(json),
        { result: { error: 'not_allowed' } },
      );
      const rabbit = await fetch(`${r.base}/broker-hooks/${SECRET}/rabbitmq/user`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ username: mine.id, password: mine.device_key }).toString(),
      });
      assert.equal(await text(rabbit), 'deny');
      assert.deepEqual(
        await postJson(r, '/emqx/authn', { username: mine.id, password: rotated.device_key }).then(json),
        { result: 'allow', is_superuser: false },
      );
      mine = { ...mine, device_key: rotated.device_key };
    });

    test('the secret is required on every hook, before the body is read', async () => {
      const paths: [string, string][] = [
        ['POST', '/emqx/authn'],
        ['POST', '/emqx/authz'],
        ['POST', '/vernemq'],
        ['GET', '/rabbitmq/user'],
        ['POST', '/rabbitmq/topic'],
      ];
      for (const [method, path] of paths) {
        for (const secret of ['wrong-secret-0123456789abcdef0123456789', SECRET.slice(0, -1), `${SECRET}x`]) {
          const res = await fetch(
            `${r.base}/broker-hooks/${secret}${path}?username=${mine.id}&password=${mine.device_key}`,
            {
              method,
              ...(method === 'POST'
                ? {
                    headers: { 'content-type': 'application/json', 'vernemq-hook': 'auth_on_register' },
                    body: JSON.stringify({ username: mine.id, password: mine.device_key }),
                  }
                : {}),
            },
          );
          assert.equal(res.status, 401, `${method} ${path}`);
          assert.doesNotMatch(await res.text(), /allow|"ok"/);
        }
      }
    });

    test('neither a password nor the secret reaches the log', async () => {
      await postJson(r, '/emqx/authn', { username: mine.id, password: mine.device_key });
      await fetch(
        `${r.base}/broker-hooks/${SECRET}/rabbitmq/user?${new URLSearchParams({ username: mine.id, password: mine.device_key })}`,
      );
      await fetch(
        `${r.base}/broker-hooks/${SECRET}/rabbitmq/user?username=${mine.id}&password=not-a-key-shape`,
      );
      await postJson(r, '/emqx/authn', { username: mine.id, password: 'not-a-key-shape-either' });
      const log = r.lines.join('\n');
      assert.match(log, /broker-hooks\/\[redacted\]\/rabbitmq\/user/, 'the hook requests are logged');
      assert.ok(!log.includes(SECRET), 'the hook secret is in the log');
      for (const password of [
        mine.device_key,
        theirs.device_key,
        'not-a-key-shape',
        'not-a-key-shape-either',
      ]) {
        assert.ok(!log.includes(password), `a password is in the log: ${password.slice(0, 6)}…`);
      }
    });
  });
}

test('without FARMSTEAD_MQTT_BROKER_AUTH=http the hooks are not served', async () => {
  const r = await startHookApp(ENGINES[0] ?? 'sqlite', { mqttBrokerAuth: 'none', mqttHookSecret: null });
  try {
    const res = await postJson(r, '/emqx/authn', { username: 'dev_1', password: 'rd_1' });
    assert.equal(res.status, 404);
  } finally {
    await r.close();
  }
});
