/**
 * The operator's CLI as an operator runs it: real processes (`src/main.ts`), real databases. Help and exit
 * codes; keys recovery (a key made by the CLI for an account whose keys are lost works against the API);
 * an online SQLite backup while devices report, restored into an empty folder and served again; PostgreSQL's
 * backup advice; graceful shutdown finishing a request in flight.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { buildApp } from '../src/app.ts';
import { openDatabase } from '../src/db/database.ts';
import { UsageCounter } from '../src/modules/usage/counter.ts';
import { ENGINES, testConfig, waitFor } from './engines.ts';
import { cli, type Server, startServer } from './processes.ts';

async function api(url: string, key: string, method: string, body?: unknown) {
  const res = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : null,
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe('cli: help and exit codes', () => {
  const env = { FARMSTEAD_DATA: mkdtempSync(path.join(tmpdir(), 'farmstead-cli-help-')) };
  after(() => rmSync(env.FARMSTEAD_DATA, { recursive: true, force: true }));

  test('no command, help, --help or -h prints the usage and the commands and exits 0 without starting anything', async () => {
    const calls = [[], ['help'], ['--help'], ['-h']];
    const runs = await Promise.all(calls.map((args) => cli(args, env)));
    for (const [i, run] of runs.entries()) {
      const call = calls[i]?.join(' ') || '(no command)';
      assert.equal(run.code, 0, `${call}: ${run.stderr}`);
      assert.match(run.stdout, /^Usage: farmstead /, call);
      assert.match(run.stdout, /\n {2}accounts {2,}list and create accounts/, call);
      for (const command of [
        'serve',
        'worker',
        'accounts',
        'keys',
        'farms',
        'migrate',
        'backup',
        'restore',
      ]) {
        assert.match(run.stdout, new RegExp(`\\n  ${command}\\b`), `${call}: ${command}`);
      }
    }
  });

  test('help <command> and <command> --help exit 0; usage mistakes exit 2; failures exit 1', async () => {
    const [helpKeys, keysHelp, group, unknown, missing, noName, badChoice, noAccount] = await Promise.all([
      cli(['help', 'keys'], env),
      cli(['keys', 'create', '--help'], env),
      cli(['keys'], env),
      cli(['bogus'], env),
      cli(['keys', 'list'], env),
      cli(['accounts', 'create'], env),
      cli(['keys', 'create', '--account', 'acct_x', '--mode', 'gold'], env),
      cli(['keys', 'list', '--account', 'acct_nobody'], env),
    ]);
    assert.equal(helpKeys.code, 0);
    assert.match(helpKeys.stdout, /revoke/);
    assert.equal(keysHelp.code, 0);
    assert.match(keysHelp.stdout, /--mode <mode>/);
    assert.equal(group.code, 2);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown command 'bogus'[\s\S]*--help/);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--account/);
    assert.equal(noName.code, 2);
    assert.match(noName.stderr, /--name/);
    assert.equal(badChoice.code, 2);
    assert.equal(noAccount.code, 1);
    assert.match(noAccount.stderr, /No account with id "acct_nobody"/);
  });
});

// Both engines at once (each engine's steps in order): most of the time is waiting on child processes.
describe('cli: accounts, keys, farms, migrate', { concurrency: true }, () => {
  for (const engine of ENGINES) {
    describe(`[${engine}]`, () => {
      test('keys recovery: a key the CLI makes for an account that lost its keys works against the API', async () => {
        const made = await testConfig(engine, {}, { migrated: true });
        const env: Record<string, string> = { FARMSTEAD_DATA: made.config.dataDir };
        if (made.config.databaseUrl) env.DATABASE_URL = made.config.databaseUrl;
        try {
          const created = await cli(['accounts', 'create', '--name', 'Lost Keys Ranch', '--json'], env);
          assert.equal(created.code, 0, created.stderr);
          const account = JSON.parse(created.stdout) as { account_id: string };
          // Its keys are "lost": the test never uses them.
          const listed = await cli(['accounts', 'list', '--json'], env);
          assert.ok(JSON.parse(listed.stdout).some((a: { id: string }) => a.id === account.account_id));

          const issued = await cli(
            ['keys', 'create', '--account', account.account_id, '--name', 'Recovered', '--json'],
            env,
          );
          assert.equal(issued.code, 0, issued.stderr);
          const key = JSON.parse(issued.stdout) as { id: string; key: string; mode: string };
          assert.equal(key.mode, 'live');
          assert.match(key.key, /^rk_live_/);

          const keys = await cli(['keys', 'list', '--account', account.account_id, '--json'], env);
          const rows = JSON.parse(keys.stdout) as { id: string; prefix: string }[];
          assert.equal(rows.length, 3);
          assert.ok(!keys.stdout.includes(key.key), 'the full key is never shown again');

          const farms = await cli(['farms', 'list', '--account', account.account_id, '--json'], env);
          assert.equal(JSON.parse(farms.stdout)[0].name, 'Willow Creek Farm (sample)');
          const status = await cli(['migrate', 'status', '--json'], env);
          assert.ok(
            (JSON.parse(status.stdout) as { executed_at: string | null }[]).every((m) => m.executed_at),
          );
          const up = await cli(['migrate', 'up', '--json'], env);
          assert.deepEqual(JSON.parse(up.stdout), { applied: [] });

          // The real app on the same database accepts the new key.
          const database = await openDatabase(made.config);
          const usage = new UsageCounter(database.db, 60_000);
          const app = await buildApp({ config: made.config, database, usage, logger: false });
          try {
            const me = await app.inject({ url: '/v1/me', headers: { authorization: `Bearer ${key.key}` } });
            assert.equal(me.statusCode, 200, me.body);
            assert.equal(me.json().account.id, account.account_id);
            // Revoking the old default live key is now allowed (the new one remains).
            const old = rows.find((r) => r.id !== key.id && r.prefix.startsWith('rk_live_'));
            const revoked = await cli(
              ['keys', 'revoke', old?.id ?? '', '--account', account.account_id, '--json'],
              env,
            );
            assert.equal(revoked.code, 0, revoked.stderr);
            // The last live key is refused: exit 1 with the reason.
            const last = await cli(['keys', 'revoke', key.id, '--account', account.account_id], env);
            assert.equal(last.code, 1);
            assert.match(last.stderr, /last live key/);
          } finally {
            await app.close();
            await usage.close().catch(() => {});
            await database.close();
          }
        } finally {
          await made.cleanup();
        }
      });
    });
  }
});

if (ENGINES.includes('postgres')) {
  test('cli backup on PostgreSQL explains pg_dump, reports the server version and exits 1', async () => {
    const made = await testConfig('postgres');
    try {
      const run = await cli(['backup', '--to', '/tmp/never-written.dump'], {
        DATABASE_URL: made.config.databaseUrl ?? '',
        FARMSTEAD_DATA: made.config.dataDir,
      });
      assert.equal(run.code, 1);
      assert.match(run.stderr, /pg_dump --format=custom/);
      assert.match(run.stderr, /PostgreSQL server version: \d+/);
    } finally {
      await made.cleanup();
    }
  });
}

if (ENGINES.includes('sqlite')) {
  describe('cli: SQLite backup and restore', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'farmstead-backup-'));
    /** The restored server, left running for the SIGTERM test (one start fewer), with a key that works there. */
    let restoredServer: { server: Server; key: string } | null = null;
    after(async () => {
      await restoredServer?.server.stop();
      rmSync(root, { recursive: true, force: true });
    });

    test('a backup taken while devices report restores into an empty folder and serves the same data', async () => {
      // The device reports as fast as it can while the backup runs: past any sensible rate limit.
      const live = {
        FARMSTEAD_DATA: path.join(root, 'live'),
        FARMSTEAD_WEBHOOK_WORKER: '0',
        FARMSTEAD_RATE_LIMIT: 'off',
      };
      const server = await startServer(live);
      let ingesting = true;
      try {
        const keyFile = readFileSync(path.join(live.FARMSTEAD_DATA, 'first-start-keys.txt'), 'utf8');
        const key = /live key\s+(\S+)/.exec(keyFile)?.[1] ?? '';
        const farm = await api(`${server.url}/v1/farms`, key, 'POST', {
          name: 'Backup Farm',
          timezone: 'UTC',
        });
        assert.equal(farm.status, 201, JSON.stringify(farm.body));
        const device = await api(`${server.url}/v1/farms/${farm.body.id}/devices`, key, 'POST', {
          type: 'weather',
          name: 'Mast',
        });
        assert.equal(device.status, 201, JSON.stringify(device.body));
        let reports = 0;
        const ingest = (async () => {
          while (ingesting) {
            const r = await api(`${server.url}/v1/ingest`, device.body.device_key, 'POST', {
              readings: [{ metric: 'weather.temp_c', value: 10 + (reports % 10) }],
            });
            assert.equal(r.status, 200, JSON.stringify(r.body));
            reports++;
          }
        })();
        await waitFor('some reports', () => reports >= 5);
        const file = path.join(root, 'farmstead-backup.db');
        const backup = await cli(['backup', '--to', file, '--json'], live);
        assert.equal(backup.code, 0, backup.stderr);
        assert.match(backup.stderr, /backup: \d+ pages copied/);
        assert.ok(JSON.parse(backup.stdout).pages > 0);
        const atBackup = reports;
        await waitFor('reports after the backup', () => reports >= atBackup + 3);
        ingesting = false;
        await ingest;

        // Restoring over the live database is refused without --force.
        const refused = await cli(['restore', '--from', file], live);
        assert.equal(refused.code, 1);
        assert.match(refused.stderr, /already holds a database/);

        const restoredEnv = { FARMSTEAD_DATA: path.join(root, 'restored'), FARMSTEAD_WEBHOOK_WORKER: '0' };
        const restore = await cli(['restore', '--from', file], restoredEnv);
        assert.equal(restore.code, 0, restore.stderr);
        const restored = await startServer(restoredEnv);
        let served = false;
        try {
          // The same account, key, farm and device; readings up to the backup (a consistent snapshot).
          const farms = await api(`${restored.url}/v1/farms`, key, 'GET');
          assert.equal(farms.status, 200);
          assert.ok(farms.body.data.some((f: { id: string }) => f.id === farm.body.id));
          const got = await api(`${restored.url}/v1/devices/${device.body.id}`, key, 'GET');
          assert.equal(got.status, 200);
          assert.equal(got.body.name, 'Mast');
          const readings = await api(
            `${restored.url}/v1/devices/${device.body.id}/readings?metric=weather.temp_c&limit=500`,
            key,
            'GET',
          );
          assert.equal(readings.status, 200, JSON.stringify(readings.body));
          const n = readings.body.data.length;
          assert.ok(n >= 5 && n < reports, `restored ${n} readings of ${reports}`);
          assert.equal(restored.output.text.includes('first start'), false, 'no new first account');
          restoredServer = { server: restored, key };
          served = true;
        } finally {
          if (!served) await restored.stop();
        }
      } finally {
        ingesting = false;
        await server.stop();
      }
    });

    test('SIGTERM lets a request in flight finish, then the server exits 0', async () => {
      // The restored server of the test above; a server of its own if that one is not there.
      const { server, key } =
        restoredServer ??
        (await (async () => {
          const env = { FARMSTEAD_DATA: path.join(root, 'drain'), FARMSTEAD_WEBHOOK_WORKER: '0' };
          const started = await startServer(env);
          const keyFile = readFileSync(path.join(env.FARMSTEAD_DATA, 'first-start-keys.txt'), 'utf8');
          return { server: started, key: /live key\s+(\S+)/.exec(keyFile)?.[1] ?? '' };
        })());
      const body = JSON.stringify({ name: 'Slow Farm', timezone: 'UTC' });
      const { port } = new URL(server.url);
      const socket = connect(Number(port), '127.0.0.1');
      await once(socket, 'connect');
      let response = '';
      socket.on('data', (d) => {
        response += String(d);
      });
      socket.write(
        `POST /v1/farms HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`,
      );
      await new Promise((r) => setTimeout(r, 100));
      server.child.kill('SIGTERM');
      await waitFor('shutdown to begin', () => server.output.text.includes('shutting down'));
      // New connections are refused while the slow request is still being sent.
      assert.equal(server.child.exitCode, null);
      socket.write(body.slice(10));
      await waitFor('the response', () => response.includes('\r\n\r\n{'));
      assert.match(response, /^HTTP\/1\.1 201/);
      // Closed with its answer, so the shutdown does not wait out the keep-alive timeout.
      assert.match(response, /\r\nconnection: close\r\n/i);
      const [code] = await once(server.child, 'exit');
      assert.equal(code, 0);
      socket.destroy();
    });
  });
}
