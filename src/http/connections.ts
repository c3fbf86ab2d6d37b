/**
 * Connection limits on the HTTP listener, so slow or idle clients cannot hold every file descriptor:
 * a cap on open connections per client address and in total. A connection over a cap is answered at
 * once with the Error object (429 `rate_limited` per address, 503 `unavailable` in total) and closed,
 * before any HTTP parsing: none of its bytes ever reach a route. Timeouts are Fastify/Node options
 * (see timeoutOptions).
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Config } from '../config.ts';
import { AppError, errorBody } from '../domain/errors.ts';

type Limits = Pick<Config, 'maxConnections' | 'maxConnectionsPerAddress'>;
type Timeouts = Pick<
  Config,
  'requestTimeoutMs' | 'headersTimeoutMs' | 'keepAliveTimeoutMs' | 'connectionTimeoutMs'
>;

/** How long a refused connection may linger for its answer to be read. */
const REFUSED_LINGER_MS = 2_000;

/** Fastify options for the timeouts (`http` goes to Node's http.createServer). */
export function timeoutOptions(config: Timeouts) {
  return {
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    connectionTimeout: config.connectionTimeoutMs,
    http: {
      headersTimeout: config.headersTimeoutMs,
      // Node checks the two deadlines on this interval (30 s by default, which would let a slow request
      // live that much longer than configured).
      connectionsCheckingInterval: Math.min(1_000, config.headersTimeoutMs),
    },
  };
}

/** `::ffff:10.0.0.1` and `10.0.0.1` are one client. */
function clientAddress(socket: Socket): string {
  const address = socket.remoteAddress ?? 'unknown';
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}

function refuse(socket: Socket, error: AppError): void {
  const body = JSON.stringify(errorBody(error));
  const reason = error.status === 429 ? 'Too Many Requests' : 'Service Unavailable';
  socket.on('error', () => {});
  socket.setTimeout(REFUSED_LINGER_MS, () => socket.destroy());
  socket.end(
    `HTTP/1.1 ${error.status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nRetry-After: 1\r\nConnection: close\r\n\r\n${body}`,
  );
  // Whatever the client sends is read and dropped, so its close is seen.
  socket.resume();
}

/**
 * Counts connections on the server's 'connection' event and refuses those over a cap. Node's own HTTP
 * connection listener is moved behind the check, so a refused socket never gets an HTTP parser.
 */
export function limitConnections(server: Server, limits: Limits): void {
  if (limits.maxConnections === 0 && limits.maxConnectionsPerAddress === 0) return;
  const accept = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  const perAddress = new Map<string, number>();
  let total = 0;
  server.on('connection', (socket: Socket) => {
    const address = clientAddress(socket);
    const open = perAddress.get(address) ?? 0;
    if (limits.maxConnections > 0 && total >= limits.maxConnections) {
      return refuse(
        socket,
        new AppError('unavailable', 'The server has too many open connections; retry shortly.'),
      );
    }
    if (limits.maxConnectionsPerAddress > 0 && open >= limits.maxConnectionsPerAddress) {
      return refuse(
        socket,
        new AppError(
          'rate_limited',
          `Too many open connections from your address (at most ${limits.maxConnectionsPerAddress}); reuse or close connections.`,
        ),
      );
    }
    total++;
    perAddress.set(address, open + 1);
    socket.once('close', () => {
      total--;
      const left = (perAddress.get(address) ?? 1) - 1;
      if (left > 0) perAddress.set(address, left);
      else perAddress.delete(address);
    });
    for (const listener of accept) listener.call(server, socket);
  });
}
