import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from './config.ts';

test('timeouts and connection caps have sane defaults and are checked', () => {
  const config = loadConfig({});
  assert.equal(config.requestTimeoutMs, 30_000);
  assert.equal(config.headersTimeoutMs, 10_000);
  assert.equal(config.maxConnectionsPerAddress, 512);
  assert.equal(config.maxStreamsPerKey, 100);
  assert.equal(loadConfig({ FARMSTEAD_MAX_STREAMS_PER_KEY: '0' }).maxStreamsPerKey, 0);
  assert.equal(config.maxConnections, 10_000);
  assert.equal(loadConfig({ FARMSTEAD_MAX_CONNECTIONS_PER_ADDRESS: '0' }).maxConnectionsPerAddress, 0);
  assert.throws(
    () => loadConfig({ FARMSTEAD_HEADERS_TIMEOUT_MS: '40000' }),
    (err: Error) =>
      err instanceof ConfigError && /must not exceed FARMSTEAD_REQUEST_TIMEOUT_MS/.test(err.message),
  );
  assert.throws(() => loadConfig({ FARMSTEAD_REQUEST_TIMEOUT_MS: 'soon' }), ConfigError);
});

test('the public URL of setup links defaults to HOST:PORT and is checked; trust proxy is off, on or addresses', () => {
  assert.equal(loadConfig({}).publicUrl, 'http://127.0.0.1:8080');
  assert.equal(loadConfig({ HOST: '0.0.0.0', PORT: '9000' }).publicUrl, 'http://127.0.0.1:9000');
  assert.equal(loadConfig({ HOST: '::1' }).publicUrl, 'http://[::1]:8080');
  assert.equal(
    loadConfig({ FARMSTEAD_PUBLIC_URL: 'https://farm.example.com/console/' }).publicUrl,
    'https://farm.example.com/console',
  );
  for (const bad of ['farm.example.com', 'ftp://farm.example.com', 'https://farm.example.com/?x=1']) {
    assert.throws(() => loadConfig({ FARMSTEAD_PUBLIC_URL: bad }), ConfigError, bad);
  }
  assert.equal(loadConfig({}).trustProxy, false);
  assert.equal(loadConfig({ FARMSTEAD_TRUST_PROXY: 'on' }).trustProxy, true);
  assert.equal(
    loadConfig({ FARMSTEAD_TRUST_PROXY: '127.0.0.1, 10.0.0.0/8' }).trustProxy,
    '127.0.0.1, 10.0.0.0/8',
  );
  assert.throws(() => loadConfig({ FARMSTEAD_TRUST_PROXY: 'the proxy' }), ConfigError);
});

test('the password cost is log2 of scrypt N for new hashes: 15 unless set, from 10 to 18', () => {
  assert.equal(loadConfig({}).passwordCost, 15);
  assert.equal(loadConfig({ FARMSTEAD_PASSWORD_COST: '12' }).passwordCost, 12);
  for (const bad of ['9', '19', '15.5', 'high']) {
    assert.throws(() => loadConfig({ FARMSTEAD_PASSWORD_COST: bad }), ConfigError, bad);
  }
});

test('the clock tolerance is 300 s unless FARMSTEAD_MAX_CLOCK_SKEW_S says, a whole number of seconds', () => {
  assert.equal(loadConfig({}).maxClockSkewS, 300);
  assert.equal(loadConfig({ FARMSTEAD_MAX_CLOCK_SKEW_S: '60' }).maxClockSkewS, 60);
  for (const bad of ['0', '-5', '1.5', 'soon']) {
    assert.throws(() => loadConfig({ FARMSTEAD_MAX_CLOCK_SKEW_S: bad }), ConfigError, bad);
  }
});

