/**
 * TypeBox schemas as MCP tool schemas. The SDK takes Standard Schema objects that can also print
 * themselves as JSON Schema; this adapter gives it the JSON Schema we already write for REST (so both
 * surfaces describe and check arguments the same way) and validates with Ajv, phrasing failures the
 * way REST's 400s do: the argument's name, then what it must be.
 */

import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type { Static, TSchema } from 'typebox';
import { compileChecked, describeAjvError, firstIssue, makeAjv } from '../../lib/ajv.ts';
import { lazily } from '../../lib/compile-lazily.ts';
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

/** The value types a JSON node can have: what an agent needs to read it. */
function typesOf(node: JsonObject): string[] {
  if (typeof node.type === 'string') return [node.type];
  if (Array.isArray(node.type)) return node.type as string[];
  if (node.const !== undefined) return [node.const === null ? 'null' : typeof node.const];
  const branches = (node.anyOf ?? node.oneOf) as JsonObject[] | undefined;
  if (branches) return [...new Set(branches.flatMap(typesOf))];
  if (node.properties || node.patternProperties) return ['object'];
  return [];
}

/** `{ type }`, or an anyOf of single types (the portable spelling of a union), or free-form JSON. */
function typed(types: readonly string[], extra: JsonObject = {}): JsonObject {
  const [only] = types;
  if (only && types.length === 1) return { type: only, ...extra };
  if (types.length === 0) return { type: 'object', additionalProperties: true, ...extra };
  return { anyOf: types.map((type) => (type === 'object' ? { type, ...extra } : { type })) };
}

/** The member names of an object schema (through a nullable union), for a nested value's description. */
function memberNames(node: JsonObject): string[] {
  const props = node.properties as JsonObject | undefined;
  if (props) return Object.keys(props);
  for (const branch of ((node.anyOf ?? node.oneOf) as JsonObject[] | undefined) ?? []) {
    const names = memberNames(branch);
    if (names.length > 0) return names;
  }
  return [];
}

function firstSentence(text: unknown): string | undefined {
  if (typeof text !== 'string' || text === '') return undefined;
  const end = text.search(/(?<!e\.g)\.(\s|$)/);
  return end === -1 ? text : text.slice(0, end + 1);
}

/**
 * What tools/list shows of a result: its top-level members with their types (those that may be null
 * only by name), and for a nested object or a list of objects only the names of its members. The
 * answer itself is checked against the full schema on our side before it is sent; an agent reads the
 * member names and values, so the rest of the schema (every nested type, format, bound) is left out to
 * keep tools/list small.
 */
export function leanOutputSchema(full: JsonObject): JsonObject {
  const member = (node: JsonObject): JsonObject => {
    const types = typesOf(node);
    const items = node.items as JsonObject | undefined;
    const names = memberNames(items ?? node);
    const description = names.length > 0 ? `Members: ${names.join(', ')}.` : undefined;
    const extra: JsonObject = {};
    if (items && types.includes('array')) {
      const itemTypes = typesOf(items);
      extra.items = typed(itemTypes.length > 0 ? itemTypes : ['object']);
    }
    const out = typed(types, types.length === 1 ? extra : {});
    if (types.length > 1 && extra.items) {
      out.anyOf = (out.anyOf as JsonObject[]).map((b) => (b.type === 'array' ? { ...b, ...extra } : b));
    }
    return description ? { ...out, description } : out;
  };
  const properties: JsonObject = {};
  const nullable: string[] = [];
  for (const [name, node] of Object.entries((full.properties as JsonObject | undefined) ?? {})) {
    if (typesOf(node as JsonObject).includes('null')) nullable.push(name);
    else properties[name] = member(node as JsonObject);
  }
  // Members that may be null are named rather than typed: a union per member would double their size.
  return nullable.length > 0
    ? { type: 'object', properties, description: `Also (may be null): ${nullable.join(', ')}.` }
    : { type: 'object', properties };
}

/** Keywords whose value (or each member or element of it) is a schema. */
const SCHEMA_POSITIONS = new Set([
  'properties',
  'dependentSchemas',
  '$defs',
  'items',
  'prefixItems',
  'contains',
  'not',
  'if',
  'then',
  'else',
  'propertyNames',
  'anyOf',
  'allOf',
  'oneOf',
]);
/** Keywords whose value is data, never a schema. */
const DATA_KEYWORDS = new Set(['const', 'default', 'enum', 'required']);

/**
 * What tools/list shows of a tool's arguments: the checked schema without what only lengthens it (the
 * string length bounds, examples, descriptions past their first sentence, the `null` an optional argument
 * also takes), with free-form values spelled as typed JSON (a portable schema has no
 * bare `true`/`false` or untyped member).
 */
export function advertisedInputSchema(json: JsonObject): JsonObject {
  const clean = (value: unknown, keyword?: string): unknown => {
    if (typeof value === 'boolean') {
      // Only a boolean where a schema goes is a boolean schema; `default: false` is a value.
      if (keyword === undefined || !SCHEMA_POSITIONS.has(keyword)) return value;
      return value ? { type: 'object', additionalProperties: true } : { not: {} };
    }
    if (Array.isArray(value)) return value.map((v) => clean(v, keyword));
    if (typeof value !== 'object' || value === null) return value;
    const node = value as JsonObject;
    const out: JsonObject = {};
    for (const [key, child] of Object.entries(node)) {
      if (key === 'examples') continue;
      if (DATA_KEYWORDS.has(key)) {
        out[key] = child;
        continue;
      }
      // A free-form record's own additionalProperties (if any) gives way to the `true` below.
      if (key === 'additionalProperties' && node.patternProperties) continue;
      if (key === 'patternProperties') {
        // A free-form record (Type.Record(String, Unknown)): any member with any JSON value.
        out.additionalProperties = true;
        continue;
      }
      if (key === 'properties' || key === 'dependentSchemas' || key === '$defs') {
        out[key] = Object.fromEntries(
          Object.entries(child as JsonObject).map(([name, sub]) => [name, clean(sub, key)]),
        );
        continue;
      }
      // Length bounds are checked, and a refusal names the bound; an agent does not need them up front.
      if (key === 'maxLength' || (key === 'minLength' && child === 1)) continue;
      if (key === 'description') {
        out[key] = firstSentence(child);
        continue;
      }
      out[key] = clean(child, key);
    }
    if (Array.isArray(out.type)) return typed(out.type as string[]);
    // An argument that may be null means the same as leaving it out, which is what an agent should do.
    const branches = out.anyOf as JsonObject[] | undefined;
    if (branches?.length === 2 && Object.keys(out).length === 1) {
      const [value] = branches.filter((b) => b.type !== 'null');
      if (value && branches.some((b) => b.type === 'null')) return value;
    }
    if (Object.keys(out).every((k) => k === 'description' || k === 'title' || k === 'default')) {
      return { ...typed([]), ...out };
    }
    return out;
  };
  return clean(json) as JsonObject;
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
  const full = toJsonSchema(schema);
  const checked = options.input ? capStrings(full) : full;
  const json = options.input
    ? advertisedInputSchema(options.advertised ?? checked)
    : (options.advertised ?? leanOutputSchema(full));
  // Compiled on the first call of the tool (src/lib/compile-lazily.ts), not when the module loads.
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
        const first = firstIssue(validate.errors);
        return {
          issues: [{ message: first ? describeAjvError(first).message : 'The arguments are not valid.' }],
        };
      },
      jsonSchema: { input: () => json, output: () => json },
    },
  };
}
