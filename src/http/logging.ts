/**
 * The request log: pino through Fastify, with the request URL redacted. Keys belong in the Authorization
 * header, but a client that puts one in the query string (`?api_key=rk_live_…`) must not have it written
 * to the log: anything shaped like a key (`KEY_PREFIXES`, percent-escaped or not), and the value of any
 * parameter named like a credential, is replaced. One-time secrets have no shape to recognise (a setup link's
 * token is random text), so a route whose path or query carries one says so (`config.secrets`), and those
 * parameters are replaced: by the route that matched, and on any path, matched or not, by every route's
 * declaration (`SecretPaths`, built from the route table: a trailing slash, an extra segment or another
 * method leaves a request without its route, never without its redaction).
 * Each request's lines also carry the calling key's prefix or device id (see http/auth.ts).
 */
import type { FastifyServerOptions } from 'fastify';
import type { Config } from '../config.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Path parameters (`token` of `/v1/setup/:token`) and query parameters that carry a secret (a one-time
     * token, an OAuth code): never written to the log.
     */
    secrets?: readonly string[];
  }
}

export const REDACTED = '[redacted]';

/**
 * The prefix of every key, token, code and secret the service issues: API keys, device keys, OAuth access
 * tokens, refresh tokens and codes, LoRaWAN uplink secrets, webhook signing secrets. request-log.test.ts
 * finds every prefix the code puts before a random token and checks that each is here (or is a public id's).
 */
const KEY_PREFIXES = ['rk_live_', 'rk_test_', 'rd_', 'ro_', 'rr_', 'rc_', 'lwi_'] as const;
/** Webhook signing secrets: standard base64 after the prefix, so `+`, `/` and `=` are the secret's too. */
const BASE64_KEY_PREFIX = 'whsec_';

/** A prefix and the token after it (base62, or base64 after `whsec_`), percent-escaped or not. */
const KEY_SOURCE =
  `\\b(?:(${KEY_PREFIXES.join('|')})(?:[0-9A-Za-z_-]|%[0-9A-Fa-f]{2})+` +
  `|(${BASE64_KEY_PREFIX})(?:[0-9A-Za-z_+/=-]|%[0-9A-Fa-f]{2})+)`;
const KEY_SHAPED = new RegExp(KEY_SOURCE, 'g');
const HAS_KEY = new RegExp(KEY_SOURCE);
const KEY_REDACTED = `$1$2${REDACTED}`;

const CREDENTIAL_PARAM =
  /^(?:key|api_?key|access_?token|refresh_?token|token|auth|authorization|secret|client_?secret|password|device_?key|code_?verifier)$/i;

/** What the log knows of a request's route: its pattern and the parameters it declares secret. */
export interface LoggedRoute {
  url?: string | undefined;
  config?: { secrets?: readonly string[] | undefined } | undefined;
}

/** A route's pattern and the parameters it declares secret, as the route table lists them. */
export interface DeclaredSecrets {
  url: string;
  secrets: readonly string[];
}

/** Percent-escapes decoded byte by byte (never throws; enough to see an ASCII prefix an escape hid). */
function unescaped(text: string): string {
  return text.includes('%')
    ? text.replace(/%[0-9A-Fa-f]{2}/g, (sequence) =>
        String.fromCharCode(Number.parseInt(sequence.slice(1), 16)),
      )
    : text;
}

/**
 * Secrets in paths known whatever the app registers: the broker hooks are served only when the broker asks
 * the service (FARMSTEAD_MQTT_BROKER_AUTH=http), but a broker pointed at a service that does not serve them
 * (not yet configured, or no longer) still sends its secret in every request's path
 * (modules/broker-hooks/routes.ts HOOKS_ROOT; request-log.test.ts checks the two agree).
 */
const SECRETS_OF_UNREGISTERED_ROUTES: readonly DeclaredSecrets[] = [
  { url: '/broker-hooks/:secret', secrets: ['secret'] },
];

