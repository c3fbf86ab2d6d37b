/**
 * The typed readers of raw statements' answers (src/db/decode.ts): each maps what the statement promised and
 * fails by name on anything else, so a statement and its reader cannot drift apart unnoticed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DecodeError, jsonList, nullable, num, record, text, tuple } from './decode.ts';

test('the readers pass what was promised, numbers from PostgreSQL int8 text too', () => {
  assert.deepEqual(jsonList('[1,2]', 'x'), [1, 2]);
  assert.deepEqual(jsonList([3], 'x'), [3]);
  assert.deepEqual(jsonList(null, 'x'), []);
  assert.deepEqual(record({ a: 1 }, 'x'), { a: 1 });
  assert.deepEqual(tuple([1, 'a'], 2, 'x'), [1, 'a']);
  assert.equal(text('a', 'x'), 'a');
  assert.equal(num(5, 'x'), 5);
  assert.equal(num('1764230400000', 'x'), 1764230400000);
  assert.equal(nullable(num)(null, 'x'), null);
});

test('anything else fails, naming the value read', () => {
  assert.throws(() => jsonList('{"a":1}', 'watermarks'), DecodeError);
  assert.throws(() => record([1], 'farm_row'), /farm_row: expected an object/);
  assert.throws(() => tuple([1, 2, 3], 2, 'span_0'), /span_0: expected an array of 2/);
  assert.throws(() => text(7, 'alert.id'), /alert.id: expected a string, got 7/);
  assert.throws(() => num('', 'span.place'), /span.place: expected a number/);
  assert.throws(() => num('x', 'span.place'), /span.place: expected a number/);
  assert.throws(() => nullable(num)(undefined, 'watermark.prev_at'), /watermark.prev_at/);
});
