import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSubscriptions, ExactFirstMatcher } from './subscriptions.ts';

type Message = { topic: string };

function emit(mq: ReturnType<typeof createSubscriptions>, message: Message): Promise<void> {
  return new Promise((resolve, reject) => mq.emit(message, (err) => (err ? reject(err) : resolve())));
}

function on(mq: ReturnType<typeof createSubscriptions>, filter: string, got: string[], name: string) {
  const listener = (message: { topic: string }, done: () => void) => {
    got.push(`${name} ${message.topic}`);
    done();
  };
  return new Promise<typeof listener>((resolve) => mq.on(filter, listener, () => resolve(listener)));
}

test('a message reaches the exact filters spelled as its topic and every wildcard filter that matches it', async () => {
  const mq = createSubscriptions(0);
  const got: string[] = [];
  await on(mq, 'farmstead/devices/a/commands', got, 'a');
  await on(mq, 'farmstead/devices/b/commands', got, 'b');
  await on(mq, 'farmstead/devices/+/commands', got, 'any');
  await on(mq, 'farmstead/#', got, 'all');
  await on(mq, 'farmstead/devices/a', got, 'parent');
  await emit(mq, { topic: 'farmstead/devices/a/commands' });
  assert.deepEqual(got.sort(), [
    'a farmstead/devices/a/commands',
    'all farmstead/devices/a/commands',
    'any farmstead/devices/a/commands',
  ]);
  got.length = 0;
  await emit(mq, { topic: 'farmstead/devices/a/commands/x' });
  assert.deepEqual(got, ['all farmstead/devices/a/commands/x'], 'no exact filter matches a longer topic');
  got.length = 0;
  // `#` also matches its parent level, as MQTT says; an exact filter never matches a wildcard's topic.
  await emit(mq, { topic: 'farmstead' });
  assert.deepEqual(got, ['all farmstead']);
  await new Promise<void>((resolve) => mq.close(resolve));
});

test('removing one of two listeners of a filter keeps the other; the last one removed empties the entry', async () => {
  const matcher = new ExactFirstMatcher({ add: () => {}, remove: () => {}, match: () => [] });
  const first = () => {};
  const second = () => {};
  matcher.add('farmstead/devices/a/report/result', first);
  matcher.add('farmstead/devices/a/report/result', second);
  matcher.add('farmstead/devices/+/report/result', first);
  assert.equal(matcher.exactFilters, 1, 'the wildcard filter went to the trie');
  assert.deepEqual(matcher.match('farmstead/devices/a/report/result'), [first, second]);
  matcher.remove('farmstead/devices/a/report/result', first);
  assert.deepEqual(matcher.match('farmstead/devices/a/report/result'), [second]);
  matcher.remove('farmstead/devices/a/report/result', second);
  assert.equal(matcher.exactFilters, 0);
  matcher.add('x/y', first);
  matcher.add('x/y', second);
  matcher.remove('x/y');
  assert.deepEqual(matcher.match('x/y'), [], 'no listener named: all of the filter removed');
});

test('through mqemitter: a removed listener gets nothing more, and emit waits for every listener', async () => {
  const mq = createSubscriptions(0);
  const got: string[] = [];
  const listener = await on(mq, 'farmstead/devices/a/commands', got, 'a');
  let finished = false;
  await new Promise<void>((resolve) =>
    mq.on(
      'farmstead/devices/a/commands',
      (_message, done) =>
        setTimeout(() => {
          finished = true;
          done();
        }, 5),
      resolve,
    ),
  );
  await emit(mq, { topic: 'farmstead/devices/a/commands' });
  assert.ok(finished, 'the callback came after the slow listener');
  await new Promise<void>((resolve) => mq.removeListener('farmstead/devices/a/commands', listener, resolve));
  got.length = 0;
  await emit(mq, { topic: 'farmstead/devices/a/commands' });
  assert.deepEqual(got, []);
  await new Promise<void>((resolve) => mq.close(resolve));
});
