/**
 * The input guard: the input rules (src/calls/input-rules.ts) applied to every request before any module
 * sees it. JSON bodies go through parseJsonBody; path ids and query values through the text rules, query
 * values at most `INPUT_LIMITS.queryChars` characters; a query string that is not valid percent-encoded
 * UTF-8 is refused.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { checkText, INPUT_LIMITS, parseJsonBody } from '../calls/input-rules.ts';
import { type AppError, invalid } from '../domain/errors.ts';

/**
 * The query string's parser leaves a value it cannot decode as it was sent (`%zz`, invalid UTF-8), so
 * a filter would silently match something else than meant: refuse it as the router refuses such paths.
 */
function checkQueryEncoding(url: string): void {
  const start = url.indexOf('?');
  if (start < 0) return;
  for (const pair of url.slice(start + 1).split('&')) {
    try {
      decodeURIComponent(pair.replaceAll('+', ' '));
    } catch {
      const name = pair.split('=')[0] ?? '';
      let param = 'query';
      try {
        param = decodeURIComponent(name) || param;
      } catch {}
      throw invalid(param, `${param} in the query string is not valid percent-encoded UTF-8.`);
    }
  }
}

function checkQueryAndParams(request: FastifyRequest): void {
  checkQueryEncoding(request.url);
  const params = (request.params ?? {}) as Record<string, unknown>;
  for (const [name, value] of Object.entries(params)) {
    if (typeof value === 'string') checkText(value, name);
  }
  const query = (request.query ?? {}) as Record<string, unknown>;
  for (const [name, value] of Object.entries(query)) {
    checkText(name, 'query');
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item !== 'string') continue;
      checkText(item, name);
      if (item.length > INPUT_LIMITS.queryChars) {
        throw invalid(name, `${name} must be at most ${INPUT_LIMITS.queryChars} characters.`);
      }
    }
  }
}

/**
 * JSON bodies through parseJsonBody (any other content type is 415), path ids and query values
 * through the text rules. An empty or whitespace body counts as no body (see registerValidation).
 */
export function registerInputGuard(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, parseJsonBody(text));
    } catch (err) {
      done(err as AppError, undefined);
    }
  });
  app.addHook('preValidation', (request, _reply, done) => {
    checkQueryAndParams(request);
    done();
  });
}
