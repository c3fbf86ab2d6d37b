/**
 * Keys are cached briefly in each process (src/http/key-cache.ts); revocation must still reach every
 * process within a second. Two real server processes share one PostgreSQL database: a key used (and so
 * cached) in process B is revoked through process A, and B must refuse it within 1 s. The same for a
 * device key rotated through A. PostgreSQL only: SQLite is one process's embedded database (its
 * in-process revocation is covered by the keys and devices tests).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createPgDatabase, ENGINES } from './harness.ts';
import { createAccountDirect, type Server, startServers } from './processes.ts';

const WITHIN_MS = 1000;

async function call(
  server: Server,
  method: string,
  url: string,
  key: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, string> }> {
  const res = await fetch(`${server.url}${url}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

/** Milliseconds from `start` until `request` answers 401 (polling), or fails after 3 s. */
async function refusedAfter(start: number, request: () => Promise<{ status: number }>): Promise<number> {
  for (;;) {
    const res = await request();
    const elapsed = performance.now() - start;
    if (res.status === 401) return elapsed;
    assert.equal(res.status, 200);
    if (elapsed > 3000) assert.fail(`still accepted ${Math.round(elapsed)} ms after the change`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('a key revoked in one process stops working in another within 1 s', {
  skip: ENGINES.includes('postgres') ? false : 'PostgreSQL not under test',
}, () => {
  let database: { url: string; drop(): Promise<void> };
  let dataDir = '';
  let servers: Server[] = [];
  let a: Server;
  let b: Server;
  let liveKey = '';
  let farmId = '';

  before(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'farmstead-revoke-'));
    database = await createPgDatabase({ migrated: true });
    const env = { DATABASE_URL: database.url, FARMSTEAD_DATA: dataDir, LOG_LEVEL: 'warn' };
    // The account first: servers that find one seed no first account of their own, and start sooner.
    liveKey = await createAccountDirect(env, 'Ridge');
    servers = await startServers([env, env]);
    [a, b] = servers as [Server, Server];
    const farm = await call(a, 'POST', '/v1/farms', liveKey, { name: 'Ridge Farm' });
    assert.equal(farm.status, 201);
    farmId = farm.body.id as string;
  });

  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    servers = [];
    await database?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  test('an API key revoked through A is refused by B within 1 s', async () => {
    const extra = await call(a, 'POST', '/v1/keys', liveKey, { name: 'Crew tablet' });
    assert.equal(extra.status, 201);
    const key = extra.body.key as string;
    // B has just authenticated it: it is in B's cache.
    for (let i = 0; i < 3; i++) assert.equal((await call(b, 'GET', '/v1/me', key)).status, 200);
    const start = performance.now();
    assert.equal((await call(a, 'DELETE', `/v1/keys/${extra.body.id}`, liveKey)).status, 200);
    const elapsed = await refusedAfter(start, () => call(b, 'GET', '/v1/me', key));
    assert.ok(elapsed < WITHIN_MS, `refused after ${Math.round(elapsed)} ms`);
    assert.equal((await call(b, 'GET', '/v1/me', key)).status, 401, 'and stays refused');
  });

  test('a device key rotated through A is refused by B within 1 s, and the new key works there', async () => {
    const device = await call(a, 'POST', `/v1/farms/${farmId}/devices`, liveKey, {
      type: 'house',
      name: 'Trough 1',
    });
    assert.equal(device.status, 201);
    const oldKey = device.body.device_key as string;
    for (let i = 0; i < 3; i++) assert.equal((await call(b, 'POST', '/v1/ingest', oldKey, {})).status, 200);
    const start = performance.now();
    const rotated = await call(a, 'POST', `/v1/devices/${device.body.id}/key`, liveKey);
    assert.equal(rotated.status, 200);
    const elapsed = await refusedAfter(start, () => call(b, 'POST', '/v1/ingest', oldKey, {}));
    assert.ok(elapsed < WITHIN_MS, `refused after ${Math.round(elapsed)} ms`);
    assert.equal((await call(b, 'POST', '/v1/ingest', rotated.body.device_key as string, {})).status, 200);
  });

  test('deleting a farm stops its device keys in B within 1 s', async () => {
    const farm = await call(a, 'POST', '/v1/farms', liveKey, { name: 'Creek Farm' });
    const device = await call(a, 'POST', `/v1/farms/${farm.body.id}/devices`, liveKey, {
      type: 'house',
      name: 'Gate',
    });
    const key = device.body.device_key as string;
    assert.equal((await call(b, 'POST', '/v1/ingest', key, {})).status, 200);
    const start = performance.now();
    assert.equal((await call(a, 'DELETE', `/v1/farms/${farm.body.id}`, liveKey)).status, 200);
    const elapsed = await refusedAfter(start, () => call(b, 'POST', '/v1/ingest', key, {}));
    assert.ok(elapsed < WITHIN_MS, `refused after ${Math.round(elapsed)} ms`);
  });
});
