import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EMAIL_MAX_LENGTH, isEmailAddress } from './email.ts';

test('an email address: something@something, no spaces, at most 254 characters', () => {
  for (const good of ['a@b', 'ana.garcia@rancho.example', `${'x'.repeat(EMAIL_MAX_LENGTH - 4)}@b.c`]) {
    assert.ok(isEmailAddress(good), good);
  }
  for (const bad of [
    '',
    'ana',
    '@rancho.example',
    'ana@',
    'ana garcia@rancho.example',
    'ana@@b',
    `${'x'.repeat(EMAIL_MAX_LENGTH - 3)}@b.c`,
  ]) {
    assert.ok(!isEmailAddress(bad), bad);
  }
});
