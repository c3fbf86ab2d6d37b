/**
 * `cli export` and `cli import` as an operator runs them: real processes on a real database (the sample farm
 * an account is made with), progress on stderr as lines, and as a bar on a terminal (run under `script` from
 * util-linux, which gives the process a pseudo-terminal).
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { openDatabase } from '../src/db/database.ts';
import { createAccount } from '../src/modules/accounts/service.ts';
import { MEDICINE_RECORD_COLUMNS } from '../src/modules/dataio/herd-book-export.ts';
import { farmScopeOf } from '../src/modules/dataio/repository.ts';
import type { ImportResult } from '../src/modules/dataio/schemas.ts';
import { createMovement } from '../src/modules/movements/service.ts';
import { ENGINES, testConfig } from './engines.ts';
import { baseEnv, cli, MAIN } from './processes.ts';

function hasScript(): boolean {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Runs the CLI with a pseudo-terminal as its stdin/stdout/stderr; returns what the terminal showed. */
function cliOnTty(args: string[], env: Record<string, string>): Promise<{ code: number; output: string }> {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const command = [process.execPath, MAIN, ...args].map(quote).join(' ');
  return new Promise((resolve) => {
    execFile('script', ['-qec', command, '/dev/null'], { env: { ...baseEnv(), ...env } }, (err, stdout) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, output: stdout }),
    );
  });
}

