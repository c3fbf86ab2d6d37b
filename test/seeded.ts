/**
 * Seeded test databases: a migrated database holding a few accounts with their keys and sample farms, copied for
 * each test app (a file copy on SQLite, `CREATE DATABASE … TEMPLATE` on PostgreSQL) instead of seeding a
 * sample farm through the services for every app. Creating an account is the slowest thing most test apps
 * do (about 0.3 s on SQLite and 1–2 s on PostgreSQL of CPU: a day of readings through ingest and the alert
 * engine); the app's first `account()` or `sharedAccount()` gets the first copied one, the next ones the
 * others (SEEDED_ACCOUNTS in all), and later ones are created as before.
 *
 * The template is made once per code and time slot, under a lock, so parallel test processes build it once:
 * - its key hashes every source file under src/ (the seeding runs the services, so any change to them
 *   makes a new template, and a checkout changing under a running test cannot pair old data with new code);
 * - its slot is five minutes: the sample farm is seeded around the time it was made (readings up to then,
 *   alerts opened and tasks due relative to it), so a copy is at most a few minutes older than an account
 *   made on the spot, which no test tells apart. Older slots' templates are removed when a new one is made.
 * The accounts' keys are only in the template's own database as hashes; the plaintext is kept beside it
 * (a JSON file in the temp folder) for the harness, as createAccount returned it.
 */
import { createHash } from 'node:crypto';
import {
  closeSync,
  copyFileSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import type { Config } from '../src/config.ts';
import { type Engine, openDatabase, sqliteFile } from '../src/db/database.ts';
import type { NewAccount } from '../src/modules/accounts/service.ts';

const SLOT_MS = 5 * 60_000;
/**
 * Accounts in a template: the app's first `account()` or `sharedAccount()` gets the first, later ones the
 * next (a test of two tenants asks for a second), and only past these is one created on the spot.
 */
export const SEEDED_ACCOUNTS = 4;
const ROOT = path.join(tmpdir(), 'farmstead-seeded');

let sourceKey: string | undefined;

/** A hash of every source file under src/ (names and contents): what the seeding ran. */
function codeKey(): string {
  if (sourceKey) return sourceKey;
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
        hash.update(full).update(readFileSync(full));
    }
  };
  const src = path.resolve(import.meta.dirname, '../src');
  walk(src);
  sourceKey = hash.digest('hex').slice(0, 12);
  return sourceKey;
}

function slotName(engine: Engine): string {
  return `farmstead_seeded_${engine === 'postgres' ? 'pg' : 'sq'}_${codeKey()}_${Math.floor(Date.now() / SLOT_MS)}`;
}

function accountFile(name: string): string {
  return path.join(ROOT, `${name}.json`);
}

function readAccounts(name: string): NewAccount[] | null {
  try {
    const accounts: unknown = JSON.parse(readFileSync(accountFile(name), 'utf8'));
    // A file of another layout (an older checkout's) is rebuilt.
    return Array.isArray(accounts) && accounts.length === SEEDED_ACCOUNTS ? (accounts as NewAccount[]) : null;
  } catch {
    return null;
  }
}

/** Seeds the accounts on a database that `config` opens; their keys are written beside the template. */
async function seedOn(config: Pick<Config, 'databaseUrl' | 'dataDir' | 'pgPoolSize'>): Promise<NewAccount[]> {
  // Loaded here, not at the top: process tests import this file's callers without loading the app.
  const { createAccount } = await import('../src/modules/accounts/service.ts');
  const database = await openDatabase(config, { onPoolError: () => {} });
  try {
    const accounts: NewAccount[] = [];
    for (let i = 1; i <= SEEDED_ACCOUNTS; i++)
      accounts.push(await createAccount(database.db, { name: `Seeded test account ${i}` }));
    return accounts;
  } finally {
    await database.close();
  }
}

/**
 * SQLite: the seeded template's folder (its farmstead.db and the accounts), made under a lock file; returns
 * the database file to copy and the accounts.
 */
