/**
 * TypeBox schemas as MCP tool schemas. The SDK takes Standard Schema objects that can also print
 * themselves as JSON Schema; this adapter gives it the JSON Schema we already write for REST (so both
 * surfaces describe and check arguments the same way) and validates with Ajv, phrasing failures the
 * way REST's 400s do: the argument's name, then what it must be.
 */

import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type { Static, TSchema } from 'typebox';
import { lazily } from '../../http/compile-lazily.ts';
import { compileChecked, describeAjvError, makeAjv } from '../../http/validation.ts';
import { SHARED_SCHEMAS } from '../../openapi.ts';

export type JsonObject = Record<string, unknown>;

// The same Ajv set-up as REST bodies: strict types, our ISO 8601 date-time format.
const ajv = makeAjv({ coerceTypes: false });

/** The $id'd resource schemas REST refers to with Type.Ref; tool schemas inline them. */
const REFS: Record<string, TSchema> = Object.fromEntries(
  SHARED_SCHEMAS.map((schema) => [String((schema as { $id?: string }).$id), schema]),
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
      // The document's examples would only lengthen every tool schema that inlines the resource.
      const { examples: _documentOnly, ...inline } = JSON.parse(JSON.stringify(target)) as JsonObject;
      return resolve(inline);
    }
    const out: JsonObject = {};
    for (const [key, child] of Object.entries(node)) if (key !== '$id') out[key] = resolve(child);
    return out;
  };
  return resolve(JSON.parse(JSON.stringify(schema))) as JsonObject;
}

/** Longest string argument where the schema does not say (notes are the longest real text). */
export const MAX_TOOL_STRING = 10_000;

/** A copy with a maxLength on every string argument that has none, so no argument is unbounded. */
function capStrings(schema: JsonObject): JsonObject {
  const cap = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(cap);
    if (typeof value !== 'object' || value === null) return value;
    const out: JsonObject = {};
    for (const [key, child] of Object.entries(value)) out[key] = cap(child);
    if (out.type === 'string' && out.maxLength === undefined) out.maxLength = MAX_TOOL_STRING;
    return out;
  };
  return cap(schema) as JsonObject;
}

export interface ToolSchema<T> extends StandardSchemaWithJSON<T, T> {
  /** The JSON Schema shown to clients. */
  readonly json: JsonObject;
}

/**
 * A tool schema from TypeBox. `advertised` is what tools/list shows when it should say more than is
 * checked here: house_command lists each command's params, which the commands service validates
 * with the domain's own (better-worded) messages, exactly as for REST. Arguments (`input`) get the
 * input rules: string lengths capped, free-form members capped; results are checked as they are.
 */
export function toolSchema<S extends TSchema>(
  schema: S,
  options: { advertised?: JsonObject; input?: boolean } = {},
): ToolSchema<Static<S>> {
  const checked = options.input ? capStrings(toJsonSchema(schema)) : toJsonSchema(schema);
  const json = options.advertised ?? checked;
  // Compiled on the first call of the tool (compile-lazily.ts), not when the module loads.
  const compiled = lazily(() => (options.input ? compileChecked(ajv, checked) : ajv.compile(checked)));
  return {
    json,
    '~standard': {
      version: 1,
      vendor: 'farmstead',
      validate(value: unknown) {
        // Ajv fills defaults in place; validate a copy so the caller's arguments stay as sent.
        const copy = value === undefined ? {} : structuredClone(value);
        const validate = compiled();
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
