/**
 * Response serializers: a nullable scalar goes to fast-json-stringify as a type list (no Ajv run per
 * value), and serializes nulls and values alike; anything else nullable keeps its anyOf.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Type } from 'typebox';
import { compilePending } from '../lib/compile-lazily.ts';
import { DateTime, Nullable } from './schemas.ts';
import { buildSerializer, nullableAsTypeList } from './serialization.ts';

test('a nullable scalar becomes a type list; a nullable object or reference stays anyOf', () => {
  const schema = Type.Object({
    at: Nullable(DateTime('When.')),
    count: Nullable(Type.Integer()),
    place: Nullable(Type.Object({ lat: Type.Number() })),
    ref: Nullable(Type.Ref('Alert')),
  });
  const out = nullableAsTypeList(JSON.parse(JSON.stringify(schema))) as {
    properties: Record<string, Record<string, unknown>>;
  };
  assert.deepEqual(out.properties.at, {
    type: ['string', 'null'],
    format: 'date-time',
    description: 'When.',
  });
  assert.deepEqual(out.properties.count, { type: ['integer', 'null'] });
  assert.ok(Array.isArray(out.properties.place?.anyOf), 'an object keeps its anyOf');
  assert.ok(Array.isArray(out.properties.ref?.anyOf), 'a reference keeps its anyOf');
});

test('the compiled serializer writes nulls and values of nullable members', () => {
  const schema = Type.Object({
    at: Nullable(DateTime()),
    count: Nullable(Type.Integer()),
    name: Nullable(Type.String()),
  });
  const serialize = buildSerializer(
    {},
    {},
  )({
    schema: JSON.parse(JSON.stringify(schema)),
    method: 'GET',
    url: '/x',
    httpStatus: '200',
  }) as (value: unknown) => string;
  assert.equal(
    serialize({ at: '2026-05-01T06:00:00.000Z', count: 3, name: 'Daisy' }),
    '{"at":"2026-05-01T06:00:00.000Z","count":3,"name":"Daisy"}',
  );
  assert.equal(serialize({ at: null, count: null, name: null }), '{"at":null,"count":null,"name":null}');
});

test('shared schemas: the same objects again reuse their serializers; other content under the same names does not', () => {
  const route = (schema: unknown) => ({ schema, method: 'GET', url: '/x', httpStatus: '200' });
  const counted = { $id: 'Counted', type: 'object', properties: { n: { type: 'integer' } } };
  const first = buildSerializer({ Counted: counted }, {})(route({ $ref: 'Counted#' })) as (
    v: unknown,
  ) => string;
  assert.equal(first({ n: 3 }), '{"n":3}');
  compilePending();
  // Fastify hands each plugin context a new object holding the same schemas: nothing new to compile.
  const again = buildSerializer({ Counted: counted }, {})(route({ $ref: 'Counted#' })) as (
    v: unknown,
  ) => string;
  assert.equal(compilePending(), 0);
  assert.equal(again({ n: 4 }), '{"n":4}');
  // Another schema under the same name is another serializer.
  const texts = { $id: 'Counted', type: 'object', properties: { n: { type: 'string' } } };
  const other = buildSerializer({ Counted: texts }, {})(route({ $ref: 'Counted#' })) as (
    v: unknown,
  ) => string;
  assert.equal(other({ n: 4 }), '{"n":"4"}');
});
