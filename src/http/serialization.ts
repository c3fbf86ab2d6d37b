/**
 * Response serializers, compiled once per distinct schema. Fastify compiles one fast-json-stringify
 * serializer per route, method and status code, and most of those schemas are the same (the Error object
 * under every 4xx, a HEAD beside each GET): compiling each distinct one once makes start-up (and every
 * test app after the first in a process) much faster. What a serializer does depends only on its schema,
 * the shared schemas and the options, so those are the cache key. Each is compiled on its first use
 * (src/lib/compile-lazily.ts): most statuses of most routes are never answered by a given process.
 *
 * A nullable member (`anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }]`, TypeBox's
 * `Nullable`) is handed to fast-json-stringify as a type list (`type: ['string', 'null']`): for `anyOf` it
 * runs Ajv on every value to choose the branch (a date-time regex per date of every record in a list),
 * for a type list a `typeof`. The OpenAPI document and validation keep the `anyOf`.
 */
import {
  type Serializer,
  type SerializerFactory,
  SerializerSelector,
} from '@fastify/fast-json-stringify-compiler';
import { lazily } from '../lib/compile-lazily.ts';

const compileUncached = SerializerSelector();

const SCALAR_TYPES = new Set(['string', 'number', 'integer', 'boolean']);

/** The schema with every `anyOf` of one scalar schema and null turned into a type list (a copy). */
export function nullableAsTypeList(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(nullableAsTypeList);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) out[key] = nullableAsTypeList(value);
  const anyOf = out.anyOf;
  if (!Array.isArray(anyOf) || anyOf.length !== 2) return out;
  const nullAt = anyOf.findIndex((s) => isObject(s) && s.type === 'null' && Object.keys(s).length === 1);
  const other = anyOf[1 - nullAt];
  if (nullAt === -1 || !isObject(other) || typeof other.type !== 'string' || !SCALAR_TYPES.has(other.type)) {
    return out;
  }
  if (['$ref', 'anyOf', 'oneOf', 'allOf'].some((k) => k in other)) return out;
  const { anyOf: _, ...rest } = out;
  return { ...other, ...rest, type: [other.type, 'null'] };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Per shared schemas and options (as JSON text): their compiler, made once, and the serializers by route
 * schema (as JSON text).
 */
const compiled = new Map<
  string,
  { compile: () => ReturnType<typeof compileUncached>; serializers: Map<string, () => Serializer> }
>();

/** A number per object seen: shared schemas are module constants, the same objects in every app. */
const identities = new WeakMap<object, number>();
let nextIdentity = 0;
/** The JSON key of shared schemas, by the identities of the schema objects (see contextOf). */
const contextByIdentity = new Map<string, string>();

/**
 * The cache key of shared schemas and options: their JSON text. Fastify asks for a factory once per plugin
 * context, each time with a new object holding the same schema objects, and writing the JSON of every shared
 * schema each time was a fifth of building an app: the same schema objects give the same key without it.
 */
function contextOf(externalSchemas: Record<string, unknown> | undefined, options: unknown): string {
  const optionsJson = JSON.stringify(options ?? null);
  const ids = Object.entries(externalSchemas ?? {}).map(([name, schema]) => {
    if (typeof schema !== 'object' || schema === null) return `${name}=${JSON.stringify(schema)}`;
    let id = identities.get(schema);
    if (id === undefined) {
      id = nextIdentity++;
      identities.set(schema, id);
    }
    return `${name}=${id}`;
  });
  const identityKey = `${ids.join(',')}|${optionsJson}`;
  let context = contextByIdentity.get(identityKey);
  if (context === undefined) {
    context = JSON.stringify([externalSchemas ?? null, options ?? null]);
    contextByIdentity.set(identityKey, context);
  }
  return context;
}

export const buildSerializer: SerializerFactory = (externalSchemas, options) => {
  const context = contextOf(externalSchemas as Record<string, unknown> | undefined, options);
  let entry = compiled.get(context);
  if (!entry) {
    entry = {
      compile: lazily(() =>
        compileUncached(nullableAsTypeList(externalSchemas ?? {}) as typeof externalSchemas, options),
      ),
      serializers: new Map(),
    };
    compiled.set(context, entry);
  }
  const { compile, serializers: cache } = entry;
  return (route) => {
    const key = JSON.stringify(route.schema ?? null);
    let serializer = cache.get(key);
    if (!serializer) {
      serializer = lazily(() =>
        compile()({ ...route, schema: nullableAsTypeList(route.schema) as typeof route.schema }),
      );
      cache.set(key, serializer);
    }
    const get = serializer;
    return (doc) => get()(doc);
  };
};
