import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newId } from './ids.ts';

test('ids are prefixed and sort by time', () => {
  const early = newId('animal', Date.UTC(2026, 0, 1));
  const late = newId('animal', Date.UTC(2026, 0, 2));
  assert.match(early, /^ani_[0-9a-z]{26}$/);
  assert.ok(early < late);
});

test('ids made in the same millisecond sort in the order they were made', () => {
  const at = Date.UTC(2026, 5, 1, 12);
  const ids = Array.from({ length: 500 }, () => newId('command', at));
  assert.deepEqual([...ids].sort(), ids);
  assert.equal(new Set(ids).size, ids.length);
});
