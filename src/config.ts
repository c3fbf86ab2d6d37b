/**
 * The only reader of process.env. Every setting is validated here once and frozen;
 * the rest of the code receives a Config value. The external MQTT broker's settings are read in
 * config/mqtt-broker.ts, with the readers every setting shares in config/env.ts.
 */
import path from 'node:path';
import { bool, ConfigError, type Env, int } from './config/env.ts';
import {
  type MqttBrokerAdminConfig,
  type MqttBrokerConfig,
  mqttBroker,
  mqttBrokerAdmin,
  mqttBrokerAuth,
  mqttHookSecret,
} from './config/mqtt-broker.ts';

export { ConfigError } from './config/env.ts';
export {
  BROKER_ADMIN_KINDS,
  type BrokerAdminKind,
  type MqttBrokerAdminConfig,
  type MqttBrokerConfig,
} from './config/mqtt-broker.ts';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  /** Address the HTTP listener binds to. */
  host: string;
  port: number;
  /** Folder of the embedded SQLite database (used when databaseUrl is unset). */
  dataDir: string;
  /** PostgreSQL connection string; when set, PostgreSQL is the storage engine. */
  databaseUrl: string | null;
  /** Connections per process in the PostgreSQL pool. */
  pgPoolSize: number;
  logLevel: LogLevel;
  /** Largest accepted request body, in bytes. */
  bodyLimitBytes: number;
  /** How often buffered usage counts are written, in milliseconds. */
  usageFlushMs: number;
  /** Allow webhook URLs on loopback, private and link-local addresses (self-hosted farm LANs). */
  webhookAllowPrivate: boolean;
  /** Run the webhook delivery worker inside the server process. */
  webhookWorkerInProcess: boolean;
  /** Retry delays of webhook deliveries after the first attempt, in milliseconds. */
  webhookRetryScheduleMs: readonly number[];
  /** How long a webhook receiver has to answer, in milliseconds. */
  webhookTimeoutMs: number;
  /** Webhook deliveries one process sends at the same time (at most 4 of them to any one webhook). */
  webhookConcurrency: number;
  /** How often the webhook worker looks for new events and due retries when idle, in milliseconds. */
  webhookPollMs: number;
  /** Webhook events, deliveries and attempts older than this many days are pruned in the background. */
  webhookRetentionDays: number;
  /** Raw readings older than this many days are removed in the background; null keeps them forever. */
  readingsRetentionDays: number | null;
  /** Default expiry of device commands, in seconds. */
  commandExpirySeconds: number;
  /** Browser origins (besides the server's own) allowed to call /mcp; other origins get 403. */
  mcpAllowedOrigins: readonly string[];
  /** Offer MCP clients only the tools that change nothing, whatever their key may do. */
  mcpReadOnly: boolean;
  /** A request's headers and body must have arrived within this many ms (slow bodies are cut off). */
  requestTimeoutMs: number;
  /** A request's headers must have arrived within this many ms. */
  headersTimeoutMs: number;
  /** An idle keep-alive connection is closed after this many ms. */
  keepAliveTimeoutMs: number;
  /** A connection with no traffic at all for this many ms is closed. */
  connectionTimeoutMs: number;
  /** Open connections the server accepts in total; 0 means no cap. */
  maxConnections: number;
  /** Open connections the server accepts from one client address; 0 means no cap. */
  maxConnectionsPerAddress: number;
  /** Bearer token that opens GET /metrics from anywhere; null: /metrics answers loopback, unproxied requests only. */
  metricsToken: string | null;
  /** Log lines: 'pretty' for people, 'json' for collectors, 'auto' (pretty when stdout is a terminal). */
  logFormat: 'auto' | 'json' | 'pretty';
  /** Seconds after which a command handed out and not answered is handed out again (per command: redeliver_after_s). */
  commandRedeliverSeconds: number;
  /** TCP port of the MQTT listener; null when FARMSTEAD_MQTT_PORT is `off` (MQTT over WebSocket stays on). */
  mqttPort: number | null;
  /** MQTT messages a device may publish per second, sustained (bursts of ten seconds' worth pass). */
  mqttRatePerSecond: number;
  /**
   * The external MQTT broker devices connect to (FARMSTEAD_MQTT_BROKER); null: the embedded broker. When set,
   * the embedded broker (TCP and WebSocket) is not started and this process is one of the broker's clients.
   */
  mqttBroker: MqttBrokerConfig | null;
  /**
   * Who decides the external broker's logins (FARMSTEAD_MQTT_BROKER_AUTH): `dynsec` (Farmstead keeps
   * Mosquitto's in step), `http` (the broker asks Farmstead's hooks, modules/broker-hooks) or `none`.
   */
  mqttBrokerAuth: 'none' | 'dynsec' | 'http';
  /**
   * FARMSTEAD_MQTT_HOOK_SECRET: the shared secret a broker's requests to the hooks carry (a path segment);
   * set exactly when mqttBrokerAuth is `http`. Not enumerable: never printed with the config.
   */
  mqttHookSecret: string | null;
  /**
   * FARMSTEAD_MQTT_BROKER_ADMIN: the broker's admin API, only with mqttBrokerAuth `http`; null: sessions
   * of a rotated or deleted key stay until they reconnect (and are then refused).
   */
  mqttBrokerAdmin: MqttBrokerAdminConfig | null;
  /** API key the CLI's simulator uses when --key is not given (FARMSTEAD_API_KEY). */
  apiKey: string | null;
  /** Rate limits on (FARMSTEAD_RATE_LIMIT=off turns every limit off). */
  rateLimitEnabled: boolean;
  /** Length of one fixed rate-limit window, in milliseconds. */
  rateLimitWindowMs: number;
  /** Requests per window for one API key. */
  rateLimitApiKey: number;
  /** Requests per window for one device key. */
  rateLimitDeviceKey: number;
  /** Failed authentications per window from one client address before it is refused outright. */
  rateLimitAuthFailures: number;
  /** Browser origins allowed to call the API cross-origin (CORS); none by default. */
  corsOrigins: readonly string[];
  /**
   * The address people reach this service at, for the setup and invite links it prints
   * (FARMSTEAD_PUBLIC_URL; default http://HOST:PORT, with 127.0.0.1 for a wildcard HOST). No trailing slash.
   */
  publicUrl: string;
  /**
   * FARMSTEAD_PUBLIC_URL was given: a CLI command prints links with it rather than with the URL the running
   * server recorded (db/server-facts.ts).
   */
  publicUrlGiven: boolean;
  /**
   * Trust X-Forwarded-* from the proxies in front (FARMSTEAD_TRUST_PROXY: off, on, or a comma-separated list
   * of addresses/CIDRs): the client address and `https` (Secure session cookies) come from the proxy.
   */
  trustProxy: boolean | string;
  /** A live stream idle this long gets a keep-alive comment line, in milliseconds. */
  streamKeepAliveMs: number;
  /** Live streams one key (or signed-in person) may hold open on this process; 0 means no cap. */
  maxStreamsPerKey: number;
  /** How often live streams look for events whose notification was lost, in milliseconds. */
  streamPollMs: number;
  /**
   * log2 of scrypt's N for new password hashes (FARMSTEAD_PASSWORD_COST, 10 to 18, default 15: 32 MiB and
   * about 100 ms a check); stored hashes keep their own parameters, so changing it never breaks a sign-in.
   */
  passwordCost: number;
  /**
   * How far ahead of the server's clock a device's reading or event may be dated, in seconds
   * (FARMSTEAD_MAX_CLOCK_SKEW_S, default 300): later ones are refused, and data stored that far ahead before
   * is repaired at start (modules/ingest/clock.ts).
   */
  maxClockSkewS: number;
  /**
   * The VAPID key pair web push is signed with (FARMSTEAD_VAPID_PUBLIC_KEY and FARMSTEAD_VAPID_PRIVATE_KEY,
   * base64url; both or neither). Null: the pair made on first start and kept in the database.
   */
  vapidKeys: { publicKey: string; privateKey: string } | null;
  /** The VAPID subject push services may contact (FARMSTEAD_VAPID_SUBJECT; default mailto: the email sender, else the public URL). */
  vapidSubject: string;
  /** The SMTP server notifications are mailed through (FARMSTEAD_SMTP_URL, smtp:// or smtps://); null: no email. */
  smtpUrl: string | null;
  /** The From address of notification emails (FARMSTEAD_EMAIL_FROM). */
  emailFrom: string;
  /** Run the notification worker inside the server process (FARMSTEAD_NOTIFICATION_WORKER, default on). */
  notificationWorkerInProcess: boolean;
  /**
   * The console map's tile URL template (FARMSTEAD_MAP_TILES, default OpenStreetMap's; `none`: null, no tiles,
   * the map draws on a plain background). Its origin is added to the console's CSP `img-src`.
   */
  mapTiles: string | null;
  /** The attribution shown on the map for those tiles (FARMSTEAD_MAP_ATTRIBUTION; OpenStreetMap's for its tiles). */
  mapAttribution: string;
}