// Both engines at once (each engine's steps in order): most of the time is waiting on child processes.
describe('cli export and import', { concurrency: true }, () => {
  for (const engine of ENGINES) {
    describe(`[${engine}]`, { concurrency: 1 }, () => {
      const env: Record<string, string> = {};
      let cleanup: () => Promise<void> = async () => {};
      let farmId = '';
      let deviceId = '';
      let readings = 0;
      const dir = mkdtempSync(path.join(tmpdir(), 'farmstead-cli-data-'));

      before(async () => {
        const made = await testConfig(engine, {}, { migrated: true });
        cleanup = made.cleanup;
        env.FARMSTEAD_DATA = made.config.dataDir;
        if (made.config.databaseUrl) env.DATABASE_URL = made.config.databaseUrl;
        const database = await openDatabase(made.config);
        try {
          // Made in this process, as `cli accounts create` would (that command is cli.test.ts's): the CLI
          // under test here is export and import.
          farmId = (await createAccount(database.db, { name: 'Export Ranch' })).sample_farm_id;
          const busiest = await database.db
            .selectFrom('readings')
            .select((eb) => ['device_id', eb.fn.countAll<number>().as('n')])
            .where('farm_id', '=', farmId)
            .groupBy('device_id')
            .orderBy('n', 'desc')
            .executeTakeFirstOrThrow();
          deviceId = busiest.device_id;
          readings = Number(busiest.n);
          const scope = await farmScopeOf(database.db, farmId);
          assert.ok(scope);
          for (const at of ['2026-02-01T10:00:00Z', '2026-04-01T10:00:00Z']) {
            await createMovement(database.db, scope, farmId, {
              direction: 'on',
              at,
              head_count: 20,
              species: 'sheep',
              other_holding: '12/345/6789',
              reason: 'purchase',
              // Typed by someone: a formula a spreadsheet would run if the CSV export wrote it as it is.
              transporter: '=HYPERLINK("http://evil.example","x")',
            });
          }
        } finally {
          await database.close();
        }
      });
      after(async () => {
        await cleanup();
        rmSync(dir, { recursive: true, force: true });
      });

      test('export writes the file, prints a JSON summary and progress lines on stderr', async () => {
        // In a folder that does not exist yet (the guide's exports/ on a fresh checkout).
        const out = path.join(dir, `exports-${engine}`, `animals-${engine}.csv`);
        const run = await cli(['export', '--farm', farmId, '--kind', 'animals', '--out', out, '--json'], env);
        assert.equal(run.code, 0, run.stderr);
        const summary = JSON.parse(run.stdout) as { rows: number; out: string };
        const rows = parse(readFileSync(out, 'utf8'), { columns: true }) as Record<string, string>[];
        assert.ok(rows.length > 0);
        assert.equal(summary.rows, rows.length);
        assert.match(run.stderr, /^export animals: \d+ animals written to .*animals-\w+\.csv\n$/m);
        assert.ok(!run.stderr.includes('\r'), 'no terminal bar when stderr is not a terminal');

        const stdout = await cli(
          ['export', '--farm', farmId, '--kind', 'readings', '--device', deviceId, '--format', 'ndjson'],
          env,
        );
        assert.equal(stdout.code, 0, stdout.stderr);
        const lines = stdout.stdout.trim().split('\n');
        assert.equal(lines.length, readings, 'every reading of the device, to stdout');
        assert.equal((JSON.parse(lines[0] ?? '{}') as { device_id: string }).device_id, deviceId);
      });

      test('export offers the herd book: the holding register within --since, the medicine record', async () => {
        const register = await cli(
          [
            'export',
            '--farm',
            farmId,
            '--kind',
            'holding-register',
            '--format',
            'ndjson',
            '--since',
            '2026-03-01T00:00:00Z',
          ],
          env,
        );
        assert.equal(register.code, 0, register.stderr);
        const lines = register.stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as Record<string, unknown>);
        // The sheep moved here (the sample farm's own herd book has cattle movements too).
        assert.deepEqual(
          lines.filter((l) => l.species === 'sheep').map((l) => [l.kind, l.at, l.head_count]),
          [['movement', '2026-04-01T10:00:00.000Z', 20]],
        );
        const csv = await cli(['export', '--farm', farmId, '--kind', 'holding-register'], env);
        assert.equal(csv.code, 0, csv.stderr);
        assert.deepEqual(
          (parse(csv.stdout, { columns: true }) as Record<string, string>[])
            .filter((r) => r.species === 'sheep')
            .map((r) => r.transporter),
          [`'=HYPERLINK("http://evil.example","x")`, `'=HYPERLINK("http://evil.example","x")`],
          'a formula is written behind an apostrophe',
        );
        const record = await cli(['export', '--farm', farmId, '--kind', 'medicine-record'], env);
        assert.equal(record.code, 0, record.stderr);
        assert.equal(record.stdout.split('\n')[0], MEDICINE_RECORD_COLUMNS.join(','));
        const misplaced = await cli(
          ['export', '--farm', farmId, '--kind', 'tasks', '--since', '2026-01-01'],
          env,
        );
        assert.equal(misplaced.code, 2);
      });

      test('usage mistakes exit 2, an unknown farm exits 1', async () => {
        const [noDevice, badKind, noFile, noFarm] = await Promise.all([
          cli(['export', '--farm', farmId, '--kind', 'readings'], env),
          cli(['export', '--farm', farmId, '--kind', 'cows'], env),
          cli(['import', '--farm', farmId, '--from', path.join(dir, 'nope.csv')], env),
          cli(['export', '--farm', 'farm_nope', '--kind', 'tasks'], env),
        ]);
        assert.equal(noDevice.code, 2);
        assert.match(noDevice.stderr, /--device/);
        assert.equal(badKind.code, 2);
        assert.equal(noFile.code, 2);
        assert.equal(noFarm.code, 1);
        assert.match(noFarm.stderr, /No farm with id "farm_nope"/);
      });

      test('import: dry run, the real import, and a bad row that imports nothing (exit 1, row named)', async () => {
        const file = path.join(dir, `new-${engine}.csv`);
        writeFileSync(file, 'species;tag;name\ncattle;CLI-1;Imported one\ncattle;CLI-2;Imported two\n');
        const dry = await cli(['import', '--farm', farmId, '--from', file, '--dry-run', '--json'], env);
        assert.equal(dry.code, 0, dry.stderr);
        const planned = JSON.parse(dry.stdout) as ImportResult;
        assert.equal(planned.dry_run, true);
        assert.equal(planned.created, 2);
        const real = await cli(['import', '--farm', farmId, '--from', file, '--json'], env);
        assert.equal(real.code, 0, real.stderr);
        assert.equal((JSON.parse(real.stdout) as ImportResult).created, 2);
        const again = await cli(['import', '--farm', farmId, '--from', file, '--json'], env);
        assert.equal(
          (JSON.parse(again.stdout) as ImportResult).unchanged,
          2,
          'matched by tag, not duplicated',
        );

        const bad = path.join(dir, `bad-${engine}.csv`);
        writeFileSync(bad, 'species,tag,birth_date\ncattle,CLI-3,2024-01-01\ncattle,CLI-4,someday\n');
        const refused = await cli(['import', '--farm', farmId, '--from', bad], env);
        assert.equal(refused.code, 1);
        assert.match(refused.stderr, /Nothing was imported: row 3, column birth_date/);
        const check = await cli(['import', '--farm', farmId, '--from', bad, '--dry-run'], env);
        assert.equal(check.code, 1, 'a dry run that finds errors fails too');
        assert.match(check.stdout, /3 +birth_date/);
      });

      test('on a terminal, export and import show a progress bar', {
        skip: !hasScript() && 'script (util-linux) is not installed',
      }, async () => {
        const out = path.join(dir, `events-${engine}.csv`);
        const run = await cliOnTty(['export', '--farm', farmId, '--kind', 'events', '--out', out], env);
        assert.equal(run.code, 0, run.output);
        assert.match(run.output, /\rexport events \[#+\.*\] 100%/);
        assert.match(run.output, /\rexport events: \d+ events written to /);
        const file = path.join(dir, `tty-${engine}.csv`);
        writeFileSync(file, 'species,tag\ngoat,TTY-1\n');
        const imported = await cliOnTty(['import', '--farm', farmId, '--from', file], env);
        assert.equal(imported.code, 0, imported.output);
        assert.match(imported.output, /\rimport rows \[#+\] 100%/);
      });
    });
  }
});

test('the guide writes exports into a folder the repository ignores (never an untracked file in the checkout)', () => {
  const root = path.resolve(import.meta.dirname, '..');
  const guide = readFileSync(path.join(root, 'docs/guide/data.md'), 'utf8');
  const outs = [...guide.matchAll(/cli -- export .*--out (\S+)/g)].map((m) => m[1] ?? '');
  assert.ok(outs.length > 0, 'the guide shows cli export with --out');
  for (const out of outs) {
    assert.ok(out.includes('/'), `${out} is in a folder, not loose in the working directory`);
    // Exit 0: ignored (by .gitignore's exports/).
    execFileSync('git', ['check-ignore', '-q', '--no-index', out], { cwd: root });
  }
});