async function sqliteTemplate(config: Readonly<Config>): Promise<{ file: string; accounts: NewAccount[] }> {
  const name = slotName('sqlite');
  const dir = path.join(ROOT, name);
  mkdirSync(ROOT, { recursive: true });
  const lock = `${dir}.lock`;
  for (;;) {
    const accounts = readAccounts(name);
    if (accounts) return { file: sqliteFile(dir), accounts };
    let fd: number | null = null;
    try {
      fd = openSync(lock, 'wx');
    } catch {
      // Another process builds it; a lock older than a minute belongs to a process that died.
      try {
        if (Date.now() - statSync(lock).mtimeMs > 60_000) rmSync(lock, { force: true });
      } catch {}
      await new Promise((resolve) => setTimeout(resolve, 50));
      continue;
    }
    try {
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      const seeded = await seedOn({ ...config, dataDir: dir, databaseUrl: null });
      writeFileSync(accountFile(name), JSON.stringify(seeded));
      removeOlder('sq', name);
      return { file: sqliteFile(dir), accounts: seeded };
    } finally {
      closeSync(fd);
      rmSync(lock, { force: true });
    }
  }
}

/** Removes this code's older slots' SQLite templates and account files (and any other code's). */
function removeOlder(kind: 'sq' | 'pg', keep: string): void {
  for (const entry of readdirSync(ROOT)) {
    if (!entry.startsWith(`farmstead_seeded_${kind}_`) || entry.startsWith(keep)) continue;
    // Keep the previous slot a while: a process may be copying it right now.
    const full = path.join(ROOT, entry);
    try {
      if (Date.now() - statSync(full).mtimeMs > 2 * SLOT_MS) rmSync(full, { recursive: true, force: true });
    } catch {}
  }
}

/**
 * A copy of the seeded SQLite template into `dataDir` (an empty test folder); returns the seeded accounts.
 */
export async function copySeededSqlite(config: Readonly<Config>): Promise<NewAccount[]> {
  const template = await sqliteTemplate(config);
  copyFileSync(template.file, sqliteFile(config.dataDir));
  return template.accounts;
}

/**
 * PostgreSQL: the seeded template database for this code and slot, cloned from `migratedTemplate` and
 * seeded under an advisory lock (so parallel test processes build it once); its name and accounts.
 * `admin` is a connection to the server, `urlOf` a database's URL on it, `untilUnused` waits for a
 * database's sessions to close.
 */
export async function seededPgTemplate(
  admin: pg.Client,
  migratedTemplate: string,
  urlOf: (name: string) => string,
  untilUnused: (client: pg.Client, name: string) => Promise<void>,
): Promise<{ name: string; accounts: NewAccount[] }> {
  const name = slotName('postgres');
  await admin.query("select pg_advisory_lock(hashtext('farmstead_seeded'))");
  try {
    const found = await admin.query('select 1 from pg_database where datname = $1', [name]);
    const known = readAccounts(name);
    if (found.rowCount && known) return { name, accounts: known };
    const building = `${name}_building`;
    await admin.query(`drop database if exists ${building}`);
    await admin.query(`drop database if exists ${name}`);
    await admin.query(`create database ${building} template ${migratedTemplate}`);
    const accounts = await seedOn({ databaseUrl: urlOf(building), dataDir: '', pgPoolSize: 1 });
    await untilUnused(admin, building);
    await admin.query(`alter database ${building} rename to ${name}`);
    mkdirSync(ROOT, { recursive: true });
    writeFileSync(accountFile(name), JSON.stringify(accounts));
    // Older slots' templates go; one still being cloned from stays for the next build to remove.
    const old = await admin.query(
      "select datname from pg_database where datname like 'farmstead\\_seeded\\_pg\\_%' and datname <> $1",
      [name],
    );
    for (const { datname } of old.rows as { datname: string }[]) {
      await admin.query(`drop database if exists ${datname}`).catch(() => {});
      rmSync(accountFile(datname), { force: true });
    }
    return { name, accounts };
  } finally {
    await admin.query("select pg_advisory_unlock(hashtext('farmstead_seeded'))");
  }
}
