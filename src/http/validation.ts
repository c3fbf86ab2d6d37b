/**
 * Request validation: bodies are checked strictly (no type coercion, unknown members rejected, so a
 * typo never looks like success); query strings and path params coerce numbers from their text.
 */
import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance, FastifySchemaValidationError } from 'fastify';
import { parseIso } from '../lib/time.ts';

function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({
    allErrors: false,
    removeAdditional: false,
    useDefaults: true,
    strict: false,
    ...options,
  });
  // ajv-formats is CommonJS; its default export arrives wrapped.
  const addFormats =
    (addFormatsModule as unknown as { default: (a: Ajv) => void }).default ?? addFormatsModule;
  (addFormats as (a: Ajv) => void)(ajv);
  // ISO 8601 date or date-time (with or without zone; no zone means UTC), normalised by services.
  ajv.addFormat('date-time', { type: 'string', validate: (s: string) => parseIso(s) !== null });
  return ajv;
}

export function registerValidation(app: FastifyInstance): void {
  const strict = makeAjv({ coerceTypes: false });
  const coercing = makeAjv({ coerceTypes: 'array' });
  app.setValidatorCompiler(({ schema, httpPart }) => {
    if (httpPart !== 'body') return coercing.compile(schema);
    const validate = strict.compile(schema);
    const required = (schema as { required?: string[] }).required ?? [];
    // A body-less POST is fine where nothing is required (action endpoints, optional options).
    const check = (data: unknown): boolean => {
      if (data === undefined || data === null) {
        check.errors = required.length
          ? [
              {
                instancePath: '',
                schemaPath: '#/required',
                keyword: 'required',
                params: { missingProperty: required[0] ?? '' },
                message: 'is required',
              },
            ]
          : null;
        return required.length === 0;
      }
      const ok = validate(data) as boolean;
      check.errors = (validate.errors as FastifySchemaValidationError[] | null | undefined) ?? null;
      return ok;
    };
    check.errors = null as FastifySchemaValidationError[] | null;
    return check;
  });
}
