/**
 * The service as a user runs it: `npm start` (main.ts serve) on a fresh database prints the first
 * account's keys once; `cli accounts create --json` prints exactly one JSON object and works while the
 * server runs; `cli people invite` links to the address the server serves; a second start on the taken
 * port exits at once, creating nothing; SIGTERM shuts down cleanly. Runs on both engines. (The CLI's usage and exit codes, which do
 * not depend on the engine, are in cli.test.ts.)
 */
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import pg from 'pg';
import { ENGINES, serverDatabase, testConfig, waitFor as waitUntil } from './engines.ts';
import { baseEnv } from './processes.ts';
import { freePort } from './throwaway.ts';

const MAIN = path.resolve(import.meta.dirname, '../src/main.ts');
const run = promisify(execFile);

/** On either engine the data folder (SQLite files, first-start keys) is one the server creates itself. */
function envFor(config: { dataDir: string; databaseUrl: string | null }, extra: Record<string, string> = {}) {
  const env: Record<string, string> = { ...baseEnv(), LOG_LEVEL: 'warn', ...extra };
  if (config.databaseUrl) env.DATABASE_URL = config.databaseUrl;
  env.FARMSTEAD_DATA = path.join(config.dataDir, 'data');
  return env;
}

const modeOf = (file: string) => statSync(file).mode & 0o777;

