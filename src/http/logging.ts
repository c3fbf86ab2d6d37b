/**
 * The request log: pino through Fastify, with the request URL redacted. Keys belong in the Authorization
 * header, but a client that puts one in the query string (`?api_key=rk_live_…`) must not have it written
 * to the log: anything shaped like a key, and the value of any parameter named like a credential, is
 * replaced. Each request's lines also carry the calling key's prefix or device id (see http/auth.ts).
 */
import type { FastifyServerOptions } from 'fastify';
import type { Config } from '../config.ts';

const KEY_SHAPED = /\b(rk_(?:live|test)_|rd_|whsec_)[0-9A-Za-z_-]+/g;
const CREDENTIAL_PARAM =
  /^(?:key|api_?key|access_?token|token|auth|authorization|secret|password|device_?key)$/i;

export const REDACTED = '[redacted]';

/** The URL as it may be logged. */
export function redactUrl(url: string): string {
  const cut = url.indexOf('?');
  const path = (cut < 0 ? url : url.slice(0, cut)).replace(KEY_SHAPED, `$1${REDACTED}`);
  if (cut < 0) return path;
  const query = url
    .slice(cut + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name);
      } catch {
        decoded = name;
      }
      if (eq >= 0 && CREDENTIAL_PARAM.test(decoded)) return `${name}=${REDACTED}`;
      return pair.replace(KEY_SHAPED, `$1${REDACTED}`);
    })
    .join('&');
  return `${path}?${query}`;
}

interface LoggedRequest {
  method: string;
  url: string;
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
        url: redactUrl(req.url),
        host: req.host,
        remoteAddress: req.ip,
        remotePort: req.socket?.remotePort,
      }),
    },
  };
}
