/**
 * The one error type and its stable codes, with no framework in it: services, repositories, MQTT and the
 * HTTP layer all throw and answer with these. The Error object (`errorBody`) is what every transport sends;
 * http/errors.ts turns Fastify's failures into it. Here rather than in lib/ because a not-found names its
 * record kind from the record-kind table (lib sits below domain).
 */
import { RECORD_KINDS, type RecordKind } from './record-kinds.ts';

/** Stable error codes and their one status each; clients may branch on either. */
export const ERROR_STATUS = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  // An animal inside its meat withdrawal may not leave (a sale, a slaughter, a status change) without override_reason.
  withdrawal_active: 409,
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

export function forbidden(message: string): AppError {
  return new AppError('forbidden', message);
}

/** The Error object every failure is answered with, over HTTP and MQTT alike. */
export interface ErrorBody {
  error: { code: string; message: string; param?: string };
}

export function errorBody(err: AppError): ErrorBody {
  return { error: { code: err.code, message: err.message, ...(err.param ? { param: err.param } : {}) } };
}
