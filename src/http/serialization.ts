/**
 * Response serializers, compiled once per distinct schema. Fastify compiles one fast-json-stringify
 * serializer per route, method and status code, and most of those schemas are the same (the Error object
 * under every 4xx, a HEAD beside each GET): compiling each distinct one once makes start-up (and every
 * test app after the first in a process) much faster. What a serializer does depends only on its schema,
 * the shared schemas and the options, so those are the cache key.
 */
import {
  type SerializerCompiler,
  type SerializerFactory,
  SerializerSelector,
} from '@fastify/fast-json-stringify-compiler';
import type { SchemaCompiling } from './validation.ts';

const compileUncached = SerializerSelector();
/** Serializers by shared schemas and options, then by route schema (both as JSON text). */
const compiled = new Map<string, Map<string, ReturnType<SerializerCompiler>>>();

const buildSerializer: SerializerFactory = (externalSchemas, options) => {
  const compile = compileUncached(externalSchemas, options);
  const context = JSON.stringify([externalSchemas ?? null, options ?? null]);
  let serializers = compiled.get(context);
  if (!serializers) {
    serializers = new Map();
    compiled.set(context, serializers);
  }
  const cache = serializers;
  return (route) => {
    const key = JSON.stringify(route.schema ?? null);
    let serializer = cache.get(key);
    if (!serializer) {
      serializer = compile(route);
      cache.set(key, serializer);
    }
    return serializer;
  };
};

/**
 * The serializer factory for Fastify's schema controller: compiling each route's serializers as it is
 * registered, or (`on-first-use`) on the first reply that needs one.
 */
export function serializerFactory(compiling: SchemaCompiling): SerializerFactory {
  if (compiling === 'at-start') return buildSerializer;
  return (externalSchemas, options) => {
    const compile = buildSerializer(externalSchemas, options);
    return (route) => {
      let serializer: ReturnType<SerializerCompiler> | undefined;
      return (data) => {
        serializer ??= compile(route);
        return serializer(data);
      };
    };
  };
}
