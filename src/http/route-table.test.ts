import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { startTestApp } from '../../test/harness.ts';
import { compilePending } from '../lib/compile-lazily.ts';
import { withAccess } from './permissions.ts';
import { trackRoutes } from './route-table.ts';
import { registerCors } from './web.ts';

async function farmsModule(app: FastifyInstance): Promise<void> {
  app.get('/v1/farms', async () => ({ data: [] }));
}

test('the start-up check refuses a route that takes a key but declares no access', async () => {
  const app = Fastify();
  const table = trackRoutes(app);
  await app.register(withAccess(farmsModule, 'farms'));
  app.post('/v1/bare', async () => ({}));
  try {
    await assert.rejects(async () => {
      await app.ready();
    }, /route POST \/v1\/bare takes a key but declares no access/);
    assert.deepEqual(
      table.undeclared().map((r) => `${r.method} ${r.url}`),
      ['POST /v1/bare'],
    );
  } finally {
    await app.close();
  }
});

test('the start-up check passes routes with access, auth "none" routes and the CORS preflight route', async () => {
  const app = Fastify();
  const table = trackRoutes(app);
  await registerCors(app, ['https://farm.example']);
  await app.register(withAccess(farmsModule, 'farms'));
  app.get('/status', { config: { auth: 'none' } }, async () => ({ ok: true }));
  try {
    await app.ready();
    assert.deepEqual(table.undeclared(), []);
    const preflight = table.routes.find((r) => r.method === 'OPTIONS' && r.url === '*');
    assert.equal(preflight?.auth, 'none');
    const farms = table.routes.find((r) => r.method === 'GET' && r.url === '/v1/farms');
    assert.deepEqual(farms?.access, { needs: [{ family: 'records', resource: 'farms', access: 'read' }] });
  } finally {
    await app.close();
  }
});

test('the real app starts: every route it registers, CORS included, is declared', async () => {
  const t = await startTestApp('sqlite', { corsOrigins: ['https://farm.example'] });
  try {
    const routes = t.app.routeTable.routes;
    assert.ok(routes.length > 50, `expected the whole app, got ${routes.length} routes`);
    assert.deepEqual(t.app.routeTable.undeclared(), []);
    assert.ok(routes.some((r) => r.method === 'OPTIONS' && r.url === '*' && r.auth === 'none'));
    assert.ok(routes.some((r) => r.auth === 'device' && r.access !== undefined));
  } finally {
    await t.close();
  }
});

// npm test: a process of its own. The test below counts the schemas a fresh process hands out: in a process
// other test files have used, some are compiled already.
test('every validator and serializer the real app and its MCP tools hand out compiles (they compile on first use)', async () => {
  const t = await startTestApp('sqlite');
  try {
    // What the start no longer compiles is compiled here, so a schema Ajv or fast-json-stringify refuses
    // fails this test rather than a first request.
    const compiled = compilePending();
    assert.ok(compiled > 100, `expected the whole app's schemas, got ${compiled}`);
    // The MCP tools load on the first /mcp request; loading them hands out their argument and result
    // validators.
    const { TOOLS } = await import('../modules/mcp/server.ts');
    const tools = compilePending();
    assert.ok(tools >= 2 * TOOLS.length, `expected every tool's two schemas, got ${tools}`);
    assert.equal(compilePending(), 0, 'each compiled once');
  } finally {
    await t.close();
  }
});
