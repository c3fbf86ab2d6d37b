/**
 * RabbitMQ asking Farmstead's hooks for real: a RabbitMQ node of this test's own (never the system's:
 * its own node name, ports, epmd port, Erlang cookie home, database and log directories, all in a temporary
 * directory) with rabbitmq_mqtt and rabbitmq_auth_backend_http pointed at the test server; a device connects
 * over MQTT with its key and is let in, with another key and is refused. With rabbitmq_management on (its own
 * port, an internal administrator user made at first boot) and FARMSTEAD_MQTT_BROKER_ADMIN naming it, a
 * device connected over MQTT is disconnected within seconds of its key being rotated through the REST API,
 * and cannot connect again with the old key. Skipped only when rabbitmq-server is
 * not installed. RabbitMQ 3.10.8 here takes 25 to 35 s from start to a first answered CONNECT (about 20 s of
 * it inside the node before its first boot step), over the 15 s a test file may take in `npm test`: the
 * test runs when FARMSTEAD_TEST_RABBITMQ=1 (docs/deployment.md says so), and is skipped, saying why, otherwise.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import mqtt from 'mqtt';
import { type Running, SECRET, startHookApp, twoDevices } from './broker-hooks.ts';
import { waitFor } from './engines.ts';
import { freePort } from './throwaway.ts';

const RABBITMQ = '/usr/lib/rabbitmq/bin/rabbitmq-server';
const skip = !existsSync(RABBITMQ)
  ? `rabbitmq-server is not installed (${RABBITMQ})`
  : process.env.FARMSTEAD_TEST_RABBITMQ !== '1'
    ? 'RabbitMQ takes 25-35 s to boot here: set FARMSTEAD_TEST_RABBITMQ=1 to run it'
    : false;

interface Rabbit {
  mqttPort: number;
  close(): Promise<void>;
}

/**
 * The management API's login Farmstead kicks with (FARMSTEAD_MQTT_BROKER_ADMIN): an internal user the node
 * creates at its first boot (`default_user`), tagged administrator: RabbitMQ lets only an administrator
 * close another user's connections (rabbit_mgmt_util:is_authorized_user, DELETE).
 */
