/**
 * The settings of an external MQTT broker (docs/deployment.md, "When one process is not enough"): where and as
 * whom each process connects (FARMSTEAD_MQTT_BROKER, FARMSTEAD_MQTT_CLIENT_ID, FARMSTEAD_MQTT_BROKER_CONSUMERS),
 * who decides who may connect (FARMSTEAD_MQTT_BROKER_AUTH, FARMSTEAD_MQTT_HOOK_SECRET) and the broker's admin
 * API that disconnects a rotated key's sessions (FARMSTEAD_MQTT_BROKER_ADMIN). Read by loadConfig (config.ts).
 */
import { hostname } from 'node:os';
import { ConfigError, type Env, int } from './env.ts';

/** Where and as whom this process connects to an external MQTT broker (docs/deployment.md). */
export interface MqttBrokerConfig {
  /** mqtt://host:port or mqtts://host:port, without the login: safe to log. */
  url: string;
  username: string | null;
  /** Never logged: the config is frozen and this member is not enumerable (JSON and log lines skip it). */
  readonly password: string | null;
  /**
   * The stable client id of this process's sessions on the broker (FARMSTEAD_MQTT_CLIENT_ID; default
   * `farmstead-<hostname>-<PORT>`): a restarted process takes its persistent session back, with what the
   * broker kept for it.
   */
  clientId: string;
  /** Sessions (connections) per process in the shared subscription: messages are handled this many at once. */
  consumers: number;
}

/** Which broker's admin API FARMSTEAD_MQTT_BROKER_ADMIN names (modules/broker-hooks: each kind's kick). */
export const BROKER_ADMIN_KINDS = ['emqx', 'vernemq', 'rabbitmq'] as const;
export type BrokerAdminKind = (typeof BROKER_ADMIN_KINDS)[number];

/**
 * The admin API of a broker that asks Farmstead's hooks (FARMSTEAD_MQTT_BROKER_ADMIN): where Farmstead asks
 * it to disconnect the sessions of a device whose key was rotated or that was deleted.
 */
export interface MqttBrokerAdminConfig {
  kind: BrokerAdminKind;
  /** http(s)://host:port and any path prefix, without the login and without a trailing slash: safe to log. */
  url: string;
  /**
   * The `Authorization` header's value (HTTP Basic of the URL's login; VerneMQ's API key is the user with
   * no password). Never logged: not enumerable, so JSON and log lines skip it.
   */
  readonly authorization: string;
}

/** An MQTT client id is at most 23 characters by the 3.1.1 minimum; brokers accept more, but keep it sane. */
const CLIENT_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** A URL's login decoded, or null when it is not valid percent-encoding (`p%zzw`). */
function decodedLogin(url: URL): { username: string; password: string } | null {
  try {
    return { username: decodeURIComponent(url.username), password: decodeURIComponent(url.password) };
  } catch {
    return null;
  }
}

/**
 * FARMSTEAD_MQTT_BROKER: mqtt://user:password@host:port or mqtts://… (the login percent-encoded). The
 * password is kept out of every message and out of the config's enumerable members.
 */
export function mqttBroker(env: Env, port: number): MqttBrokerConfig | null {
  const raw = env.FARMSTEAD_MQTT_BROKER?.trim();
  if (!raw) return null;
  const url = URL.parse(raw);
  if (
    !url ||
    !/^mqtts?:$/.test(url.protocol) ||
    !url.hostname ||
    (url.pathname !== '' && url.pathname !== '/') ||
    url.search !== '' ||
    url.hash !== '' ||
    decodedLogin(url) === null
  ) {
    throw new ConfigError(
      `FARMSTEAD_MQTT_BROKER must be an mqtt:// or mqtts:// URL like mqtt://farmstead:password@broker.example:1883, with no query, and the login percent-encoded (a % written as %25; the value given is not shown: it may hold a password)`,
    );
  }
  const clientId =
    env.FARMSTEAD_MQTT_CLIENT_ID?.trim() ||
    `farmstead-${hostname().replace(/[^A-Za-z0-9._-]/g, '-')}-${port}`;
  if (!CLIENT_ID.test(clientId)) {
    throw new ConfigError(
      `FARMSTEAD_MQTT_CLIENT_ID must be 1 to 64 letters, digits, dots, dashes or underscores, got "${clientId}"`,
    );
  }
  const defaultPort = url.protocol === 'mqtts:' ? 8883 : 1883;
  const config: MqttBrokerConfig = {
    url: `${url.protocol}//${url.hostname.includes(':') ? `[${url.hostname}]` : url.hostname}:${url.port || defaultPort}`,
    username: decodedLogin(url)?.username || null,
    password: null,
    clientId,
    consumers: int(env, 'FARMSTEAD_MQTT_BROKER_CONSUMERS', 4, 1, 64),
  };
  Object.defineProperty(config, 'password', {
    value: decodedLogin(url)?.password || null,
    enumerable: false,
  });
  return Object.freeze(config);
}

