/**
 * What a server holds from its start: the libraries most servers never or rarely use are loaded when first
 * needed (ARCHITECTURE.md, "Building an app is cheap"), so a SQLite server started as `npm start` starts it has
 * not loaded them once it answers. A resolve hook in the server process (Node's `module.registerHooks`, given
 * with `--import`) records every package it loads.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { npmStartNodeArgs, startServer } from './processes.ts';

/** Loaded on first use: the outbound client, email, Web Push, the MQTT client, KML/GPX, PostgreSQL's driver. */
const ON_FIRST_USE = ['undici', 'nodemailer', 'web-push', 'mqtt', '@xmldom/xmldom', '@tmcw/togeojson', 'pg'];

const HOOK = `import { appendFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
registerHooks({
  resolve(specifier, context, next) {
    const resolved = next(specifier, context);
    const at = resolved.url.lastIndexOf('/node_modules/');
    if (at >= 0) {
      const [scope, name] = resolved.url.slice(at + 14).split('/');
      appendFileSync(process.env.FARMSTEAD_LOADED_LOG, (scope.startsWith('@') ? scope + '/' + name : scope) + '\\n');
    }
    return resolved;
  },
});
`;

test('a SQLite server answers without having loaded the libraries it loads on first use; serving the console writes no warning to its log', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'farmstead-start-imports-'));
  const hook = path.join(dir, 'hook.mjs');
  const log = path.join(dir, 'loaded.txt');
  writeFileSync(hook, HOOK);
  const server = await startServer(
    { FARMSTEAD_LOADED_LOG: log, FARMSTEAD_MQTT_PORT: 'off' },
    { nodeArgs: [...npmStartNodeArgs(), '--import', hook] },
  );
  try {
    const health = await fetch(`${server.url}/healthz`);
    assert.equal(health.status, 200);
    const loaded = new Set(readFileSync(log, 'utf8').split('\n').filter(Boolean));
    assert.ok(loaded.has('fastify') && loaded.has('kysely'), `the hook saw: ${[...loaded].join(', ')}`);
    assert.deepEqual(
      ON_FIRST_USE.filter((name) => loaded.has(name)),
      [],
    );
    // The console's first module is TypeScript, its types stripped when first asked for: a parameter's type
    // in the source is gone from what is served.
    const page = await (await fetch(`${server.url}/`)).text();
    const app = /src="([^"]+\/web\/app\.ts)"/.exec(page)?.[1];
    assert.ok(app, page);
    const module = await fetch(new URL(app, server.url));
    assert.equal(module.status, 200);
    const annotation = /\(name: PageName\)/;
    const source = readFileSync(
      path.resolve(import.meta.dirname, '../src/modules/console/web/app.ts'),
      'utf8',
    );
    assert.match(source, annotation);
    assert.doesNotMatch(await module.text(), annotation);
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  assert.doesNotMatch(server.output.text, /Warning/);
});
