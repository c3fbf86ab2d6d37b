import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Gate } from './gate.ts';

/** A piece of work that ends when told to. */
function deferred() {
  let finish!: (value: number) => void;
  let fail!: (err: Error) => void;
  const promise = new Promise<number>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  return { promise, finish, fail };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

test('at most `limit` pieces of work run at once; the others start in the order they came', async () => {
  const gate = new Gate(2);
  const works = Array.from({ length: 5 }, () => deferred());
  const started: number[] = [];
  const results = works.map((w, i) =>
    gate.run(() => {
      started.push(i);
      return w.promise;
    }),
  );
  await turn();
  assert.deepEqual(started, [0, 1]);
  assert.deepEqual(gate.counts, { active: 2, waiting: 3 });
  works[1]?.finish(1);
  await turn();
  assert.deepEqual(started, [0, 1, 2]);
  works[0]?.finish(0);
  works[2]?.finish(2);
  await turn();
  assert.deepEqual(started, [0, 1, 2, 3, 4]);
  works[3]?.finish(3);
  works[4]?.finish(4);
  assert.deepEqual(await Promise.all(results), [0, 1, 2, 3, 4]);
  assert.deepEqual(gate.counts, { active: 0, waiting: 0 });
});

test('work that fails gives its place to the next and its caller gets the error', async () => {
  const gate = new Gate(1);
  const first = deferred();
  const failing = gate.run(() => first.promise);
  let secondRan = false;
  const second = gate.run(async () => {
    secondRan = true;
    return 2;
  });
  await turn();
  assert.equal(secondRan, false);
  first.fail(new Error('refused'));
  await assert.rejects(failing, /refused/);
  assert.equal(await second, 2);
  assert.deepEqual(gate.counts, { active: 0, waiting: 0 });
});

test('thousands waiting all run, in order, one place at a time', async () => {
  const gate = new Gate(1);
  const order: number[] = [];
  const all = Array.from({ length: 5_000 }, (_, i) =>
    gate.run(async () => {
      order.push(i);
      await turn();
    }),
  );
  await Promise.all(all);
  assert.equal(order.length, 5_000);
  assert.ok(order.every((n, i) => n === i));
  assert.deepEqual(gate.counts, { active: 0, waiting: 0 });
});
