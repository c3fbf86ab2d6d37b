import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Db } from '../db/schema.ts';
import { KEY_CACHE_TTL_MS, KeyCache } from './key-cache.ts';

// The cache only compares database handles by identity; two distinct objects stand for two databases.
const dbA = {} as Db;
const dbB = {} as Db;

function counting(value: string, id = 'key_1') {
  const loader = async () => {
    loader.calls++;
    return { value, id, farmId: 'farm_1' };
  };
  loader.calls = 0;
  return loader;
}

test('a found key is served from the cache until its TTL runs out, counted from the lookup start', async () => {
  let now = 1_000;
  const cache = new KeyCache<string>(() => now);
  const load = counting('caller');
  assert.equal(await cache.lookup(dbA, 'h1', load), 'caller');
  now += KEY_CACHE_TTL_MS - 1;
  assert.equal(await cache.lookup(dbA, 'h1', load), 'caller');
  assert.equal(load.calls, 1);
  now += 1;
  assert.equal(await cache.lookup(dbA, 'h1', load), 'caller');
  assert.equal(load.calls, 2, 'expired: looked up again');
});

test('unknown keys are never cached, and another database never sees an entry', async () => {
  const cache = new KeyCache<string>(() => 0);
  let calls = 0;
  const missing = async () => {
    calls++;
    return null;
  };
  assert.equal(await cache.lookup(dbA, 'h1', missing), null);
  assert.equal(await cache.lookup(dbA, 'h1', missing), null);
  assert.equal(calls, 2);
  const load = counting('caller');
  await cache.lookup(dbA, 'h2', load);
  await cache.lookup(dbB, 'h2', load);
  assert.equal(load.calls, 2);
});

test('forget drops the key at once; forgetFarm drops the farm’s devices', async () => {
  const cache = new KeyCache<string>(() => 0);
  const load = counting('caller', 'key_1');
  await cache.lookup(dbA, 'h1', load);
  cache.forget('key_2');
  await cache.lookup(dbA, 'h1', load);
  assert.equal(load.calls, 1, 'another key forgotten: still cached');
  cache.forget('key_1');
  await cache.lookup(dbA, 'h1', load);
  assert.equal(load.calls, 2);
  cache.forgetFarm('farm_1');
  await cache.lookup(dbA, 'h1', load);
  assert.equal(load.calls, 3);
});

test('a lookup in flight when a key is forgotten is answered but not cached', async () => {
  const cache = new KeyCache<string>(() => 0);
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let calls = 0;
  const slow = async () => {
    calls++;
    await gate;
    return { value: 'stale', id: 'key_1' };
  };
  const pending = cache.lookup(dbA, 'h1', slow);
  cache.forget('key_1');
  release();
  assert.equal(await pending, 'stale');
  await cache.lookup(dbA, 'h1', async () => {
    calls++;
    return null;
  });
  assert.equal(calls, 2, 'the stale answer was not cached: the database was asked again');
});
