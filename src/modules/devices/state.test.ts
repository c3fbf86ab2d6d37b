import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mergeState } from './state.ts';

test('state merge: objects merge key by key, other values are replaced, null removes a key', () => {
  const base = { a: 1, nested: { x: 1, y: { deep: true, keep: 'k' } }, list: [1, 2, 3], gone: 'soon' };
  const merged = mergeState(base, {
    a: 2,
    nested: { y: { deep: false, added: 1 }, z: 'new' },
    list: [9],
    gone: null,
    fresh: { inner: null, kept: 1 },
  });
  assert.deepEqual(merged, {
    a: 2,
    nested: { x: 1, y: { deep: false, keep: 'k', added: 1 }, z: 'new' },
    list: [9],
    fresh: { kept: 1 },
  });
  assert.deepEqual(base.nested.y, { deep: true, keep: 'k' }, 'the base is not changed');
});

test('state merge: an object replaces a scalar and a scalar replaces an object', () => {
  assert.deepEqual(mergeState({ a: 5, b: { c: 1 } }, { a: { d: 1 }, b: 'flat' }), { a: { d: 1 }, b: 'flat' });
});

test('state merge: "__proto__" is stored as a plain key, never as the prototype', () => {
  const merged = mergeState({}, JSON.parse('{"__proto__": {"polluted": true}}'));
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(Object.getPrototypeOf(merged), Object.prototype);
  assert.deepEqual(JSON.parse(JSON.stringify(merged)), JSON.parse('{"__proto__": {"polluted": true}}'));
});
