/**
 * `backup` and `restore`. SQLite: node:sqlite's online backup API copies the database page by page while
 * the server keeps writing (WAL); a write from another connection restarts the copy, so each step copies
 * many pages to finish within a busy server's gaps. PostgreSQL: pg_dump and pg_restore do this job better
 * than we could; the command says how and checks the server's version against the local tools.
 */
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { backup, DatabaseSync } from 'node:sqlite';
import { promisify } from 'node:util';
import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { CliFailure, printJson, printRecord, progress } from './output.ts';

/** Pages per backup step (4 KiB each): big enough to finish between writes, small enough to show progress. */
const PAGES_PER_STEP = 2_000;

async function copySqlite(from: DatabaseSync, to: string, label: string): Promise<number> {
  const bar = progress(label);
  const pages = await backup(from, to, {
    rate: PAGES_PER_STEP,
    progress: ({ totalPages, remainingPages }) => bar.update(totalPages - remainingPages, totalPages),
  });
  bar.done(`${pages} pages copied`);
  chmodSync(to, 0o600);
  return pages;
}

/** PostgreSQL's answer: exit 1 with the commands to run, after checking the server and local tool versions. */
async function postgresAdvice(databaseUrl: string, what: 'backup' | 'restore', file: string): Promise<never> {
  // Imported here: the driver's module brings Kysely (its statement names), which `--help` does not need.
  const { loadPg } = await import('../db/pg-driver.ts');
  const pg = await loadPg();
  const client = new pg.Client({ connectionString: databaseUrl });
  let server = 'unknown (could not connect)';
  try {
    await client.connect();
    const { rows } = await client.query<{ server_version: string }>('show server_version');
    server = rows[0]?.server_version ?? server;
  } catch (err) {
    server = `unknown (could not connect: ${(err as Error).message})`;
  } finally {
    await client.end().catch(() => {});
  }
  let local = 'not found on PATH';
  try {
    const { stdout } = await promisify(execFile)(what === 'backup' ? 'pg_dump' : 'pg_restore', ['--version']);
    local = stdout.trim();
  } catch {
    // Not installed here: the advice below still holds.
  }
  const command =
    what === 'backup'
      ? `pg_dump --format=custom --file=${file} "$DATABASE_URL"`
      : `pg_restore --clean --if-exists --no-owner --dbname="$DATABASE_URL" ${file}`;
  throw new CliFailure(
    [
      `On PostgreSQL, Farmstead does not ${what} itself: use the PostgreSQL tools, which work while the server runs.`,
      `  ${command}`,
      `PostgreSQL server version: ${server}`,
      `Local ${what === 'backup' ? 'pg_dump' : 'pg_restore'}: ${local}`,
      'pg_dump must be the same major version as the server or newer.',
    ].join('\n'),
  );
}

function isFarmsteadDatabase(file: string): boolean {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const row = db.prepare("select count(*) as n from sqlite_master where name = 'kysely_migration'").get();
    return Number(row?.n) === 1;
  } catch {
    return false;
  } finally {
    db.close();
  }
}

export function registerBackup(program: Command): void {
  program
    .command('backup')
    .description('copy the SQLite database to FILE while the server runs (PostgreSQL: explains pg_dump)')
    .requiredOption('--to <file>', 'the backup file to write (must not exist)')
    .option('--json', 'print JSON')
    .action(async (options: { to: string; json?: boolean }) => {
      const config = loadConfig();
      const target = path.resolve(options.to);
      if (config.databaseUrl) return postgresAdvice(config.databaseUrl, 'backup', target);
      const { sqliteFile } = await import('../db/database.ts');
      const source = sqliteFile(config.dataDir);
      if (!existsSync(source)) throw new CliFailure(`no database at ${source} (FARMSTEAD_DATA)`);
      if (existsSync(target)) throw new CliFailure(`${target} exists; choose a new file`);
      mkdirSync(path.dirname(target), { recursive: true });
      // Its own connection: the server's connection is in another process; WAL lets both read and write.
      const db = new DatabaseSync(source);
      try {
        const pages = await copySqlite(db, target, 'backup');
        const out = { file: target, pages, bytes: statSync(target).size };
        if (options.json) printJson(out);
        else printRecord(out);
      } finally {
        db.close();
      }
    });

  program
    .command('restore')
    .description('restore a backup into an empty data folder (PostgreSQL: explains pg_restore)')
    .requiredOption('--from <file>', 'the backup file')
    .option('--force', 'overwrite an existing database (stop the server first)')
    .option('--json', 'print JSON')
    .action(async (options: { from: string; force?: boolean; json?: boolean }) => {
      const config = loadConfig();
      const from = path.resolve(options.from);
      if (config.databaseUrl) return postgresAdvice(config.databaseUrl, 'restore', from);
      if (!existsSync(from)) throw new CliFailure(`no backup at ${from}`);
      if (!isFarmsteadDatabase(from)) throw new CliFailure(`${from} is not a Farmstead SQLite database`);
      const { ensureDataDir, sqliteFile } = await import('../db/database.ts');
      const target = sqliteFile(config.dataDir);
      if (existsSync(target) && statSync(target).size > 0 && !options.force) {
        throw new CliFailure(
          `${target} already holds a database; restore into an empty FARMSTEAD_DATA folder, or stop the server and pass --force to overwrite it`,
        );
      }
      ensureDataDir(config.dataDir);
      const db = new DatabaseSync(from);
      try {
        // The backup API writes the target through SQLite's own locking, so a forced restore replaces
        // pages (and its WAL) coherently instead of copying a file under a reader's feet.
        const pages = await copySqlite(db, target, 'restore');
        const out = { file: target, pages };
        if (options.json) printJson(out);
        else printRecord(out);
      } finally {
        db.close();
      }
    });
}
