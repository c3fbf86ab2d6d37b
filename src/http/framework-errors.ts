/**
 * Failures that happen before a request reaches a route, answered with the same Error object as
 * everything else: the router's bad URLs (percent-encoding, invalid UTF-8, a path segment over its
 * limit), Node's HTTP parser (headers too large, timeouts, malformed requests), and requests that
 * arrive while the server is closing.
 */
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type ErrorCode, errorBody } from '../domain/errors.ts';

/** find-my-way's limit on one path segment (Fastify's default `maxParamLength`). */
export const MAX_PATH_SEGMENT = 100;

/** Fastify's `frameworkErrors` option: router failures with our codes. */
export function frameworkErrors(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  let error: AppError;
  switch (err.code) {
    case 'FST_ERR_BAD_URL':
      error = new AppError(
        'invalid_request',
        'The request path is not valid: it has a malformed percent-encoding or is not UTF-8.',
      );
      break;
    case 'FST_ERR_MAX_PARAM_LENGTH':
      error = new AppError(
        'uri_too_long',
        `A path segment is longer than ${MAX_PATH_SEGMENT} characters; no id is that long.`,
      );
      break;
    default:
      request.log.error({ err }, 'router failure');
      error = new AppError('internal_error', 'Something went wrong on our side; it has been logged.');
  }
  reply.status(error.status).send(errorBody(error));
}

/** Node's HTTP parser errors (see http.Server 'clientError') and the Error object answering each. */
function clientErrorFor(err: NodeJS.ErrnoException): { code: ErrorCode; message: string } {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return { code: 'header_too_large', message: 'The request headers (with the URL) are too large.' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { code: 'request_timeout', message: 'The request took too long to arrive.' };
    case 'HPE_INVALID_METHOD':
      return { code: 'method_not_allowed', message: 'The request method is not one this service knows.' };
    default:
      return { code: 'invalid_request', message: 'The request is not valid HTTP/1.1.' };
  }
}

const REASON: Record<number, string> = {
  400: 'Bad Request',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

/**
 * Fastify's `clientErrorHandler`: no request object exists yet, so the answer is written on the
 * socket by hand (as Fastify's default does) before it is closed.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const { code, message } = clientErrorFor(err);
  const error = new AppError(code, message);
  if (socket.writable) {
    const body = JSON.stringify(errorBody(error));
    socket.write(
      `HTTP/1.1 ${error.status} ${REASON[error.status] ?? 'Error'}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Connection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/**
 * While the server closes, new requests get 503 `unavailable` (Fastify's own 503 would carry its own
 * body, so its return503OnClosing is off and this hook answers instead).
 */
export function refuseWhileClosing(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', (_request, reply, done) => {
    if (!closing) return done();
    reply.header('connection', 'close');
    done(new AppError('unavailable', 'The server is shutting down; retry on another instance or shortly.'));
  });
  // A request in flight when closing began is answered, and its connection closed with the answer: left
  // open, the idle keep-alive connection would hold the shutdown until its keep-alive timeout ran out.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
}