/** Standard Webhooks' schedule after the first, immediate attempt: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h. */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS: readonly number[] = [
  5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 50_400_000, 72_000_000, 86_400_000,
];

function schedule(env: Env, name: string): readonly number[] {
  const raw = env[name];
  if (raw === undefined || raw === '') return DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS;
  const parts = raw.split(',').map((p) => Number(p.trim()));
  if (parts.length === 0 || parts.some((n) => !Number.isInteger(n) || n < 0)) {
    throw new ConfigError(`${name} must be a comma-separated list of millisecond delays, got "${raw}"`);
  }
  return parts;
}

/** A comma-separated list of origins (`https://app.example.com`), normalised to scheme://host[:port]. */
function origins(env: Env, name: string): readonly string[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return [];
  return raw.split(',').map((part) => {
    const text = part.trim();
    let url: URL | null = null;
    try {
      url = new URL(text);
    } catch {
      url = null;
    }
    const bare = url && url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password;
    if (!url || !bare || !/^https?:$/.test(url.protocol)) {
      throw new ConfigError(
        `${name} must be a comma-separated list of origins like https://app.example.com, got "${text}"`,
      );
    }
    return url.origin;
  });
}

/** Long enough that guessing it is hopeless; a short token would make /metrics the weak door. */
function metricsToken(env: Env): string | null {
  const raw = env.FARMSTEAD_METRICS_TOKEN;
  if (raw === undefined || raw === '') return null;
  if (raw.length < 16) throw new ConfigError('FARMSTEAD_METRICS_TOKEN must be at least 16 characters long');
  return raw;
}

