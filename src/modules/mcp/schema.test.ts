import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { advertisedInputSchema, leanOutputSchema } from './schema.ts';

describe('tool schemas as tools/list shows them', () => {
  test('inputs: bare booleans become schema objects, values stay values, unions become anyOf', () => {
    const shown = advertisedInputSchema({
      type: 'object',
      properties: {
        a: { type: 'string', minLength: 1, maxLength: 100, description: 'First. Second sentence.' },
        b: { type: 'boolean', default: false, const: true },
        c: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        d: { type: ['string', 'number'] },
        e: { type: 'object', patternProperties: { '^.*$': {} }, additionalProperties: false },
        f: { description: 'anything' },
        g: { type: 'string', enum: ['x', 'y'], examples: ['x'] },
      },
      required: ['a'],
      dependentSchemas: { a: { properties: { b: false } } },
      additionalProperties: false,
    });
    assert.deepEqual(shown, {
      type: 'object',
      properties: {
        a: { type: 'string', description: 'First.' },
        b: { type: 'boolean', default: false, const: true },
        c: { type: 'string' },
        d: { anyOf: [{ type: 'string' }, { type: 'number' }] },
        e: { type: 'object', additionalProperties: true },
        f: { type: 'object', additionalProperties: true, description: 'anything' },
        g: { type: 'string', enum: ['x', 'y'] },
      },
      required: ['a'],
      dependentSchemas: { a: { properties: { b: { not: {} } } } },
      additionalProperties: false,
    });
  });

  test('outputs: top-level members typed, nullable ones named, nested ones by their member names', () => {
    const shown = leanOutputSchema({
      type: 'object',
      properties: {
        id: { type: 'string', format: 'uuid', description: 'The id.' },
        next: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        data: {
          type: 'array',
          items: { type: 'object', properties: { x: { type: 'number' }, y: { type: 'string' } } },
        },
        owner: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        tags: { type: 'array', items: { type: 'string' } },
      },
      required: ['id', 'next', 'data'],
      additionalProperties: false,
    });
    assert.deepEqual(shown, {
      type: 'object',
      properties: {
        id: { type: 'string' },
        data: { type: 'array', items: { type: 'object' }, description: 'Members: x, y.' },
        owner: { type: 'object', description: 'Members: name.' },
        tags: { type: 'array', items: { type: 'string' } },
      },
      description: 'Also (may be null): next.',
    });
  });
});