const ADMIN_USER = 'farmstead-kick';
const ADMIN_PASSWORD = 'kick-password-3c1d9e';
const ADMIN_AUTHORIZATION = `Basic ${Buffer.from(`${ADMIN_USER}:${ADMIN_PASSWORD}`).toString('base64')}`;

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tcpConnect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function startRabbit(hooksBase: string, managementPort: number): Promise<Rabbit> {
  const dir = mkdtempSync(path.join(tmpdir(), 'farmstead-rabbit-'));
  for (const sub of ['mnesia', 'log', 'home']) mkdirSync(path.join(dir, sub));
  const [mqttPort, nodePort, distPort, epmdPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const hook = (name: string) => `${hooksBase}/broker-hooks/${SECRET}/rabbitmq/${name}`;
  writeFileSync(
    path.join(dir, 'rabbitmq.conf'),
    [
      `listeners.tcp.default = 127.0.0.1:${nodePort}`,
      `mqtt.listeners.tcp.default = 127.0.0.1:${mqttPort}`,
      'mqtt.allow_anonymous = false',
      // The management API, for the kicks: its own login, an internal user (the hooks let in devices only).
      `management.tcp.ip = 127.0.0.1`,
      `management.tcp.port = ${managementPort}`,
      `default_user = ${ADMIN_USER}`,
      `default_pass = ${ADMIN_PASSWORD}`,
      'default_user_tags.administrator = true',
      'auth_backends.1 = http',
      'auth_backends.2 = internal',
      'auth_http.http_method = post',
      `auth_http.user_path = ${hook('user')}`,
      `auth_http.vhost_path = ${hook('vhost')}`,
      `auth_http.resource_path = ${hook('resource')}`,
      `auth_http.topic_path = ${hook('topic')}`,
      '',
    ].join('\n'),
  );
  writeFileSync(
    path.join(dir, 'enabled_plugins'),
    '[rabbitmq_mqtt,rabbitmq_auth_backend_http,rabbitmq_management].\n',
  );
  const env = {
    ...process.env,
    HOME: path.join(dir, 'home'),
    ERL_EPMD_PORT: String(epmdPort),
    RABBITMQ_NODENAME: `farmstead-test-${mqttPort}@localhost`,
    RABBITMQ_NODE_PORT: String(nodePort),
    RABBITMQ_DIST_PORT: String(distPort),
    RABBITMQ_MNESIA_BASE: path.join(dir, 'mnesia'),
    RABBITMQ_LOG_BASE: path.join(dir, 'log'),
    RABBITMQ_CONFIG_FILE: path.join(dir, 'rabbitmq.conf'),
    RABBITMQ_ENABLED_PLUGINS_FILE: path.join(dir, 'enabled_plugins'),
    RABBITMQ_PLUGINS_EXPAND_DIR: path.join(dir, 'plugins-expand'),
  };
  const child: ChildProcess = spawn(RABBITMQ, [], { env, detached: true, stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const close = async () => {
    // The whole group this test started (the script and its Erlang VM), then the epmd it started.
    if (child.pid !== undefined && child.exitCode === null) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {}
      await exited;
    }
    try {
      execFileSync('epmd', ['-kill'], {
        env: { ...process.env, ERL_EPMD_PORT: String(epmdPort) },
        stdio: 'ignore',
      });
    } catch {}
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitFor('RabbitMQ’s MQTT listener', () => child.exitCode === null && listening(mqttPort), 60_000);
    await waitFor(
      'RabbitMQ’s management API',
      () => child.exitCode === null && listening(managementPort),
      30_000,
    );
  } catch (err) {
    await close();
    throw err;
  }
  return { mqttPort, close };
}

/** The CONNACK's outcome: 'connected', or the error's text. */
function tryConnect(port: number, username: string, password: string): Promise<string> {
  return new Promise((resolve) => {
    const client = mqtt.connect(`mqtt://127.0.0.1:${port}`, {
      username,
      password,
      clientId: `${username}-test`,
      reconnectPeriod: 0,
      connectTimeout: 10_000,
    });
    client.once('connect', () => {
      client.end(true);
      resolve('connected');
    });
    client.once('error', (err) => {
      client.end(true);
      resolve(err.message);
    });
  });
}

let app: Running | undefined;
let rabbit: Rabbit | undefined;

before(async () => {
  if (skip) return;
  const managementPort = await freePort();
  app = await startHookApp('sqlite', {
    mqttBrokerAdmin: {
      kind: 'rabbitmq',
      url: `http://127.0.0.1:${managementPort}`,
      authorization: ADMIN_AUTHORIZATION,
    },
  });
  rabbit = await startRabbit(app.base, managementPort);
});

after(async () => {
  await rabbit?.close();
  await app?.close();
});

test('RabbitMQ asks the hooks: a device with its key connects, with another key it is refused', {
  skip,
}, async () => {
  if (!app || !rabbit) throw new Error('not started');
  const { mine, theirs } = await twoDevices(app);
  assert.equal(await tryConnect(rabbit.mqttPort, mine.id, mine.device_key), 'connected');
  assert.notEqual(await tryConnect(rabbit.mqttPort, mine.id, theirs.device_key), 'connected');
  assert.notEqual(await tryConnect(rabbit.mqttPort, theirs.id, mine.device_key), 'connected');
  const asked = app.lines.filter((line) => line.includes('/rabbitmq/user')).length;
  assert.ok(asked >= 3, `RabbitMQ asked user_path ${asked} times`);
});

test('RabbitMQ: a connected device is disconnected within seconds of its key being rotated, and cannot come back with the old key', {
  skip,
}, async () => {
  if (!app || !rabbit) throw new Error('not started');
  const running = app;
  const { mine } = await twoDevices(running);
  const client = mqtt.connect(`mqtt://127.0.0.1:${rabbit.mqttPort}`, {
    username: mine.id,
    password: mine.device_key,
    clientId: `${mine.id}-live`,
    reconnectPeriod: 0,
    connectTimeout: 10_000,
  });
  client.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    client.once('connect', () => resolve());
    client.once('error', reject);
  });
  const closed = new Promise<number>((resolve) => client.once('close', () => resolve(performance.now())));
  const rotatedAt = performance.now();
  const res = await fetch(`${running.base}/v1/devices/${mine.id}/key`, {
    method: 'POST',
    headers: { authorization: `Bearer ${running.liveKey}` },
  });
  assert.equal(res.status, 200);
  const { device_key: newKey } = (await res.json()) as { device_key: string };
  const after = await Promise.race([
    closed,
    new Promise<null>((resolve) => setTimeout(() => resolve(null), 5_000)),
  ]);
  client.end(true);
  assert.ok(after !== null, 'the session was still open 5 s after the rotation');
  assert.ok(after - rotatedAt < 5_000);
  await waitFor('the kick logged', () =>
    running.lines.find((line) => line.includes('session disconnected') && line.includes(mine.id)),
  );
  assert.notEqual(await tryConnect(rabbit.mqttPort, mine.id, mine.device_key), 'connected');
  assert.equal(await tryConnect(rabbit.mqttPort, mine.id, newKey), 'connected');
  assert.doesNotMatch(running.lines.join('\n'), new RegExp(ADMIN_PASSWORD));
});
