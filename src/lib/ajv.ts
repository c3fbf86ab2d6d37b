/**
 * Request validation: bodies are checked strictly (no type coercion, unknown members rejected, so a
 * typo never looks like success); query strings and path params coerce numbers from their text.
 * Numbers must be finite everywhere, and free-form members are capped (see input-guard.ts).
 */
import { Ajv, type AnySchema, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance, FastifySchemaValidationError } from 'fastify';
import { lazily } from './compile-lazily.ts';
import { FREE_FORM_KEYWORD, freeFormProblem, markFreeForm } from './free-form.ts';
import { parseIso } from './time.ts';

/** Ajv as every surface uses it: ISO 8601 `date-time`, defaults filled in, errors that carry their schema. */
export function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({
    allErrors: false,
    removeAdditional: false,
    useDefaults: true,
    strict: false,
    // Infinity and NaN are not numbers to us (Ajv lets them through when strict is off).
    strictNumbers: true,
    verbose: true,
    ...options,
  });
  const freeForm = (_schema: boolean, data: unknown): boolean => {
    const problem = freeFormProblem(data);
    freeForm.errors = problem
      ? [{ keyword: FREE_FORM_KEYWORD, message: problem, params: { problem } }]
      : undefined;
    return problem === null;
  };
  freeForm.errors = undefined as Partial<ErrorObject>[] | undefined;
  ajv.addKeyword({ keyword: FREE_FORM_KEYWORD, schemaType: 'boolean', errors: true, validate: freeForm });
  // ajv-formats is CommonJS; its default export arrives wrapped.
  const addFormats =
    (addFormatsModule as unknown as { default: (a: Ajv) => void }).default ?? addFormatsModule;
  (addFormats as (a: Ajv) => void)(ajv);
  // ISO 8601 date or date-time (with or without zone; no zone means UTC), normalised by services.
  ajv.addFormat('date-time', { type: 'string', validate: (s: string) => parseIso(s) !== null });
  return ajv;
}

/** Compiles a schema with its free-form members marked for the free-form cap. */
export function compileChecked(ajv: Ajv, schema: AnySchema): ValidateFunction {
  return ajv.compile(markFreeForm(schema));
}

function bodyError(keyword: string, params: Record<string, unknown>, message: string) {
  return [{ instancePath: '', schemaPath: `#/${keyword}`, keyword, params, message }];
}

/**
 * The request validators, shared by every app in the process and compiled once per distinct schema (the
 * same path parameters and query strings recur on many routes): what a validator does depends only on its
 * schema and its Ajv's options. Each is compiled on its first use (compile-lazily.ts).
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

type JsonObject = Record<string, unknown>;

function numberRange(param: string, schema: JsonObject): string | null {
  const whole = schema.type === 'integer';
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum } = schema;
  const noun = whole ? 'a whole number' : 'a number';
  if (typeof minimum === 'number' && typeof maximum === 'number') {
    return `${param} must be ${noun} from ${minimum} to ${maximum}.`;
  }
  if (typeof minimum === 'number') return `${param} must be ${noun} of at least ${minimum}.`;
  if (typeof maximum === 'number') return `${param} must be ${noun} of at most ${maximum}.`;
  if (typeof exclusiveMinimum === 'number')
    return `${param} must be ${noun} greater than ${exclusiveMinimum}.`;
  if (typeof exclusiveMaximum === 'number') return `${param} must be ${noun} below ${exclusiveMaximum}.`;
  return null;
}

function paramOf(error: ErrorObject): string {
  const parts = error.instancePath.split('/').filter(Boolean);
  if (error.keyword === 'required') parts.push(String(error.params.missingProperty));
  if (error.keyword === 'additionalProperties') parts.push(String(error.params.additionalProperty));
  let out = '';
  for (const part of parts) out += /^\d+$/.test(part) ? `[${part}]` : out ? `.${part}` : part;
  return out;
}

/**
 * One Ajv error as a sentence that names the argument and says what would be valid; `root` names the
 * whole value (the body, the query string, the arguments).
 */
export function describeAjvError(
  error: ErrorObject,
  what = 'argument',
  root = 'arguments',
): { param: string; message: string } {
  const param = paramOf(error) || root;
  const parent = (error.parentSchema ?? {}) as JsonObject;
  switch (error.keyword) {
    case 'required':
      return { param, message: `${param} is required.` };
    case 'additionalProperties': {
      const known = Object.keys((parent.properties as JsonObject | undefined) ?? {});
      const list = known.length ? ` Known ${what}s: ${known.join(', ')}.` : '';
      return { param, message: `${param} is not a known ${what}.${list}` };
    }
    case 'enum':
      return {
        param,
        message: `${param} must be one of: ${(error.params.allowedValues as unknown[]).join(', ')}.`,
      };
    case 'const':
      return { param, message: `${param} must be ${JSON.stringify(error.params.allowedValue)}.` };
    case 'type':
      return {
        param,
        message: `${param} must be ${error.params.type === 'integer' ? 'a whole number' : `of type ${String(error.params.type)}`}.`,
      };
    case 'format':
      return {
        param,
        message: `${param} must be a valid ${error.params.format === 'date-time' ? 'ISO 8601 date or date-time' : String(error.params.format)}.`,
      };
    case 'minLength':
      return {
        param,
        message:
          error.params.limit === 1
            ? `${param} must not be empty.`
            : `${param} must be at least ${error.params.limit} characters.`,
      };
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return {
        param,
        message: numberRange(param, parent) ?? `${param} ${error.message ?? 'is out of range'}.`,
      };
    case 'maxLength':
      return { param, message: `${param} must be at most ${error.params.limit} characters.` };
    case FREE_FORM_KEYWORD:
      return { param, message: `${param} ${String(error.params.problem)}.` };
    default:
      return { param, message: `${param} ${error.message ?? 'is invalid'}.` };
  }
}