test('notification settings: SMTP URL, From address, VAPID keys given together and well-formed', () => {
  const none = loadConfig({});
  assert.equal(none.smtpUrl, null);
  assert.equal(none.vapidKeys, null);
  assert.match(none.emailFrom, /^Farmstead <farmstead@/);
  const mail = loadConfig({
    FARMSTEAD_SMTP_URL: 'smtps://u:p@smtp.example.com:465',
    FARMSTEAD_EMAIL_FROM: 'Farm <a@farm.example>',
  });
  assert.equal(mail.smtpUrl, 'smtps://u:p@smtp.example.com:465');
  assert.equal(mail.vapidSubject, 'mailto:a@farm.example');
  assert.throws(() => loadConfig({ FARMSTEAD_SMTP_URL: 'http://smtp.example.com' }), ConfigError);
  assert.throws(() => loadConfig({ FARMSTEAD_VAPID_PUBLIC_KEY: 'x'.repeat(87) }), ConfigError);
  assert.throws(() => loadConfig({ FARMSTEAD_EMAIL_FROM: 'not an address' }), ConfigError);
  const keys = { FARMSTEAD_VAPID_PUBLIC_KEY: 'B'.repeat(87), FARMSTEAD_VAPID_PRIVATE_KEY: 'a'.repeat(43) };
  assert.deepEqual(loadConfig(keys).vapidKeys, { publicKey: 'B'.repeat(87), privateKey: 'a'.repeat(43) });
});

test("map tiles: OpenStreetMap's with its attribution unless set, none turns them off, a bad template is refused", () => {
  const plain = loadConfig({});
  assert.equal(plain.mapTiles, 'https://tile.openstreetmap.org/{z}/{x}/{y}.png');
  assert.equal(plain.mapAttribution, '© OpenStreetMap contributors');
  const none = loadConfig({ FARMSTEAD_MAP_TILES: 'none' });
  assert.equal(none.mapTiles, null);
  const own = loadConfig({
    FARMSTEAD_MAP_TILES: 'https://{s}.tiles.example.org/sat/{z}/{y}/{x}.jpg',
    FARMSTEAD_MAP_ATTRIBUTION: 'Imagery © Example',
  });
  assert.equal(own.mapTiles, 'https://{s}.tiles.example.org/sat/{z}/{y}/{x}.jpg');
  assert.equal(own.mapAttribution, 'Imagery © Example');
  assert.equal(
    loadConfig({ FARMSTEAD_MAP_TILES: 'https://tiles.example.org/{z}/{x}/{y}.png' }).mapAttribution,
    '',
  );
  for (const bad of [
    'tiles.example.org/{z}/{x}/{y}.png',
    'ftp://t.example.org/{z}/{x}/{y}',
    'https://t.example.org/x.png',
  ]) {
    assert.throws(() => loadConfig({ FARMSTEAD_MAP_TILES: bad }), /FARMSTEAD_MAP_TILES must be/, bad);
  }
});

