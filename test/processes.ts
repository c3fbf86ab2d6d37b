/**
 * Real Farmstead processes for tests: `cli(args)` runs one command to its end; `startServer(env)` runs
 * `serve` on a free port and resolves once /readyz answers 200.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { createAccount, type NewAccount } from '../src/modules/accounts/service.ts';
import { waitFor } from './engines.ts';
import { freePort, onFreePort } from './throwaway.ts';

export const MAIN = path.resolve(import.meta.dirname, '../src/main.ts');

/**
 * Node's compile cache (TypeScript stripped and compiled once, then read back) for every process a test
 * starts: each start loads the whole service, and the cache cuts the CPU that costs by about a third. Set
 * by `npm test` for the test files too; a cached module is checked against its source, so it never goes stale.
 */
const COMPILE_CACHE = process.env.NODE_COMPILE_CACHE ?? path.join(tmpdir(), 'farmstead-compile-cache');

/** The environment every Farmstead child process starts from: PATH and the compile cache. */
export function baseEnv(): Record<string, string> {
  return { PATH: process.env.PATH ?? '', NODE_COMPILE_CACHE: COMPILE_CACHE };
}

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export function cli(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [MAIN, ...args], { env: { ...baseEnv(), ...env } }, (err, stdout, stderr) => {
      const code = err ? Number((err as { code?: number }).code ?? 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * Creates an account on the database a child's `env` names (DATABASE_URL or FARMSTEAD_DATA), in this
 * process, the way `cli accounts create` does (same config, migrations, service), and returns what that
 * prints with --json (ids and keys). For tests not about that command: a CLI process loads much of the
 * service, which costs more CPU than the account.
 */
export async function createAccountDirect(env: Record<string, string>, name: string): Promise<NewAccount> {
  const database = await openDatabase(loadConfig(env));
  try {
    return await createAccount(database.db, { name });
  } finally {
    await database.close();
  }
}

export { freePort };

/**
 * The Node flags `npm start` gives the server (package.json's start script: the heap cap and the like), for a
 * test that must run the server under the production limits.
 */
export function npmStartNodeArgs(): string[] {
  const pkg = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../package.json'), 'utf8')) as {
    scripts?: { start?: string };
  };
  const parts = (pkg.scripts?.start ?? '').trim().split(/\s+/);
  const node = parts.indexOf('node');
  const script = parts.findIndex((p) => /\.(ts|js|mjs)$/.test(p));
  return node < 0 || script < 0 ? [] : parts.slice(node + 1, script);
}

export interface Server {
  child: ChildProcess;
  url: string;
  output: { text: string };
  stop(): Promise<number | null>;
}

/**
 * A server on a free port; one taken before the server listened makes it exit saying so, and it is started
 * again on another (onFreePort).
 */
export function startServer(
  env: Record<string, string>,
  options: { nodeArgs?: string[] } = {},
): Promise<Server> {
  return onFreePort((port) => startServerOn(port, env, options), /PORT \d+ is already in use/);
}

async function startServerOn(
  port: number,
  env: Record<string, string>,
  options: { nodeArgs?: string[] },
): Promise<Server> {
  // A server given no data folder gets a throwaway one (removed when it stops), never ./data of the checkout.
  const ownData = env.FARMSTEAD_DATA ? null : mkdtempSync(path.join(tmpdir(), 'farmstead-server-'));
  const removeOwnData = () => {
    if (ownData) rmSync(ownData, { recursive: true, force: true });
  };
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), MAIN, 'serve'], {
    env: {
      ...baseEnv(),
      LOG_LEVEL: 'info',
      FARMSTEAD_LOG_FORMAT: 'json',
      ...(ownData ? { FARMSTEAD_DATA: ownData } : {}),
      ...env,
      PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { text: '' };
  child.stdout?.on('data', (d) => {
    output.text += String(d);
  });
  child.stderr?.on('data', (d) => {
    output.text += String(d);
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    // Generous: on a loaded machine (many test runs at once) a start has taken close to a minute.
    await waitFor(
      'the server to be ready',
      async () => {
        if (child.exitCode !== null) throw new Error(`server exited: ${output.text}`);
        return (await fetch(`${url}/readyz`).catch(() => null))?.status === 200;
      },
      120_000,
    );
  } catch (err) {
    // A server that never got ready is not left running (it would hold the test run open).
    child.kill('SIGKILL');
    removeOwnData();
    throw err;
  }
  child.once('exit', removeOwnData);
  return {
    child,
    url,
    output,
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const [code] = await once(child, 'exit');
      return code as number | null;
    },
  };
}

/**
 * One server per environment, started at once (a start is mostly loading code: in parallel they overlap).
 * If one fails to start, the others are stopped before the error is thrown.
 */
export async function startServers(envs: Record<string, string>[]): Promise<Server[]> {
  const started = await Promise.allSettled(envs.map((env) => startServer(env)));
  const servers = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) {
    await Promise.all(servers.map((s) => s.stop()));
    throw failed.reason;
  }
  return servers;
}
