import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RecentAnswers } from './recent-answers.ts';

test('recent answers: found by client and message id, the newest kept, one bound for all clients', () => {
  const answers = new RecentAnswers(3);
  answers.set('dev_a:c', 1, '{"ok":true,"accepted":1}');
  answers.set('dev_b:c', 1, '{"ok":true,"accepted":2}');
  answers.set('dev_a:c', 2, '{"ok":true,"accepted":3}');
  assert.equal(answers.get('dev_a:c', 1), '{"ok":true,"accepted":1}');
  assert.equal(answers.get('dev_b:c', 1), '{"ok":true,"accepted":2}');
  assert.equal(answers.get('dev_b:c', 2), undefined);
  // Answering id 1 of dev_a again makes it the newest: the oldest left is dev_b's, which goes first.
  answers.set('dev_a:c', 1, '{"ok":true,"accepted":4}');
  answers.set('dev_c:c', 7, '{"ok":true,"accepted":5}');
  assert.equal(answers.get('dev_b:c', 1), undefined);
  assert.equal(answers.get('dev_a:c', 1), '{"ok":true,"accepted":4}');
  assert.equal(answers.get('dev_a:c', 2), '{"ok":true,"accepted":3}');
  assert.equal(answers.get('dev_c:c', 7), '{"ok":true,"accepted":5}');
});