test('an external MQTT broker: an mqtt(s) URL whose password is never shown, a stable client id, dynsec only with a broker', () => {
  assert.equal(loadConfig({}).mqttBroker, null);
  assert.equal(loadConfig({}).mqttBrokerAuth, 'none');
  const config = loadConfig({
    FARMSTEAD_MQTT_BROKER: 'mqtts://farm%40stead:s3cret%2F1@broker.example',
    FARMSTEAD_MQTT_BROKER_AUTH: 'dynsec',
    PORT: '8081',
  });
  const broker = config.mqttBroker;
  assert.ok(broker);
  assert.equal(broker.url, 'mqtts://broker.example:8883');
  assert.equal(broker.username, 'farm@stead');
  assert.equal(broker.password, 's3cret/1');
  assert.match(broker.clientId, /^farmstead-.+-8081$/);
  assert.equal(broker.consumers, 4);
  assert.equal(config.mqttBrokerAuth, 'dynsec');
  // What a log line or a JSON dump of the config shows leaves the password out.
  assert.doesNotMatch(JSON.stringify(config), /s3cret/);
  assert.equal(
    loadConfig({ FARMSTEAD_MQTT_BROKER: 'mqtt://b:1883', FARMSTEAD_MQTT_CLIENT_ID: 'node-1' }).mqttBroker
      ?.clientId,
    'node-1',
  );
  // A % not written as %25 in the login, and a query (ignored before): a clear message, never a URIError.
  for (const bad of [
    'http://u:secret@b',
    'mqtt://u:secret@b/path',
    'not a url secret',
    'mqtt://u:secret%zz@b:1883',
    'mqtt://u:secret@b:1883?x=1',
  ]) {
    assert.throws(
      () => loadConfig({ FARMSTEAD_MQTT_BROKER: bad }),
      (err: Error) => err instanceof ConfigError && !err.message.includes('secret'),
    );
  }
  assert.throws(
    () => loadConfig({ FARMSTEAD_MQTT_BROKER: 'mqtt://b', FARMSTEAD_MQTT_CLIENT_ID: 'a b' }),
    ConfigError,
  );
  assert.throws(() => loadConfig({ FARMSTEAD_MQTT_BROKER_AUTH: 'dynsec' }), ConfigError);
  assert.throws(
    () => loadConfig({ FARMSTEAD_MQTT_BROKER: 'mqtt://b', FARMSTEAD_MQTT_BROKER_AUTH: 'acl' }),
    ConfigError,
  );
});

test('the broker admin API: <kind>+<URL with the login>, only with FARMSTEAD_MQTT_BROKER_AUTH=http, the login never shown', () => {
  const hooks = {
    FARMSTEAD_MQTT_BROKER: 'mqtt://farmstead:pw@127.0.0.1:1883',
    FARMSTEAD_MQTT_BROKER_AUTH: 'http',
    FARMSTEAD_MQTT_HOOK_SECRET: 'a'.repeat(40),
  };
  const basic = (login: string) => `Basic ${Buffer.from(login).toString('base64')}`;
  assert.equal(loadConfig(hooks).mqttBrokerAdmin, null);
  const emqx = loadConfig({
    ...hooks,
    FARMSTEAD_MQTT_BROKER_ADMIN: 'EMQX+http://fs-kick:s3cret%2Fkey@emqx.internal:18083/',
  });
  assert.equal(emqx.mqttBrokerAdmin?.kind, 'emqx');
  assert.equal(emqx.mqttBrokerAdmin?.url, 'http://emqx.internal:18083');
  assert.equal(emqx.mqttBrokerAdmin?.authorization, basic('fs-kick:s3cret/key'));
  // Neither the secret nor the Authorization value is printed with the config.
  const printed = JSON.stringify(emqx);
  assert.doesNotMatch(printed, /s3cret|Basic /);
  const verne = loadConfig({
    ...hooks,
    FARMSTEAD_MQTT_BROKER_ADMIN: 'vernemq+https://JxctXkZ1OTVnlwvguSCE9KtujacMkOLF@vmq.internal:8888/admin',
  }).mqttBrokerAdmin;
  assert.equal(verne?.url, 'https://vmq.internal:8888/admin');
  assert.equal(verne?.authorization, basic('JxctXkZ1OTVnlwvguSCE9KtujacMkOLF:'));
  assert.doesNotMatch(JSON.stringify(verne), /JxctXkZ1/);
  const rabbit = loadConfig({
    ...hooks,
    FARMSTEAD_MQTT_BROKER_ADMIN: 'rabbitmq+http://farmstead-kick:pw@[::1]:15672',
  }).mqttBrokerAdmin;
  assert.equal(rabbit?.url, 'http://[::1]:15672');
  assert.equal(rabbit?.authorization, basic('farmstead-kick:pw'));
  const refused: [Record<string, string>, RegExp][] = [
    [
      { FARMSTEAD_MQTT_BROKER_ADMIN: 'emqx+http://k:hush@e:18083' },
      /only used with FARMSTEAD_MQTT_BROKER_AUTH=http/,
    ],
    [
      {
        FARMSTEAD_MQTT_BROKER: 'mqtt://b',
        FARMSTEAD_MQTT_BROKER_AUTH: 'dynsec',
        FARMSTEAD_MQTT_BROKER_ADMIN: 'emqx+http://k:hush@e:18083',
      },
      /only used with FARMSTEAD_MQTT_BROKER_AUTH=http/,
    ],
    [{ ...hooks, FARMSTEAD_MQTT_BROKER_ADMIN: 'http://k:hush@e:18083' }, /<emqx\|vernemq\|rabbitmq>\+/],
    [
      { ...hooks, FARMSTEAD_MQTT_BROKER_ADMIN: 'hivemq+http://k:hush@e:18083' },
      /<emqx\|vernemq\|rabbitmq>\+/,
    ],
    [{ ...hooks, FARMSTEAD_MQTT_BROKER_ADMIN: 'emqx+mqtt://k:hush@e:1883' }, /http\(s\) URL/],
    [{ ...hooks, FARMSTEAD_MQTT_BROKER_ADMIN: 'emqx+http://k:hush@e:18083/?x=1' }, /http\(s\) URL/],
    [{ ...hooks, FARMSTEAD_MQTT_BROKER_ADMIN: 'emqx+not a url hush' }, /http\(s\) URL/],
    [
      { ...hooks, FARMSTEAD_MQTT_BROKER_ADMIN: 'emqx+http://hush@e:18083' },
      /EMQX needs an API key and its secret/,
    ],
    [
      { ...hooks, FARMSTEAD_MQTT_BROKER_ADMIN: 'rabbitmq+http://e:15672' },
      /RabbitMQ needs a user and its password/,
    ],
    [
      { ...hooks, FARMSTEAD_MQTT_BROKER_ADMIN: 'vernemq+http://key:hush@e:8888' },
      /API key as the user and no password/,
    ],
    [
      { ...hooks, FARMSTEAD_MQTT_BROKER_ADMIN: 'vernemq+http://e:8888' },
      /API key as the user and no password/,
    ],
  ];
  for (const [env, message] of refused) {
    assert.throws(
      () => loadConfig(env),
      (err: Error) =>
        err instanceof ConfigError && message.test(err.message) && !err.message.includes('hush'),
      JSON.stringify(env),
    );
  }
});

