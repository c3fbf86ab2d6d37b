/**
 * The request log: pino through Fastify, with the request URL redacted. Keys belong in the Authorization
 * header, but a client that puts one in the query string (`?api_key=rk_live_…`) must not have it written
 * to the log: anything shaped like a key, and the value of any parameter named like a credential, is
 * replaced. One-time secrets have no shape to recognise (a setup link's token is random text), so a route
 * whose path or query carries one says so (`config.secrets`), and those parameters are replaced by route.
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

const KEY_SHAPED = /\b(rk_(?:live|test)_|rd_|whsec_)[0-9A-Za-z_-]+/g;
const CREDENTIAL_PARAM =
  /^(?:key|api_?key|access_?token|token|auth|authorization|secret|password|device_?key)$/i;

export const REDACTED = '[redacted]';

/** What the log knows of a request's route: its pattern and the parameters it declares secret. */
export interface LoggedRoute {
  url?: string | undefined;
  config?: { secrets?: readonly string[] | undefined } | undefined;
}

/**
 * The URL as it may be logged: `route`'s secret path segments (matched to its pattern segment by segment)
 * and secret query parameters replaced, then anything key-shaped (redactUrl).
 */
export function loggableUrl(url: string, route: LoggedRoute | undefined): string {
  const secrets = route?.config?.secrets;
  if (!secrets?.length || !route?.url) return redactUrl(url);
  const cut = url.indexOf('?');
  const pattern = route.url.split('/');
  const path = (cut < 0 ? url : url.slice(0, cut))
    .split('/')
    .map((segment, i) => {
      const param = pattern[i];
      return param?.startsWith(':') && secrets.includes(param.slice(1)) ? REDACTED : segment;
    })
    .join('/');
  return redactUrl(cut < 0 ? path : `${path}?${redactQuery(url.slice(cut + 1), secrets)}`);
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

function redactQuery(query: string, secrets: readonly string[]): string {
  return query
    .split('&')
    .map((pair) => {
      const { name, decoded, hasValue } = decodedName(pair);
      return hasValue && secrets.includes(decoded) ? `${name}=${REDACTED}` : pair;
    })
    .join('&');
}

/**
 * Paths whose next segment is a secret whatever route matched, or none did (a broker pointed at the broker
 * hooks with a wrong method or a typo in the path: modules/broker-hooks/routes.ts HOOKS_ROOT).
 */
const SECRET_SEGMENT = /^(\/broker-hooks\/)[^/]+/;

/** The URL as it may be logged, whatever its route. */
export function redactUrl(url: string): string {
  const cut = url.indexOf('?');
  const path = (cut < 0 ? url : url.slice(0, cut))
    .replace(SECRET_SEGMENT, `$1${REDACTED}`)
    .replace(KEY_SHAPED, `$1${REDACTED}`);
  if (cut < 0) return path;
  const query = url
    .slice(cut + 1)
    .split('&')
    .map((pair) => {
      const { name, decoded, hasValue } = decodedName(pair);
      if (hasValue && CREDENTIAL_PARAM.test(decoded)) return `${name}=${REDACTED}`;
      return pair.replace(KEY_SHAPED, `$1${REDACTED}`);
    })
    .join('&');
  return `${path}?${query}`;
}

interface LoggedRequest {
  method: string;
  url: string;
  /** A Fastify request's route (absent on a raw request, before routing). */
  routeOptions?: LoggedRoute;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
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
        url: loggableUrl(req.url, req.routeOptions),
        host: req.host,
        remoteAddress: req.ip,
        remotePort: req.socket?.remotePort,
      }),
    },
  };
}