/** The scheme and host of a request target in absolute form (`http://host/v1/…`). */
const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/]*/;

/**
 * Where every route declares a secret path parameter, for any path: a path whose segments start as a
 * secret-bearing pattern's do (its words, any case, escaped or not; anything where it has a parameter) has
 * the segment at the secret's place replaced, whatever follows it (a trailing slash, more segments) and
 * whichever route matched, if one did. A query parameter any route declares secret is replaced on every path.
 * Built from the route table (http/route-table.ts `secretPaths`), so no second list of secret paths is kept,
 * beside the routes an app may not register (SECRETS_OF_UNREGISTERED_ROUTES).
 */
export class SecretPaths {
  /** Each secret's place: the pattern's segments before it, lower-case; null where it has a parameter. */
  private readonly places: (string | null)[][] = [];
  /** Each place's leading words as a path starts with them (`/v1/setup/`): other paths are kept. */
  private readonly leads: string[] = [];
  /** Query parameters some route declares secret. */
  readonly queryNames: ReadonlySet<string>;

  constructor(routes: Iterable<DeclaredSecrets>) {
    const names = new Set<string>();
    const seen = new Set<string>();
    for (const { url, secrets } of [...SECRETS_OF_UNREGISTERED_ROUTES, ...routes]) {
      if (secrets.length === 0) continue;
      for (const name of secrets) names.add(name);
      const segments = url.split('/').filter((segment) => segment !== '');
      segments.forEach((segment, i) => {
        if (!segment.startsWith(':') || !secrets.includes(segment.slice(1))) return;
        const before = segments
          .slice(0, i)
          .map((s) => (s.startsWith(':') || s === '*' ? null : s.toLowerCase()));
        const key = before.map((s) => s ?? ':').join('/');
        if (seen.has(key)) return;
        seen.add(key);
        this.places.push(before);
        const words = before.indexOf(null);
        this.leads.push(
          `/${before.slice(0, words < 0 ? before.length : words).join('/')}/`.replace('//', '/'),
        );
      });
    }
    this.queryNames = names;
  }

  /**
   * The path with each segment at a secret's place replaced (empty segments, `//`, are not counted; a
   * request target in absolute form, `http://host/…`, is matched from its path).
   */
  redactPath(path: string): string {
    // Most paths start with no place's words: answered without splitting (every request's line asks).
    if (path.startsWith('/') && !path.includes('%') && !path.includes('//')) {
      const lower = path.toLowerCase();
      if (!this.leads.some((lead) => lower.startsWith(lead))) return path;
    } else if (!path.startsWith('/')) {
      const origin = ABSOLUTE_FORM.exec(path)?.[0];
      if (origin) return origin + this.redactPath(path.slice(origin.length));
    }
    const segments = path.split('/');
    const at: number[] = [];
    segments.forEach((segment, i) => {
      if (segment !== '') at.push(i);
    });
    let changed = false;
    for (const before of this.places) {
      const place = at[before.length];
      if (place === undefined) continue;
      const fits = before.every((word, j) => {
        if (word === null) return true;
        return unescaped(segments[at[j] as number] as string).toLowerCase() === word;
      });
      if (!fits) continue;
      segments[place] = REDACTED;
      changed = true;
    }
    return changed ? segments.join('/') : path;
  }
}

/** What a URL is redacted by where the app's route table is not at hand. */
const WITHOUT_ROUTES = new SecretPaths([]);

/** Whether a percent-escape hides a key from KEY_SHAPED in this piece of a URL (`%72d_…`, `a%3Drd_…`). */
function hidesKey(piece: string): boolean {
  return piece.includes('%') && HAS_KEY.test(unescaped(piece));
}

/**
 * The URL as it may be logged: `route`'s secret path segments (matched to its pattern segment by segment),
 * every secret place `secretPaths` knows (any route's, on a path no route matched too), secret and
 * credential-named query parameters, and anything key-shaped, replaced.
 */