test('the broker hook secret: required with FARMSTEAD_MQTT_BROKER_AUTH=http, checked, refused otherwise, not enumerable', () => {
  const broker = {
    FARMSTEAD_MQTT_BROKER: 'mqtt://farmstead:pw@127.0.0.1:1883',
    FARMSTEAD_MQTT_BROKER_AUTH: 'http',
  };
  const secret = `${'a'.repeat(20)}-_0123456789abcd`;
  const config = loadConfig({ ...broker, FARMSTEAD_MQTT_HOOK_SECRET: secret });
  assert.equal(config.mqttBrokerAuth, 'http');
  assert.equal(config.mqttHookSecret, secret);
  assert.ok(!JSON.stringify(config).includes(secret), 'the secret is printed with the config');
  assert.equal(loadConfig({}).mqttHookSecret, null);
  for (const bad of ['', 'short', `${'a'.repeat(40)}/`, `${'a'.repeat(40)} b`]) {
    assert.throws(
      () => loadConfig({ ...broker, FARMSTEAD_MQTT_HOOK_SECRET: bad }),
      (err) =>
        err instanceof ConfigError &&
        !err.message.includes(bad || '\u0000') &&
        /HOOK_SECRET/.test(err.message),
      bad,
    );
  }
  assert.throws(() => loadConfig({ FARMSTEAD_MQTT_HOOK_SECRET: secret }), ConfigError);
  assert.throws(() => loadConfig({ FARMSTEAD_MQTT_BROKER_AUTH: 'http' }), /needs FARMSTEAD_MQTT_BROKER/);
  assert.throws(() => loadConfig({ ...broker, FARMSTEAD_MQTT_BROKER_AUTH: 'ldap' }), /none, dynsec or http/);
});
