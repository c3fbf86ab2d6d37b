/**
 * Ajv as every surface uses it (REST bodies and query strings, MCP arguments, MQTT messages, imported
 * files): finite numbers only, ISO 8601 `date-time`, free-form members capped (free-form.ts), and each
 * error as a sentence naming its argument. Fastify's validator compiler over it is src/http/validation.ts.
 */
import { Ajv, type AnySchema, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
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

type JsonObject = Record<string, unknown>;

function numberRange(param: string, schema: JsonObject): string | null {
  const whole = schema.type === 'integer';
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum } = schema;
  const noun = whole ? 'a whole number' : 'a number';
  if (typeof minimum === 'number' && typeof maximum === 'number') {
    return `${param} must be ${noun} from ${minimum} to ${maximum}.`;
  }
  // Both bounds, of whichever kind, in one sentence: "greater than 0 and at most 1000000", never half of it.
  const lower =
    typeof minimum === 'number'
      ? `of at least ${minimum}`
      : typeof exclusiveMinimum === 'number'
        ? `greater than ${exclusiveMinimum}`
        : null;
  const upper =
    typeof maximum === 'number'
      ? `at most ${maximum}`
      : typeof exclusiveMaximum === 'number'
        ? `below ${exclusiveMaximum}`
        : null;
  if (lower && upper) return `${param} must be ${noun} ${lower} and ${upper}.`;
  if (lower) return `${param} must be ${noun} ${lower}.`;
  if (upper) return `${param} must be ${noun} ${upper === `at most ${maximum}` ? `of ${upper}` : upper}.`;
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
 * The error to report of those Ajv gives, in order: the first, except that a value matching none of a
 * union of constants (TypeBox's `Union` of `Literal`s) is reported as the union's whole list ("must be one
 * of: ai, natural, bull_in"), not as its first member alone ("must be \"ai\"").
 */
export function firstIssue(errors: readonly ErrorObject[] | null | undefined): ErrorObject | undefined {
  const first = errors?.[0];
  if (first?.keyword !== 'const') return first;
  const union = errors?.find(
    (e) => e.keyword === 'anyOf' && e.instancePath === first.instancePath && Array.isArray(e.schema),
  );
  const branches = (union?.schema ?? []) as JsonObject[];
  if (!union || branches.length === 0 || !branches.every((b) => b !== null && 'const' in b)) return first;
  return {
    ...first,
    keyword: 'enum',
    params: { allowedValues: branches.map((b) => b.const) },
    parentSchema: union.parentSchema,
  };
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
    case 'pattern':
      return error.params.pattern === '\\S'
        ? { param, message: `${param} must not be blank.` }
        : { param, message: `${param} must match the pattern ${String(error.params.pattern)}.` };
    case FREE_FORM_KEYWORD:
      return { param, message: `${param} ${String(error.params.problem)}.` };
    default:
      return { param, message: `${param} ${error.message ?? 'is invalid'}.` };
  }
}
