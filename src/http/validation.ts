/**
 * Request validation: bodies are checked strictly (no type coercion, unknown members rejected, so a
 * typo never looks like success); query strings and path params coerce numbers from their text.
 * Numbers must be finite everywhere, and free-form members are capped (Ajv as src/lib/ajv.ts makes it;
 * the input rules: src/calls/input-rules.ts).
 */
import type { Ajv, AnySchema, ValidateFunction } from 'ajv';
import type { FastifyInstance, FastifySchemaValidationError } from 'fastify';
import { compileChecked, makeAjv } from '../lib/ajv.ts';
import { lazily } from '../lib/compile-lazily.ts';

function bodyError(keyword: string, params: Record<string, unknown>, message: string) {
  return [{ instancePath: '', schemaPath: `#/${keyword}`, keyword, params, message }];
}

/**
 * The request validators, shared by every app in the process and compiled once per distinct schema (the
 * same path parameters and query strings recur on many routes): what a validator does depends only on its
 * schema and its Ajv's options. Each is compiled on its first use (src/lib/compile-lazily.ts).
 */
const strict = makeAjv({ coerceTypes: false });
const coercing = makeAjv({ coerceTypes: 'array' });
const validators = new Map<Ajv, Map<string, () => ValidateFunction>>([
  [strict, new Map()],
  [coercing, new Map()],
]);

function compiledOnce(ajv: Ajv, schema: AnySchema): () => ValidateFunction {
  const cache = validators.get(ajv) as Map<string, () => ValidateFunction>;
  const key = JSON.stringify(schema);
  let validate = cache.get(key);
  if (!validate) {
    validate = lazily(() => compileChecked(ajv, schema));
    cache.set(key, validate);
  }
  return validate;
}

/**
 * A query string, path or headers validator compiled on its first call. It carries `schemaEnv` as Ajv's own
 * functions do, so Fastify passes it the request as the parent (for Ajv to replace a coerced root value).
 */
function lazyValidator(ajv: Ajv, schema: AnySchema) {
  const get = compiledOnce(ajv, schema);
  const check = (data: unknown, context?: Parameters<ValidateFunction>[1]): boolean => {
    const validate = get();
    const ok = validate(data, context) as boolean;
    check.errors = (validate.errors as FastifySchemaValidationError[] | null | undefined) ?? null;
    return ok;
  };
  check.errors = null as FastifySchemaValidationError[] | null;
  check.schemaEnv = true;
  return check;
}

/**
 * The validator of a query string, path or headers, as every route has it: for a route that compiles its
 * own body check (the CSV import's body is bytes, not JSON) and keeps the usual one for the other parts.
 */
export function requestPartValidator(schema: AnySchema) {
  return lazyValidator(coercing, schema);
}

/**
 * Absent bodies (none, empty or whitespace; the JSON parser already refused `null` and other
 * non-objects): a PATCH needs a body, since sending nothing to change is almost always a client bug;
 * other methods count it as `{}`, so action endpoints and creates with only optional members work
 * without one, and a required member is named as missing.
 */
export function registerValidation(app: FastifyInstance): void {
  app.setValidatorCompiler(({ schema, httpPart, method }) => {
    if (httpPart !== 'body') return lazyValidator(coercing, schema);
    const compiled = compiledOnce(strict, schema);
    const required = (schema as { required?: string[] }).required ?? [];
    const check = (data: unknown): boolean | { value: unknown } => {
      const validate = compiled();
      if (data === undefined || data === null) {
        if (method === 'PATCH') {
          check.errors = bodyError(
            'x-body',
            {},
            'is missing: send a JSON object with the fields to change (an empty object {} changes nothing)',
          );
          return false;
        }
        const missing = required[0];
        if (missing !== undefined) {
          check.errors = bodyError('required', { missingProperty: missing }, 'is required');
          return false;
        }
        data = {};
        if (!validate(data)) {
          check.errors = (validate.errors as FastifySchemaValidationError[] | null | undefined) ?? null;
          return false;
        }
        check.errors = null;
        return { value: data };
      }
      const ok = validate(data) as boolean;
      check.errors = (validate.errors as FastifySchemaValidationError[] | null | undefined) ?? null;
      return ok;
    };
    check.errors = null as FastifySchemaValidationError[] | null;
    return check;
  });
}