async function waitFor(child: ChildProcess, pattern: RegExp, output: { text: string }): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!pattern.test(output.text)) {
    if (child.exitCode !== null) throw new Error(`server exited early: ${output.text}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}: ${output.text}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// Both engines at once (each engine's steps in order): most of the time is waiting on child processes.
describe('running the service', { concurrency: true }, () => {
  for (const engine of ENGINES) {
    describe(`[${engine}]`, { concurrency: 1 }, () => {
      let env: Record<string, string>;
      let cleanup: () => Promise<void>;
      let port: number;
      let server: ChildProcess;
      const output = { text: '' };

      before(async () => {
        const made = await testConfig(engine);
        // PostgreSQL needs no folder of its own, but the first start's keys file goes to one.
        const dataDir =
          engine === 'postgres'
            ? mkdtempSync(path.join(tmpdir(), 'farmstead-process-'))
            : made.config.dataDir;
        made.config = { ...made.config, dataDir };
        cleanup = async () => {
          await made.cleanup();
          rmSync(dataDir, { recursive: true, force: true });
        };
        port = await freePort();
        env = envFor(made.config, { PORT: String(port), HOST: '127.0.0.1', FARMSTEAD_WEBHOOK_WORKER: '0' });
        server = spawn(process.execPath, [MAIN, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
        server.stdout?.on('data', (d) => {
          output.text += String(d);
        });
        server.stderr?.on('data', (d) => {
          output.text += String(d);
        });
        await waitFor(server, /sample farm\s+farm_/, output);
      });

      after(async () => {
        if (server.exitCode === null) {
          server.kill('SIGKILL');
          await once(server, 'exit');
        }
        await cleanup();
      });

      test('the first start writes the keys to a 0600 file in a 0700 data folder, prints its path, and they work', async () => {
        const file = / are in (\S+first-start-keys\.txt)/.exec(output.text)?.[1];
        assert.ok(file, output.text);
        assert.equal(path.dirname(file), env.FARMSTEAD_DATA);
        assert.equal(modeOf(file), 0o600);
        assert.equal(modeOf(path.dirname(file)), 0o700);
        if (engine === 'sqlite') {
          for (const name of ['farmstead.db', 'farmstead.db-wal', 'farmstead.db-shm']) {
            assert.equal(modeOf(path.join(path.dirname(file), name)), 0o600, name);
          }
        }
        // stdout is not a terminal here (as under a service manager): the keys stay out of it.
        assert.doesNotMatch(output.text, /rk_(live|test)_/);
        const saved = readFileSync(file, 'utf8');
        const live = /live key\s+(rk_live_\w+)/.exec(saved)?.[1];
        const testKey = /test key\s+(rk_test_\w+)/.exec(saved)?.[1];
        assert.ok(live && testKey, saved);
        const health = await fetch(`http://127.0.0.1:${port}/healthz`);
        assert.equal(health.status, 200);
        assert.equal(((await health.json()) as any).engine, engine);
        const me = await fetch(`http://127.0.0.1:${port}/v1/me`, {
          headers: { authorization: `Bearer ${live}` },
        });
        assert.equal(me.status, 200);
        const farms = await fetch(`http://127.0.0.1:${port}/v1/farms`, {
          headers: { authorization: `Bearer ${testKey}` },
        });
        const body = (await farms.json()) as any;
        assert.equal(body.data.length, 1);
        assert.equal(body.data[0].sample, true);
      });

      test('cli accounts create --json prints exactly one JSON object while the server runs', async () => {
        const { stdout } = await run(
          process.execPath,
          [MAIN, 'accounts', 'create', '--name', 'Creek Ranch', '--json'],
          { env },
        );
        const lines = stdout.trim().split('\n');
        assert.equal(lines.length, 1);
        const created = JSON.parse(lines[0] ?? '');
        assert.deepEqual(Object.keys(created).sort(), [
          'account_id',
          'live_key',
          'sample_farm_id',
          'test_key',
        ]);
        assert.match(created.live_key, /^rk_live_/);
        assert.match(created.test_key, /^rk_test_/);
        const me = await fetch(`http://127.0.0.1:${port}/v1/me`, {
          headers: { authorization: `Bearer ${created.live_key}` },
        });
        assert.equal(((await me.json()) as any).account.name, 'Creek Ranch');
        const farm = await fetch(`http://127.0.0.1:${port}/v1/farms/${created.sample_farm_id}`, {
          headers: { authorization: `Bearer ${created.test_key}` },
        });
        assert.equal(farm.status, 200);
      });

      test('cli people invite, run without the server’s PORT, links to the address the server serves', async () => {
        const account = JSON.parse(
          (
            await run(process.execPath, [MAIN, 'accounts', 'create', '--name', 'Invite Farm', '--json'], {
              env,
            })
          ).stdout,
        ) as { account_id: string };
        const { PORT: _port, HOST: _host, ...cliEnv } = env;
        const { stdout } = await run(
          process.execPath,
          [
            MAIN,
            'people',
            'invite',
            '--account',
            account.account_id,
            '--email',
            'hand@farm.test',
            '--role',
            'crew',
            '--json',
          ],
          { env: cliEnv },
        );
        const { url } = JSON.parse(stdout) as { url: string };
        assert.ok(url.startsWith(`http://127.0.0.1:${port}/setup/`), url);
        const page = await fetch(url);
        assert.equal(page.status, 200, 'the link reaches the server');
      });

      test('a second start on the taken port exits 1 with one line naming PORT, and creates nothing', async () => {
        const fresh = await serverDatabase(engine);
        const dataDir = path.join(mkdtempSync(path.join(tmpdir(), 'farmstead-taken-')), 'data');
        try {
          const child = spawn(process.execPath, [MAIN, 'serve'], {
            env: {
              ...baseEnv(),
              ...fresh.env,
              FARMSTEAD_DATA: dataDir,
              PORT: String(port),
              HOST: '127.0.0.1',
            },
            stdio: ['ignore', 'pipe', 'pipe'],
          });
          const said = { text: '' };
          child.stdout?.on('data', (d) => {
            said.text += String(d);
          });
          child.stderr?.on('data', (d) => {
            said.text += String(d);
          });
          // Before the fix it stayed alive without listening: give up (and stop it) rather than hang.
          await waitUntil('the second start to exit', () => child.exitCode !== null, 60_000).finally(() => {
            if (child.exitCode === null) child.kill('SIGKILL');
          });
          assert.equal(child.exitCode, 1, said.text);
          assert.equal(said.text.trim().split('\n').length, 1, said.text);
          assert.match(said.text, new RegExp(`^PORT ${port} is already in use on 127\\.0\\.0\\.1`));
          assert.equal(existsSync(dataDir), false, 'no data folder, no database file');
          if (fresh.env.DATABASE_URL) {
            const client = new pg.Client({ connectionString: fresh.env.DATABASE_URL });
            await client.connect();
            try {
              const tables = await client.query(
                "select table_name from information_schema.tables where table_schema = 'public'",
              );
              assert.deepEqual(tables.rows, [], 'no tables');
            } finally {
              await client.end();
            }
          }
        } finally {
          rmSync(path.dirname(dataDir), { recursive: true, force: true });
          await fresh.drop();
        }
      });

      test('SIGTERM stops the server cleanly (exit code 0) and a restart prints no new keys', async () => {
        server.kill('SIGTERM');
        const [code] = await once(server, 'exit');
        assert.equal(code, 0, output.text);
        const again = spawn(process.execPath, [MAIN, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
        const second = { text: '' };
        again.stdout?.on('data', (d) => {
          second.text += String(d);
        });
        try {
          let ready = false;
          for (let i = 0; i < 300 && !ready; i++) {
            ready = await fetch(`http://127.0.0.1:${port}/healthz`).then(
              (r) => r.ok,
              () => false,
            );
            if (!ready) await new Promise((r) => setTimeout(r, 50));
          }
          assert.ok(ready, 'restarted server answers');
          assert.doesNotMatch(second.text, /rk_live_/);
        } finally {
          again.kill('SIGTERM');
          await once(again, 'exit');
        }
      });
    });
  }
});

test('npm start: stopping npm by its process id stops the server (the start script execs it)', async () => {
  const fresh = await serverDatabase('sqlite');
  const port = await freePort();
  const npm = spawn('npm', ['start', '--silent'], {
    cwd: path.resolve(import.meta.dirname, '..'),
    env: { ...baseEnv(), ...fresh.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    stdio: 'ignore',
  });
  const ready = () =>
    fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
  try {
    await waitUntil('the server npm started to be ready', ready, 120_000);
    npm.kill('SIGTERM');
    await once(npm, 'exit');
    await waitUntil('the server to stop listening', async () => !(await ready()), 30_000);
  } finally {
    if (npm.exitCode === null) npm.kill('SIGKILL');
    await fresh.drop();
  }
});
