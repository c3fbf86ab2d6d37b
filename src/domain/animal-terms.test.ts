import assert from 'node:assert/strict';
import { test } from 'node:test';
import { groupKindWord, sexWord, speciesWord } from './animal-terms.ts';

test('a species and a sex as typed are said in Spanish where the word is a common one, else as typed', () => {
  assert.equal(speciesWord('es', 'cattle'), 'vacuno');
  assert.equal(speciesWord('es', ' Dog '), 'perro');
  assert.equal(speciesWord('es', 'yak'), 'yak');
  assert.equal(speciesWord('en', 'cattle'), 'cattle');
  assert.equal(sexWord('es', 'female'), 'hembra');
  assert.equal(sexWord('es', 'Heifer'), 'novilla');
  assert.equal(sexWord('es', 'freemartin'), 'freemartin');
  assert.equal(sexWord('en', 'female'), 'female');
  assert.equal(groupKindWord('es', 'flock'), 'parvada');
  assert.equal(groupKindWord('es', 'Pen'), 'corral');
  assert.equal(groupKindWord('en', 'flock'), 'flock');
  // Keys that are not words of the table (an object's own members) are as typed.
  assert.equal(speciesWord('es', 'constructor'), 'constructor');
});