export function loggableUrl(
  url: string,
  route: LoggedRoute | undefined,
  secretPaths: SecretPaths = WITHOUT_ROUTES,
): string {
  const secrets = route?.config?.secrets ?? [];
  const cut = url.indexOf('?');
  let path = cut < 0 ? url : url.slice(0, cut);
  if (secrets.length > 0 && route?.url) {
    const pattern = route.url.split('/');
    path = path
      .split('/')
      .map((segment, i) => {
        const param = pattern[i];
        return param?.startsWith(':') && secrets.includes(param.slice(1)) ? REDACTED : segment;
      })
      .join('/');
  }
  path = secretPaths.redactPath(path);
  // Key-shaped values keep their prefix (`rk_live_[redacted]`); a segment hiding one behind escapes goes whole.
  path = path.replace(KEY_SHAPED, KEY_REDACTED);
  if (path.includes('%')) {
    path = path
      .split('/')
      .map((segment) => (hidesKey(segment) ? REDACTED : segment))
      .join('/');
  }
  if (cut < 0) return path;
  const query = url
    .slice(cut + 1)
    .split('&')
    .map((pair) => {
      const { name, decoded, hasValue } = decodedName(pair);
      const secret =
        CREDENTIAL_PARAM.test(decoded) || secrets.includes(decoded) || secretPaths.queryNames.has(decoded);
      if (hasValue && secret) return `${name}=${REDACTED}`;
      const replaced = pair.replace(KEY_SHAPED, KEY_REDACTED);
      if (!hidesKey(replaced)) return replaced;
      return hasValue ? `${name}=${REDACTED}` : REDACTED;
    })
    .join('&');
  return `${path}?${query}`;
}

function decodedName(pair: string): { name: string; decoded: string; hasValue: boolean } {
  const eq = pair.indexOf('=');
  const name = eq < 0 ? pair : pair.slice(0, eq);
  try {
    return { name, decoded: decodeURIComponent(name.replace(/\+/g, ' ')), hasValue: eq >= 0 };
  } catch {
    return { name, decoded: name, hasValue: eq >= 0 };
  }
}

/** The URL as it may be logged, whatever its route: key shapes, credential names, and `secretPaths`' places. */
export function redactUrl(url: string, secretPaths?: SecretPaths): string {
  return loggableUrl(url, undefined, secretPaths);
}

interface LoggedRequest {
  method: string;
  url: string;
  /** A Fastify request's route (absent on a raw request, before routing). */
  routeOptions?: LoggedRoute;
  /** A Fastify request's app, with the route table buildApp decorates it with (app.ts). */
  server?: { routeTable?: { secretPaths(): SecretPaths } };
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

/** A request's URL as it may be logged: its route's secrets, every route's (the route table), key shapes. */
export function requestUrlForLog(request: LoggedRequest): string {
  return loggableUrl(request.url, request.routeOptions, request.server?.routeTable?.secretPaths());
}

/**
 * Fastify logger options: the level, the redacting serializer, and the format: pretty lines for a person
 * at a terminal, JSON lines for anything that collects logs (or an explicit destination, in tests).
 */
export function loggerOptions(
  config: Pick<Config, 'logLevel' | 'logFormat'>,
  stream?: { write(line: string): void },
): FastifyServerOptions['logger'] {
  const pretty =
    !stream &&
    (config.logFormat === 'pretty' || (config.logFormat === 'auto' && process.stdout.isTTY === true));
  return {
    level: config.logLevel,
    ...(stream ? { stream } : {}),
    ...(pretty
      ? {
          transport: {
            target: 'pino-pretty',
            options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' },
          },
        }
      : {}),
    serializers: {
      req: (req: LoggedRequest) => ({
        method: req.method,
        url: requestUrlForLog(req),
        host: req.host,
        remoteAddress: req.ip,
        remotePort: req.socket?.remotePort,
      }),
    },
  };
}
