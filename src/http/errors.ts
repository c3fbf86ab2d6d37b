import type { ErrorObject } from 'ajv';
import type { FastifyError, FastifyInstance } from 'fastify';
import { RECORD_KINDS, type RecordKind } from '../domain/record-kinds.ts';
import type { RouteTable } from './route-table.ts';
import { describeAjvError } from './validation.ts';

/** Stable error codes and their one status each; clients may branch on either. */
export const ERROR_STATUS = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  rate_limited: 429,
  header_too_large: 431,
  internal_error: 500,
  unavailable: 503,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * The one error type. `param` names the offending input field when there is one; `kind` the kind of
 * record a `not_found` is about, so clients (MCP) can say how to find real ids without reading the
 * message.
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly param: string | undefined;
  readonly kind: RecordKind | undefined;

  constructor(code: ErrorCode, message: string, options: { param?: string; kind?: RecordKind } = {}) {
    super(message);
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.param = options.param;
    this.kind = options.kind;
  }
}

/** The code for a framework's 4xx status (one we have no code for is a plain invalid_request); else null. */
export function codeForStatus(status: number): ErrorCode | null {
  if (status < 400 || status >= 500) return null;
  for (const [code, known] of Object.entries(ERROR_STATUS)) if (known === status) return code as ErrorCode;
  return 'invalid_request';
}

export const invalid = (param: string, message: string): AppError =>
  new AppError('invalid_request', message, { param });

/** Anything missing, in another account or in the other mode: the same answer, so existence never leaks. */
export const notFound = (kind: RecordKind, id: string): AppError =>
  new AppError('not_found', `No ${RECORD_KINDS[kind].noun} with id "${id}".`, { kind });

export const conflict = (message: string, param?: string): AppError =>
  new AppError('conflict', message, param ? { param } : {});

export interface ErrorBody {
  error: { code: string; message: string; param?: string };
}

export function errorBody(err: AppError): ErrorBody {
  return { error: { code: err.code, message: err.message, ...(err.param ? { param: err.param } : {}) } };
}

function validationToAppError(err: FastifyError): AppError {
  const issue = err.validation?.[0] as ErrorObject | undefined;
  if (!issue) return new AppError('invalid_request', err.message);
  const context = err.validationContext ?? 'body';
  const { param, message } = describeAjvError(
    issue,
    context === 'querystring' ? 'query parameter' : 'field',
    context === 'querystring' ? 'query' : context,
  );
  return new AppError('invalid_request', message, { param });
}

/** Fastify's own client errors (bad JSON, wrong content type, body too large) mapped to our codes. */
function fastifyToAppError(err: FastifyError): AppError | null {
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large', 'The request body is larger than this service accepts.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('unsupported_media_type', 'Send the request body as application/json.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('invalid_request', 'The request body does not match its Content-Length.');
    default: {
      const code = err.statusCode ? codeForStatus(err.statusCode) : null;
      return code ? new AppError(code, err.message) : null;
    }
  }
}

/** Turns every failure into `{ error: { code, message } }`; unknown failures become a logged 500 without internals. */
export function registerErrorHandling(app: FastifyInstance, routes: RouteTable): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    let appError: AppError;
    if (err instanceof AppError) appError = err;
    else if (err.validation) appError = validationToAppError(err);
    else {
      const mapped = fastifyToAppError(err);
      if (mapped) appError = mapped;
      else {
        request.log.error({ err }, 'unhandled error');
        appError = new AppError('internal_error', 'Something went wrong on our side; it has been logged.');
      }
    }
    if (appError.status >= 500 && err instanceof AppError) request.log.error({ err }, appError.message);
    reply.status(appError.status).send(errorBody(appError));
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const allowed = routes.methodsFor(path);
    if (allowed.length) {
      reply.header('allow', allowed.join(', '));
      const error = new AppError(
        'method_not_allowed',
        `${path} does not take ${request.method}; it takes ${allowed.join(', ')}.`,
      );
      return reply.status(error.status).send(errorBody(error));
    }
    reply.status(404).send(errorBody(new AppError('not_found', `No route ${request.method} ${path}.`)));
  });
}
