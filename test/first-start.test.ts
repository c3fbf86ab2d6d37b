/**
 * A fresh install started the way people do it: `npm start` and `npm run cli -- accounts create` at the same
 * moment on an empty database. Both must wait for each other (busy timeout, migrations under a lock) and
 * succeed, every time; the first account is bootstrapped at most once. Several rounds per engine, each on a
 * new database, with the real main.ts as child processes.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { ENGINES, testConfig } from './engines.ts';
import { baseEnv } from './processes.ts';
import { freePort } from './throwaway.ts';

const MAIN = path.resolve(import.meta.dirname, '../src/main.ts');
const run = promisify(execFile);

async function untilHealthy(port: number, child: ChildProcess, output: { text: string }): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early (${child.exitCode}): ${output.text}`);
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`server never became healthy: ${output.text}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function round(engine: 'sqlite' | 'postgres', n: number): Promise<void> {
  const { config, cleanup } = await testConfig(engine);
  // The data folder (SQLite files, the first start's keys file) is one the server creates itself.
  const home = mkdtempSync(path.join(tmpdir(), 'farmstead-first-start-'));
  const dataDir = path.join(home, 'data');
  const port = await freePort();
  const env: Record<string, string> = {
    ...baseEnv(),
    LOG_LEVEL: 'warn',
    PORT: String(port),
    HOST: '127.0.0.1',
    FARMSTEAD_WEBHOOK_WORKER: '0',
    FARMSTEAD_DATA: dataDir,
    ...(config.databaseUrl ? { DATABASE_URL: config.databaseUrl } : {}),
  };
  const output = { text: '' };
  // Started in the same tick: neither has opened the database yet.
  const server = spawn(process.execPath, [MAIN, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const cli = run(process.execPath, [MAIN, 'accounts', 'create', '--name', `Round ${n}`, '--json'], { env });
  server.stdout?.on('data', (d) => {
    output.text += String(d);
  });
  server.stderr?.on('data', (d) => {
    output.text += String(d);
  });
  try {
    const { stdout, stderr } = await cli;
    assert.doesNotMatch(stderr, /locked|busy/i, stderr);
    const created = JSON.parse(stdout.trim()) as { live_key: string };
    await untilHealthy(port, server, output);
    const me = await fetch(`http://127.0.0.1:${port}/v1/me`, {
      headers: { authorization: `Bearer ${created.live_key}` },
    });
    assert.equal(me.status, 200, 'the CLI’s account works on the server');
    assert.equal(((await me.json()) as { account: { name: string } }).account.name, `Round ${n}`);
    // The server bootstraps a first account only when it found none; if it did, its keys work.
    const keysFile = path.join(dataDir, 'first-start-keys.txt');
    if (existsSync(keysFile)) {
      const bootKey = /live key\s+(rk_live_\w+)/.exec(readFileSync(keysFile, 'utf8'))?.[1];
      assert.ok(bootKey, 'the keys file holds the first live key');
      const boot = await fetch(`http://127.0.0.1:${port}/v1/me`, {
        headers: { authorization: `Bearer ${bootKey}` },
      });
      assert.equal(boot.status, 200);
      // Beside the keys: the owner's one-time console setup link, on this server's address.
      const setup = /owner setup\s+(\S+)/.exec(readFileSync(keysFile, 'utf8'))?.[1] ?? '';
      assert.match(setup, new RegExp(`^http://127\\.0\\.0\\.1:${port}/setup/\\w+$`));
      const link = await fetch(setup.replace('/setup/', '/v1/setup/'));
      assert.equal(link.status, 200);
      const body = (await link.json()) as { role: string; email: string | null };
      assert.deepEqual({ role: body.role, email: body.email }, { role: 'owner', email: null });
    }
    assert.doesNotMatch(output.text, /locked|busy|Migration/i, output.text);
  } finally {
    if (server.exitCode === null) {
      server.kill('SIGTERM');
      await once(server, 'exit');
    }
    await cleanup();
    rmSync(home, { recursive: true, force: true });
  }
  assert.equal(server.exitCode, 0, output.text);
}

// The engines at once (each engine's rounds one after another): most of the time is child processes starting.
describe('first start racing the CLI', { concurrency: true }, () => {
  for (const engine of ENGINES) {
    describe(`[${engine}]`, () => {
      // SQLite is where the race was (3 failures in 6 starts); PostgreSQL relies on advisory locks, one round.
      const rounds = engine === 'sqlite' ? 4 : 1;
      test(`server and \`cli accounts create\` started together on an empty database both succeed (${rounds} rounds)`, async () => {
        for (let n = 1; n <= rounds; n++) await round(engine, n);
      });
    });
  }
});
