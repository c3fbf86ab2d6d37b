import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Type } from 'typebox';
import { compileChecked, describeAjvError, firstIssue, makeAjv } from './ajv.ts';

function messageFor(schema: Parameters<typeof compileChecked>[1], value: unknown): string {
  const validate = compileChecked(makeAjv({ coerceTypes: false }), schema);
  assert.equal(validate(value), false, 'the value must be refused');
  const issue = firstIssue(validate.errors);
  assert.ok(issue);
  return describeAjvError(issue, 'field', 'body').message;
}

test('a range with an exclusive lower bound and a maximum names both bounds, whichever is broken', () => {
  const schema = Type.Object({ dose: Type.Number({ exclusiveMinimum: 0, maximum: 1_000_000 }) });
  const expected = 'dose must be a number greater than 0 and at most 1000000.';
  assert.equal(messageFor(schema, { dose: -1 }), expected);
  assert.equal(messageFor(schema, { dose: 0 }), expected);
  assert.equal(messageFor(schema, { dose: 2_000_000 }), expected);
});

test('one bound alone, and both inclusive, read as before', () => {
  assert.equal(
    messageFor(Type.Object({ n: Type.Integer({ minimum: 1 }) }), { n: 0 }),
    'n must be a whole number of at least 1.',
  );
  assert.equal(
    messageFor(Type.Object({ n: Type.Number({ maximum: 5 }) }), { n: 6 }),
    'n must be a number of at most 5.',
  );
  assert.equal(
    messageFor(Type.Object({ n: Type.Number({ minimum: 0, maximum: 5 }) }), { n: 6 }),
    'n must be a number from 0 to 5.',
  );
  assert.equal(
    messageFor(Type.Object({ n: Type.Number({ exclusiveMaximum: 5 }) }), { n: 5 }),
    'n must be a number below 5.',
  );
});

test('a value outside a union of constants is told every allowed value, not the first alone', () => {
  const schema = Type.Object({
    method: Type.Union([Type.Literal('ai'), Type.Literal('natural'), Type.Literal('bull_in')]),
  });
  assert.equal(messageFor(schema, { method: 'embryo' }), 'method must be one of: ai, natural, bull_in.');
  // A union that is not all constants keeps Ajv's first error.
  const mixed = Type.Object({ v: Type.Union([Type.Literal('x'), Type.Number()]) });
  assert.equal(messageFor(mixed, { v: 'y' }), 'v must be "x".');
});
