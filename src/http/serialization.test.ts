/**
 * Response serializers: a nullable scalar goes to fast-json-stringify as a type list (no Ajv run per
 * value), and serializes nulls and values alike; anything else nullable keeps its anyOf.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Type } from 'typebox';
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
