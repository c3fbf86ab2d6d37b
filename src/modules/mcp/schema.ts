/**
 * TypeBox schemas as MCP tool schemas. The SDK takes Standard Schema objects that can also print
 * themselves as JSON Schema; this adapter gives it the JSON Schema we already write for REST (so both
 * surfaces describe and check arguments the same way) and validates with Ajv, phrasing failures the
 * way REST's 400s do: the argument's name, then what it must be.
 */

import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { Static, TSchema } from 'typebox';
import { parseIso } from '../../lib/time.ts';
import { AlertSchema } from '../alerts/schemas.ts';
import { AnimalSchema } from '../animals/schemas.ts';
import { CommandSchema } from '../commands/schemas.ts';
import { DeviceSchema } from '../devices/schemas.ts';
import { EventSchema } from '../events/schemas.ts';
import { FarmSchema } from '../farms/schemas.ts';
import { GroupSchema } from '../groups/schemas.ts';
import { HouseSchema } from '../houses/schemas.ts';
import { PaddockSchema } from '../paddocks/schemas.ts';
import { ReadingSchema } from '../readings/schemas.ts';
import { TaskSchema } from '../tasks/schemas.ts';

export type JsonObject = Record<string, unknown>;

const ajv = new Ajv({
  allErrors: false,
  useDefaults: true,
  strict: false,
  verbose: true,
  coerceTypes: false,
});
// ajv-formats is CommonJS; its default export arrives wrapped.
const addFormats = (addFormatsModule as unknown as { default: (a: Ajv) => void }).default ?? addFormatsModule;
(addFormats as (a: Ajv) => void)(ajv);
// Same as REST: any ISO 8601 date or date-time (no zone means UTC).
ajv.addFormat('date-time', { type: 'string', validate: (s: string) => parseIso(s) !== null });

/** The $id'd resource schemas REST refers to with Type.Ref; tool schemas inline them. */
const REFS: Record<string, TSchema> = Object.fromEntries(
  [
    AlertSchema,
    AnimalSchema,
    CommandSchema,
    DeviceSchema,
    EventSchema,
    FarmSchema,
    GroupSchema,
    HouseSchema,
    PaddockSchema,
    ReadingSchema,
    TaskSchema,
  ].map((schema) => [String((schema as { $id?: string }).$id), schema]),
);

/**
 * Plain, self-contained JSON Schema from a TypeBox schema: symbols dropped by the JSON round trip,
 * `Type.Ref('Reading')` replaced by the schema it names, and `$id`s removed so shared resource
 * schemas (Animal, Task…) can be inlined into many tool schemas.
 */
export function toJsonSchema(schema: TSchema | JsonObject): JsonObject {
  const resolve = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(resolve);
    if (typeof value !== 'object' || value === null) return value;
    const node = value as JsonObject;
    if (typeof node.$ref === 'string' && Object.keys(node).length === 1) {
      const target = REFS[node.$ref];
      if (!target) throw new Error(`toJsonSchema: no schema for $ref ${node.$ref}`);
      return resolve(JSON.parse(JSON.stringify(target)));
    }
    const out: JsonObject = {};
    for (const [key, child] of Object.entries(node)) if (key !== '$id') out[key] = resolve(child);
    return out;
  };
  return resolve(JSON.parse(JSON.stringify(schema))) as JsonObject;
}

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

/** One Ajv error as a sentence that names the argument and says what would be valid. */
export function describeAjvError(error: ErrorObject, what = 'argument'): { param: string; message: string } {
  const param = paramOf(error) || 'arguments';
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
    default:
      return { param, message: `${param} ${error.message ?? 'is invalid'}.` };
  }
}

export interface ToolSchema<T> extends StandardSchemaWithJSON<T, T> {
  /** The JSON Schema shown to clients. */
  readonly json: JsonObject;
}

/**
 * A tool schema from TypeBox. `advertised` is what tools/list shows when it should say more than is
 * checked here: house_command lists each command's params, which the commands service validates
 * with the domain's own (better-worded) messages, exactly as for REST.
 */
export function toolSchema<S extends TSchema>(
  schema: S,
  options: { advertised?: JsonObject } = {},
): ToolSchema<Static<S>> {
  const checked = toJsonSchema(schema);
  const json = options.advertised ?? checked;
  const validate = ajv.compile(checked);
  return {
    json,
    '~standard': {
      version: 1,
      vendor: 'farmstead',
      validate(value: unknown) {
        // Ajv fills defaults in place; validate a copy so the caller's arguments stay as sent.
        const copy = value === undefined ? {} : structuredClone(value);
        if (validate(copy)) return { value: copy as Static<S> };
        const first = validate.errors?.[0];
        return {
          issues: [{ message: first ? describeAjvError(first).message : 'The arguments are not valid.' }],
        };
      },
      jsonSchema: { input: () => json, output: () => json },
    },
  };
}
