/**
 * The framework side of errors: Fastify's failures (validation, body parsing, unknown ones) turned into the
 * Error object of domain/errors.ts, and the 404/405 answers for routes that do not exist.
 */
import type { ErrorObject } from 'ajv';
import type { FastifyError, FastifyInstance } from 'fastify';
import { AppError, codeForStatus, errorBody } from '../domain/errors.ts';
import { describeAjvError, firstIssue } from '../lib/ajv.ts';
import type { RouteTable } from './route-table.ts';

function validationToAppError(err: FastifyError): AppError {
  const issue = firstIssue(err.validation as ErrorObject[] | undefined);
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
