import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { sameSecret } from './secrets.ts';

test('sameSecret: equal secrets match; a different byte, a different length or an empty one does not', () => {
  assert.equal(sameSecret('rk_live_abc', 'rk_live_abc'), true);
  assert.equal(sameSecret('rk_live_abc', 'rk_live_abd'), false);
  assert.equal(sameSecret('rk_live_ab', 'rk_live_abc'), false, 'shorter: no throw, no match');
  assert.equal(sameSecret('', 'rk_live_abc'), false);
  assert.equal(sameSecret(Buffer.from('0a0b', 'hex'), Buffer.from('0a0b', 'hex')), true, 'bytes');
  assert.equal(sameSecret(Buffer.from('0a0b', 'hex'), Buffer.from('0a0c', 'hex')), false);
  // Compared as UTF-8 bytes: two strings of one length in characters but not in bytes are simply unequal.
  assert.equal(sameSecret('é', 'ab'), false);
  assert.equal(sameSecret('é', 'é'), true);
});

test('every constant-time comparison of a secret goes through sameSecret', () => {
  const src = join(import.meta.dirname, '..');
  const users = readdirSync(src, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
    .filter((file) => readFileSync(join(src, file), 'utf8').includes('timingSafeEqual'));
  assert.deepEqual(users, [join('lib', 'secrets.ts')]);
});