export function mqttBrokerAuth(env: Env, broker: MqttBrokerConfig | null): 'none' | 'dynsec' | 'http' {
  const raw = env.FARMSTEAD_MQTT_BROKER_AUTH?.trim().toLowerCase() || 'none';
  if (raw !== 'none' && raw !== 'dynsec' && raw !== 'http') {
    throw new ConfigError(`FARMSTEAD_MQTT_BROKER_AUTH must be none, dynsec or http, got "${raw}"`);
  }
  if (raw !== 'none' && !broker) {
    throw new ConfigError('FARMSTEAD_MQTT_BROKER_AUTH needs FARMSTEAD_MQTT_BROKER (the broker it manages)');
  }
  return raw;
}

/** A hook secret travels as a URL path segment (RabbitMQ cannot send a header): URL-safe, long enough. */
const HOOK_SECRET = /^[A-Za-z0-9_-]{32,256}$/;

/**
 * FARMSTEAD_MQTT_HOOK_SECRET: required with FARMSTEAD_MQTT_BROKER_AUTH=http, refused without it (a secret
 * nothing checks is a mistake). The value never appears in a message.
 */
export function mqttHookSecret(env: Env, auth: 'none' | 'dynsec' | 'http'): string | null {
  const raw = env.FARMSTEAD_MQTT_HOOK_SECRET?.trim() ?? '';
  if (auth !== 'http') {
    if (raw !== '') {
      throw new ConfigError('FARMSTEAD_MQTT_HOOK_SECRET is only used with FARMSTEAD_MQTT_BROKER_AUTH=http');
    }
    return null;
  }
  if (!HOOK_SECRET.test(raw)) {
    throw new ConfigError(
      'FARMSTEAD_MQTT_HOOK_SECRET must be 32 to 256 letters, digits, dashes or underscores (openssl rand -hex 32 makes one)',
    );
  }
  return raw;
}

/**
 * FARMSTEAD_MQTT_BROKER_ADMIN: `<kind>+<http(s) URL with the login>`, e.g.
 * `emqx+http://<api key>:<secret>@emqx.internal:18083`, `vernemq+http://<api key>@vernemq.internal:8888`,
 * `rabbitmq+http://<user>:<password>@rabbit.internal:15672`. Only with FARMSTEAD_MQTT_BROKER_AUTH=http
 * (Mosquitto's dynamic security disconnects by itself). The value is never shown in a message: it holds
 * the login.
 */
export function mqttBrokerAdmin(env: Env, auth: 'none' | 'dynsec' | 'http'): MqttBrokerAdminConfig | null {
  const raw = env.FARMSTEAD_MQTT_BROKER_ADMIN?.trim() ?? '';
  if (raw === '') return null;
  if (auth !== 'http') {
    throw new ConfigError(
      'FARMSTEAD_MQTT_BROKER_ADMIN is only used with FARMSTEAD_MQTT_BROKER_AUTH=http (with dynsec, Mosquitto disconnects a changed login itself)',
    );
  }
  const plus = raw.indexOf('+');
  const kind = BROKER_ADMIN_KINDS.find((k) => k === raw.slice(0, plus).toLowerCase());
  const shape =
    'FARMSTEAD_MQTT_BROKER_ADMIN must be <emqx|vernemq|rabbitmq>+<http(s) URL with the login>, like emqx+http://key:secret@emqx.internal:18083 (the value given is not shown: it may hold a password)';
  if (plus <= 0 || !kind) throw new ConfigError(shape);
  let url: URL | null = null;
  try {
    url = new URL(raw.slice(plus + 1));
  } catch {
    url = null;
  }
  if (!url || !/^https?:$/.test(url.protocol) || !url.hostname || url.search !== '' || url.hash !== '') {
    throw new ConfigError(shape);
  }
  const login = decodedLogin(url);
  if (!login) throw new ConfigError(shape);
  const { username, password } = login;
  if (kind === 'vernemq') {
    if (username === '' || password !== '') {
      throw new ConfigError(
        'FARMSTEAD_MQTT_BROKER_ADMIN for VerneMQ carries its API key as the user and no password: vernemq+http://<api key>@vernemq.internal:8888 (the value given is not shown)',
      );
    }
  } else if (username === '' || password === '') {
    throw new ConfigError(
      `FARMSTEAD_MQTT_BROKER_ADMIN for ${kind === 'emqx' ? 'EMQX needs an API key and its secret' : 'RabbitMQ needs a user and its password'} as the URL's login: ${kind}+http://<${kind === 'emqx' ? 'key' : 'user'}>:<${kind === 'emqx' ? 'secret' : 'password'}>@host:port (the value given is not shown)`,
    );
  }
  const base = `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
  const config = { kind, url: base } as MqttBrokerAdminConfig;
  Object.defineProperty(config, 'authorization', {
    value: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`,
    enumerable: false,
  });
  return Object.freeze(config);
}
