/**
 * Starts the real service (`src/main.ts serve`) as a child process on a fresh database, the way a user
 * runs it, and measures its peak memory from /proc (VmHWM: the high-water mark of resident memory).
 */
import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../test/throwaway.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const MAIN = path.join(ROOT, 'src/main.ts');
const HELLO = path.resolve(import.meta.dirname, 'hello.ts');

/**
 * The server command exactly as `npm start` runs it (package.json), so Node flags and environment set
 * there are measured too: variables set before `node` (their shell defaults expanded by the shell), node
 * flags, the script, its arguments.
 */
export function startCommand(): {
  env: Record<string, string>;
  nodeArgs: string[];
  script: string;
  args: string[];
} {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    scripts?: { start?: string };
  };
  const parts = (pkg.scripts?.start ?? 'node src/main.ts serve').trim().split(/\s+/);
  const env: Record<string, string> = {};
  while (parts[0] && /^[A-Z_][A-Z0-9_]*=/.test(parts[0])) {
    const assignment = parts.shift() as string;
    const name = assignment.slice(0, assignment.indexOf('='));
    env[name] = execFileSync('sh', ['-c', `${assignment}; printf %s "$${name}"`], { encoding: 'utf8' });
  }
  // `exec node …` (the shell replaces itself with node, so signals reach the server) runs node all the same.
  if (parts[0] === 'exec') parts.shift();
  const at = parts.findIndex((p) => /\.(ts|js|mjs)$/.test(p));
  if (parts[0] !== 'node' || at < 0) return { env, nodeArgs: [], script: MAIN, args: ['serve'] };
  return {
    env,
    nodeArgs: parts.slice(1, at),
    script: path.join(ROOT, parts[at] ?? ''),
    args: parts.slice(at + 1),
  };
}
const run = promisify(execFile);

export interface RunningServer {
  port: number;
  pid: number;
  env: Record<string, string>;
  /** Peak resident memory of the server so far, in MB (Linux). */
  peakRssMb(): number;
  /** Resets nothing (the kernel keeps the high-water mark); read before and after a phase. */
  currentRssMb(): number;
  stop(): Promise<void>;
  cli(args: string[]): Promise<string>;
}

function procStatus(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(text);
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Starts the server as `npm start` does; `args` are extra Node flags (e.g. --cpu-prof). */
export async function startServer(env: Record<string, string>, args: string[] = []): Promise<RunningServer> {
  const command = startCommand();
  // BENCH_SERVER_NODE_OPTIONS tries Node settings (e.g. heap caps) on the server without editing package.json.
  const options = process.env.BENCH_SERVER_NODE_OPTIONS;
  const fullEnv = { ...command.env, ...env, ...(options ? { NODE_OPTIONS: options } : {}) };
  // BENCH_SERVER_ARGS: Node and V8 flags NODE_OPTIONS refuses (e.g. --trace-gc), after npm start's own.
  const extra = process.env.BENCH_SERVER_ARGS?.split(/\s+/).filter(Boolean) ?? [];
  return startProcess(command.script, command.args, '/healthz', fullEnv, [
    ...command.nodeArgs,
    ...args,
    ...extra,
  ]);
}

/**
 * Peak RSS of this process's child processes (servers started by any bench code) while it runs: polls
 * /proc for children and keeps the highest VmHWM seen. `stop()` returns it in MB.
 */
export function watchChildrenPeakRss(everyMs = 100): { stop(): number } {
  let peak = 0;
  const sample = () => {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        if (ppid === process.pid) peak = Math.max(peak, procStatus(Number(entry), 'VmHWM'));
      } catch {
        // The process ended between the listing and the read.
      }
    }
  };
  const timer = setInterval(sample, everyMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return peak;
    },
  };
}

/** The reference: a bare Fastify hello-world, started the same way (answers GET /). */
export async function startHello(): Promise<RunningServer> {
  return startProcess(HELLO, [], '/', {}, []);
}

async function startProcess(
  script: string,
  scriptArgs: string[],
  readyPath: string,
  env: Record<string, string>,
  nodeArgs: string[],
): Promise<RunningServer> {
  const port = await freePort();
  const fullEnv = {
    PATH: process.env.PATH ?? '',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    PORT: String(port),
    // The load generator drives a few keys far past any client's rate; it measures the service, not the limits.
    FARMSTEAD_RATE_LIMIT: 'off',
    ...env,
  };
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, script, ...scriptArgs], {
    env: fullEnv,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // BENCH_SERVER_STDOUT: a file the servers' standard output is appended to (e.g. a --trace-gc log).
  const keep = process.env.BENCH_SERVER_STDOUT;
  if (keep) child.stdout?.pipe(createWriteStream(keep, { flags: 'a' }));
  else child.stdout?.resume();
  let ready = false;
  for (let i = 0; i < 600 && !ready; i++) {
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}`);
    ready = await fetch(`http://127.0.0.1:${port}${readyPath}`).then(
      (r) => r.ok,
      () => false,
    );
    if (!ready) await new Promise((r) => setTimeout(r, 100));
  }
  if (!ready) throw new Error(`${script} did not answer on port ${port}`);
  const pid = child.pid ?? 0;
  return {
    port,
    pid,
    env: fullEnv,
    peakRssMb: () => procStatus(pid, 'VmHWM'),
    currentRssMb: () => procStatus(pid, 'VmRSS'),
    async stop() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
    async cli(cliArgs: string[]) {
      const { stdout } = await run(process.execPath, [MAIN, ...cliArgs], {
        env: fullEnv,
        maxBuffer: 1 << 26,
      });
      return stdout;
    },
  };
}
