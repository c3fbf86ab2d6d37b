/**
 * /docs in a real browser: the API reference renders from /openapi.json with Swagger UI served by Farmstead
 * itself (no CDN: any request to another host fails the test).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openBrowser, screenshot, type TestBrowser } from './browser.ts';
import { startTestApp, type TestApp } from './harness.ts';

let t: TestApp;
let browser: TestBrowser;
let base: string;

before(async () => {
  t = await startTestApp('sqlite');
  base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  browser = await openBrowser();
});

after(async () => {
  await browser?.close();
  await t?.close();
});

test('GET /docs serves the page and its Swagger UI files from this server', async () => {
  const page = await t.request('GET', '/docs');
  assert.equal(page.status, 200);
  assert.match(String(page.headers['content-type']), /^text\/html/);
  assert.match(String(page.body), /src="\/docs\/swagger-ui-bundle\.js"/);
  const bundle = await t.app.inject({ url: '/docs/swagger-ui-bundle.js' });
  assert.equal(bundle.statusCode, 200);
  assert.ok(bundle.body.length > 100_000);
});

test('GET /docs/guide/{page} serves the user guide as Markdown, the page the OAuth metadata names; nothing else', async () => {
  const meta = await t.request<{ resource_documentation: string }>(
    'GET',
    '/.well-known/oauth-protected-resource/mcp',
  );
  assert.equal(meta.status, 200);
  const named = new URL(meta.body.resource_documentation).pathname;
  assert.equal(named, '/docs/guide/mcp');
  const guide = await t.app.inject({ url: named });
  assert.equal(guide.statusCode, 200);
  assert.match(String(guide.headers['content-type']), /^text\/markdown/);
  assert.match(guide.body, /^# /m);
  for (const url of ['/docs/guide/nope', '/docs/guide/..%2Fapi', '/docs/guide/mcp.md']) {
    const missing = await t.app.inject({ url });
    assert.equal(missing.statusCode, 404, url);
    assert.equal(JSON.parse(missing.body).error.code, 'not_found', url);
  }
});

test('a person opening /docs sees the API operations listed, with nothing loaded from elsewhere', async () => {
  const page = await browser.newPage();
  const foreign: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(base)) foreign.push(request.url());
  });
  await page.goto(`${base}/docs`);
  // The tags are listed closed; a person opens the ones they want.
  for (const tag of ['Farms', 'Animals', 'Herd book']) {
    await page.locator('.opblock-tag', { hasText: tag }).first().click();
  }
  await page
    .locator('.opblock-summary-path', { hasText: '/v1/farms/{farm}/brief' })
    .first()
    .waitFor({ timeout: 30_000 });
  await page.locator('.opblock-summary-path', { hasText: '/v1/farms/{farm}/treatments' }).first().waitFor();
  assert.ok((await page.locator('.opblock-tag').count()) > 15, 'every tag is listed');
  assert.ok((await page.locator('.opblock').count()) > 20);
  assert.match((await page.locator('.info .title').textContent()) ?? '', /Farmstead API/);
  assert.deepEqual(foreign, []);
  await screenshot(page, 'api-reference');
});