function logFormat(env: Env): Config['logFormat'] {
  const raw = env.FARMSTEAD_LOG_FORMAT || 'auto';
  if (raw !== 'auto' && raw !== 'json' && raw !== 'pretty') {
    throw new ConfigError(`FARMSTEAD_LOG_FORMAT must be auto, json or pretty, got "${raw}"`);
  }
  return raw;
}

/** FARMSTEAD_PUBLIC_URL, or http://HOST:PORT (a wildcard bind address is reached on the loopback). */
function publicUrl(env: Env, host: string, port: number): string {
  const raw = env.FARMSTEAD_PUBLIC_URL;
  if (raw === undefined || raw.trim() === '') {
    const reachable =
      host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
    return `http://${reachable}:${port}`;
  }
  let url: URL | null = null;
  try {
    url = new URL(raw.trim());
  } catch {
    url = null;
  }
  if (!url || !/^https?:$/.test(url.protocol) || url.search || url.hash || url.username || url.password) {
    throw new ConfigError(
      `FARMSTEAD_PUBLIC_URL must be an http(s) address like https://farm.example.com, got "${raw}"`,
    );
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

function trustProxy(env: Env): boolean | string {
  const raw = env.FARMSTEAD_TRUST_PROXY?.trim();
  if (raw === undefined || raw === '') return false;
  if (['1', 'true', 'yes', 'on'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no', 'off'].includes(raw.toLowerCase())) return false;
  if (!/^[0-9a-fA-F.:/, ]+$/.test(raw)) {
    throw new ConfigError(
      `FARMSTEAD_TRUST_PROXY must be on, off, or a comma-separated list of addresses or CIDRs, got "${raw}"`,
    );
  }
  return raw;
}

/** A command's life before it expires unanswered unless FARMSTEAD_COMMAND_EXPIRY_S says: one day. */
export const DEFAULT_COMMAND_EXPIRY_S = 86_400;

/** A command handed out and not answered is handed out again after this unless FARMSTEAD_COMMAND_REDELIVER_S says. */
export const DEFAULT_COMMAND_REDELIVER_S = 60;
function vapidKeys(env: Env): Config['vapidKeys'] {
  const pub = env.FARMSTEAD_VAPID_PUBLIC_KEY?.trim() || '';
  const priv = env.FARMSTEAD_VAPID_PRIVATE_KEY?.trim() || '';
  if (!pub && !priv) return null;
  if (!pub || !priv) {
    throw new ConfigError('FARMSTEAD_VAPID_PUBLIC_KEY and FARMSTEAD_VAPID_PRIVATE_KEY must be set together');
  }
  if (!/^[A-Za-z0-9_-]{87}$/.test(pub) || !/^[A-Za-z0-9_-]{43}$/.test(priv)) {
    throw new ConfigError(
      'FARMSTEAD_VAPID_PUBLIC_KEY and FARMSTEAD_VAPID_PRIVATE_KEY must be a P-256 key pair in base64url (npx web-push generate-vapid-keys)',
    );
  }
  return { publicKey: pub, privateKey: priv };
}

function smtpUrl(env: Env): string | null {
  const raw = env.FARMSTEAD_SMTP_URL?.trim();
  if (!raw) return null;
  const url = URL.parse(raw);
  if (!url || !/^smtps?:$/.test(url.protocol)) {
    throw new ConfigError(
      `FARMSTEAD_SMTP_URL must be an smtp:// or smtps:// URL, got "${raw.replace(/\/\/[^@]*@/, '//…@')}"`,
    );
  }
  return raw;
}

function emailFrom(env: Env, publicUrlText: string): string {
  const raw = env.FARMSTEAD_EMAIL_FROM?.trim();
  if (!raw) return `Farmstead <farmstead@${new URL(publicUrlText).hostname}>`;
  if (!/^[^\s@<>]+@[^\s@<>]+$|<[^\s@<>]+@[^\s@<>]+>$/.test(raw)) {
    throw new ConfigError(
      `FARMSTEAD_EMAIL_FROM must be an address like "Farmstead <alerts@farm.example>", got "${raw}"`,
    );
  }
  return raw;
}

function vapidSubject(env: Env, from: string, publicUrlText: string): string {
  const raw = env.FARMSTEAD_VAPID_SUBJECT?.trim();
  if (raw) {
    if (!/^(mailto:|https:\/\/)/.test(raw)) {
      throw new ConfigError(`FARMSTEAD_VAPID_SUBJECT must be a mailto: or https:// URL, got "${raw}"`);
    }
    return raw;
  }
  const address = /<([^>]+)>$/.exec(from)?.[1] ?? from;
  if (env.FARMSTEAD_EMAIL_FROM?.trim()) return `mailto:${address}`;
  return publicUrlText.startsWith('https://') ? publicUrlText : 'mailto:farmstead@localhost';
}

/** OpenStreetMap's standard tiles: what the console map shows unless FARMSTEAD_MAP_TILES says. */
export const DEFAULT_MAP_TILES = 'https://tile.openstreetmap.org/{z}/{x}/{y}.png';
/** OpenStreetMap's tile usage policy asks for this attribution on every map showing its tiles. */
export const OSM_ATTRIBUTION = '© OpenStreetMap contributors';

/**
 * An http(s) URL template with {z}, {x} and {y} (Leaflet's); `{s}` may stand for a subdomain in the host
 * (the CSP then allows every subdomain of the rest); `none` turns tiles off.
 */
function mapTiles(env: Env): string | null {
  const raw = env.FARMSTEAD_MAP_TILES?.trim();
  if (!raw) return DEFAULT_MAP_TILES;
  if (raw.toLowerCase() === 'none') return null;
  let url: URL | null = null;
  try {
    url = new URL(raw.replace('{s}', 'a'));
  } catch {
    url = null;
  }
  const placeholders = ['{z}', '{x}', '{y}'].every((p) => raw.includes(p));
  if (!url || !/^https?:$/.test(url.protocol) || !placeholders || url.username || url.password) {
    throw new ConfigError(
      `FARMSTEAD_MAP_TILES must be none or an http(s) URL template with {z}, {x} and {y}, like ${DEFAULT_MAP_TILES}, got "${raw}"`,
    );
  }
  return raw;
}

function mapAttribution(env: Env): string {
  const raw = env.FARMSTEAD_MAP_ATTRIBUTION?.trim();
  if (raw) return raw;
  const tiles = env.FARMSTEAD_MAP_TILES?.trim();
  return !tiles || tiles.includes('openstreetmap.org') ? OSM_ATTRIBUTION : '';
}

/** log2 of scrypt's N for new password hashes unless FARMSTEAD_PASSWORD_COST says (modules/people/passwords.ts). */
export const DEFAULT_PASSWORD_COST = 15;

/** Seconds a device's times may run ahead of the server's clock unless FARMSTEAD_MAX_CLOCK_SKEW_S says. */
export const DEFAULT_MAX_CLOCK_SKEW_S = 300;

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function loadConfig(env: Env = process.env): Readonly<Config> {
  const logLevel = (env.LOG_LEVEL || 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${env.LOG_LEVEL}"`);
  }
  const databaseUrl = env.DATABASE_URL || null;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must start with postgres:// or postgresql://');
  }
  const retention = env.FARMSTEAD_READINGS_RETENTION_DAYS;
  const requestTimeoutMs = int(env, 'FARMSTEAD_REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000);
  const headersTimeoutMs = int(env, 'FARMSTEAD_HEADERS_TIMEOUT_MS', 10_000, 100, 3_600_000);
  // Node refuses a headers deadline later than the whole request's.
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new ConfigError(
      `FARMSTEAD_HEADERS_TIMEOUT_MS (${headersTimeoutMs}) must not exceed FARMSTEAD_REQUEST_TIMEOUT_MS (${requestTimeoutMs})`,
    );
  }
  const host = env.HOST || '127.0.0.1';
  const port = int(env, 'PORT', 8080, 0, 65535);
  const broker = mqttBroker(env, port);
  const brokerAuth = mqttBrokerAuth(env, broker);
  const hookSecret = mqttHookSecret(env, brokerAuth);
  const brokerAdmin = mqttBrokerAdmin(env, brokerAuth);
  const config: Config = {
    host,
    port,
    dataDir: path.resolve(env.FARMSTEAD_DATA || './data'),
    databaseUrl,
    pgPoolSize: int(env, 'FARMSTEAD_PG_POOL_SIZE', 10, 1, 1000),
    logLevel,
    bodyLimitBytes: int(env, 'FARMSTEAD_BODY_LIMIT_BYTES', 1_048_576, 1024, 100 * 1_048_576),
    usageFlushMs: int(env, 'FARMSTEAD_USAGE_FLUSH_MS', 2_000, 10, 3_600_000),
    webhookAllowPrivate: bool(env, 'FARMSTEAD_WEBHOOK_ALLOW_PRIVATE', false),
    webhookWorkerInProcess: bool(env, 'FARMSTEAD_WEBHOOK_WORKER', true),
    webhookRetryScheduleMs: schedule(env, 'FARMSTEAD_WEBHOOK_RETRY_SCHEDULE_MS'),
    webhookTimeoutMs: int(env, 'FARMSTEAD_WEBHOOK_TIMEOUT_MS', 5_000, 100, 60_000),
    webhookConcurrency: int(env, 'FARMSTEAD_WEBHOOK_CONCURRENCY', 16, 1, 1000),
    webhookPollMs: int(env, 'FARMSTEAD_WEBHOOK_POLL_MS', 500, 10, 60_000),
    webhookRetentionDays: int(env, 'FARMSTEAD_WEBHOOK_RETENTION_DAYS', 30, 1, 36_500),
    readingsRetentionDays:
      retention === undefined || retention === ''
        ? null
        : int(env, 'FARMSTEAD_READINGS_RETENTION_DAYS', 0, 1, 100_000),
    commandExpirySeconds: int(env, 'FARMSTEAD_COMMAND_EXPIRY_S', DEFAULT_COMMAND_EXPIRY_S, 1, 31_536_000),
    mcpAllowedOrigins: origins(env, 'FARMSTEAD_MCP_ALLOWED_ORIGINS'),
    mcpReadOnly: bool(env, 'FARMSTEAD_MCP_READ_ONLY', false),
    requestTimeoutMs,
    headersTimeoutMs,
    keepAliveTimeoutMs: int(env, 'FARMSTEAD_KEEP_ALIVE_TIMEOUT_MS', 72_000, 100, 3_600_000),
    connectionTimeoutMs: int(env, 'FARMSTEAD_CONNECTION_TIMEOUT_MS', 120_000, 100, 3_600_000),
    maxConnections: int(env, 'FARMSTEAD_MAX_CONNECTIONS', 10_000, 0, 1_000_000),
    maxConnectionsPerAddress: int(env, 'FARMSTEAD_MAX_CONNECTIONS_PER_ADDRESS', 512, 0, 1_000_000),
    metricsToken: metricsToken(env),
    logFormat: logFormat(env),
    commandRedeliverSeconds: int(
      env,
      'FARMSTEAD_COMMAND_REDELIVER_S',
      DEFAULT_COMMAND_REDELIVER_S,
      1,
      2_592_000,
    ),
    mqttPort:
      env.FARMSTEAD_MQTT_PORT?.toLowerCase() === 'off'
        ? null
        : int(env, 'FARMSTEAD_MQTT_PORT', 1883, 0, 65535),
    mqttRatePerSecond: int(env, 'FARMSTEAD_MQTT_RATE', 10, 1, 100_000),
    mqttBroker: broker,
    mqttBrokerAuth: brokerAuth,
    mqttHookSecret: null,
    mqttBrokerAdmin: brokerAdmin,
    apiKey: env.FARMSTEAD_API_KEY || null,
    rateLimitEnabled: bool(env, 'FARMSTEAD_RATE_LIMIT', true),
    rateLimitWindowMs: int(env, 'FARMSTEAD_RATE_LIMIT_WINDOW_S', 60, 1, 3_600) * 1_000,
    rateLimitApiKey: int(env, 'FARMSTEAD_RATE_LIMIT_API_KEY', 1_200, 1, 1_000_000),
    rateLimitDeviceKey: int(env, 'FARMSTEAD_RATE_LIMIT_DEVICE_KEY', 120, 1, 1_000_000),
    rateLimitAuthFailures: int(env, 'FARMSTEAD_RATE_LIMIT_AUTH_FAILURES', 30, 1, 1_000_000),
    corsOrigins: origins(env, 'FARMSTEAD_CORS_ORIGINS'),
    publicUrl: publicUrl(env, host, port),
    publicUrlGiven: (env.FARMSTEAD_PUBLIC_URL ?? '').trim() !== '',
    trustProxy: trustProxy(env),
    streamKeepAliveMs: int(env, 'FARMSTEAD_STREAM_KEEPALIVE_MS', 15_000, 10, 3_600_000),
    maxStreamsPerKey: int(env, 'FARMSTEAD_MAX_STREAMS_PER_KEY', 100, 0, 1_000_000),
    streamPollMs: int(env, 'FARMSTEAD_STREAM_POLL_MS', 5_000, 10, 3_600_000),
    passwordCost: int(env, 'FARMSTEAD_PASSWORD_COST', DEFAULT_PASSWORD_COST, 10, 18),
    maxClockSkewS: int(env, 'FARMSTEAD_MAX_CLOCK_SKEW_S', DEFAULT_MAX_CLOCK_SKEW_S, 1, 31_536_000),
    vapidKeys: vapidKeys(env),
    vapidSubject: vapidSubject(env, emailFrom(env, publicUrl(env, host, port)), publicUrl(env, host, port)),
    smtpUrl: smtpUrl(env),
    emailFrom: emailFrom(env, publicUrl(env, host, port)),
    notificationWorkerInProcess: bool(env, 'FARMSTEAD_NOTIFICATION_WORKER', true),
    mapTiles: mapTiles(env),
    mapAttribution: mapAttribution(env),
  };
  Object.defineProperty(config, 'mqttHookSecret', { value: hookSecret, enumerable: false });
  return Object.freeze(config);
}
