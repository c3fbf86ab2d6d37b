/**
 * `npm test`: every test file, in two shards that run side by side (the machine's two cores).
 *
 * Within a shard the test files share one process (`node --test --test-isolation=none`), one after the other:
 * each process loads the whole service (about a thousand modules) and compiles the schemas it uses on first
 * use (src/lib/compile-lazily.ts), and a process per file did that 150 times over. Measured on 2 cores
 * (issue 43): the `src/` tests took 173 s and 282 s of CPU in two shared processes, against 235 s and 427 s
 * with a process per file; the `test/` ones 249 s and 457 s against about 620 s of CPU.
 *
 * A file still gets a process of its own when it must:
 * - it has top-level `before`/`after` hooks: in a shared process Node runs every file's top-level hooks at the
 *   start and the end of the whole run, not around the file's own tests;
 * - it says so with the line `// npm test: a process of its own` (and why, beside it).
 * Those wait in one queue that every shard takes from, one file at a time each, once its shared process has
 * ended; the longest first, by what each took in the last run on this machine (DURATIONS; files with no time
 * yet first, the largest first), so that no shard is left with a long file while the other has nothing to do.
 * Measured (2026-12-01, 2 cores): with a fixed half of them each, one shard ran on alone for the last 28 s,
 * the machine half idle.
 *
 * `node scripts/test.ts [pattern …]` runs the files the patterns match (default: every *.test.ts under src/
 * and test/); a single file is quicker with `node --test path/to/file.test.ts`.
 */
import { spawn } from 'node:child_process';
import { existsSync, globSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';

/**
 * Shards side by side: two, the machine's cores. More were tried twice: three or four files at once measured
 * within the spread (2026-11-30), and on a machine whose speed drifted by a fifth between runs, two shards took
 * 494, 511 and 404 s and three 403 and 482 s, three using more CPU (2026-12-01). NPM_TEST_SHARDS=<n> runs
 * another count, to measure again on another machine.
 */
const SHARDS = Number(process.env.NPM_TEST_SHARDS) || 2;
/**
 * A test that has not ended after this long fails, named, and the run goes on: Node's runner has no limit of
 * its own, and a test waiting for something that never comes (a browser waiting for a service worker that
 * was blocked) held a whole shard open with no word of which test it was. The slowest tests take about a
 * minute on a loaded 2-core machine.
 */
const TEST_TIMEOUT_MS = 10 * 60_000;
const OWN_PROCESS_MARK = '// npm test: a process of its own';
const TOP_LEVEL_HOOK = /^(before|after|beforeEach|afterEach)\(/m;

/**
 * The test processes' young generation, chosen by what a fresh page of memory costs on this machine. Two
 * machines of the same kind (2 cores) disagreed:
 * - where the host takes every freed page back (a fresh page about 15 µs), 4 MB semi-spaces touched a fifth
 *   fewer fresh pages, and the whole suite took 964 s against 1,058 s with V8's own sizing (up to 16 MB);
 * - where a fresh page costs about 2 µs, the same 4 MB made the src/ tests slower: 174–187 s against 160–166 s,
 *   and 178–194 s of the processes' CPU against 155–165 s (three and three runs, alternating).
 * So 4 MB semi-spaces where a page costs more than FRESH_PAGE_LIMIT_US, V8's own sizing elsewhere. Measured
 * once per run, by touching 64 MB (about 30 ms where pages are cheap, 250 ms where they are not). The servers
 * and commands the tests start get an environment of their own (test/processes.ts), without these; NODE_OPTIONS
 * given to `npm test` come after these and win.
 */
const FRESH_PAGE_LIMIT_US = 6;

function freshPageMicros(): number {
  const bytes = 64 << 20;
  const started = process.hrtime.bigint();
  const memory = new Uint8Array(bytes);
  for (let i = 0; i < bytes; i += 4096) memory[i] = 1;
  return Number(process.hrtime.bigint() - started) / 1000 / (bytes / 4096);
}

// NPM_TEST_FRESH_PAGE_US: a figure to use instead of measuring (the runner's own tests choose each way with it).
const pageMicros = Number(process.env.NPM_TEST_FRESH_PAGE_US) || freshPageMicros();
const smallYoungGeneration = pageMicros > FRESH_PAGE_LIMIT_US;
const childEnv = {
  ...process.env,
  NODE_OPTIONS: [smallYoungGeneration ? '--max-semi-space-size=4' : '', process.env.NODE_OPTIONS ?? '']
    .filter(Boolean)
    .join(' '),
};

const patterns = process.argv.length > 2 ? process.argv.slice(2) : ['src/**/*.test.ts', 'test/**/*.test.ts'];
const files = [...new Set(patterns.flatMap((pattern) => globSync(pattern)))].sort();
if (files.length === 0) {
  process.stderr.write(`npm test: no test file matches ${patterns.join(' ')}\n`);
  process.exit(2);
}

function ownProcess(file: string): boolean {
  const text = readFileSync(file, 'utf8');
  return text.includes(OWN_PROCESS_MARK) || TOP_LEVEL_HOOK.test(text);
}

/**
 * What each file with a process of its own took in the last run here, in seconds, by its path from the
 * checkout (so a fresh clone on the same machine, as CI's, finds it): only the queue's order reads it. Files not
 * in it (a new one, or every file on a machine's first run) go first, the largest first: the browser files are
 * the largest and the longest.
 */
const DURATIONS = path.join(tmpdir(), 'farmstead-test-durations.json');

function readDurations(): Record<string, number> {
  try {
    const read: unknown = JSON.parse(readFileSync(DURATIONS, 'utf8'));
    return read && typeof read === 'object' ? (read as Record<string, number>) : {};
  } catch {
    return {};
  }
}

const totals: Record<string, number> = {};
const SUMMARY = /^ℹ (tests|suites|pass|fail|cancelled|skipped|todo) (\d+)$/;

/**
 * Runs `node --test` with `args`, resolving with its exit code. Its output is held and written whole when it
 * ends, under a heading: the two shards' lines interleaved would put tests inside another file's suites.
 */
function nodeTest(heading: string, args: string[]): Promise<{ code: number; seconds: number }> {
  const started = Date.now();
  const out: string[] = [];
  const err: string[] = [];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--test', `--test-timeout=${TEST_TIMEOUT_MS}`, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: childEnv,
    });
    for (const [stream, lines] of [
      [child.stdout, out],
      [child.stderr, err],
    ] as const) {
      createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (line) => {
        const summary = SUMMARY.exec(line);
        if (summary?.[1] && summary[2]) totals[summary[1]] = (totals[summary[1]] ?? 0) + Number(summary[2]);
        lines.push(line);
      });
    }
    child.on('close', (code, signal) => {
      const seconds = (Date.now() - started) / 1000;
      process.stdout.write(`\n── ${heading} (${seconds.toFixed(0)} s)\n${out.join('\n')}\n`);
      if (err.length > 0) process.stderr.write(`${err.join('\n')}\n`);
      resolve({ code: code ?? (signal ? 1 : 0), seconds });
    });
  });
}

const fileCount = (n: number) => `${n} file${n === 1 ? '' : 's'}`;

const durations = readDurations();
const apart = files.filter(ownProcess);
const keyOf = (file: string) => path.relative(process.cwd(), path.resolve(file));
const took = (file: string) => durations[keyOf(file)];
const bytes = (file: string) => statSync(file).size;
const queue = [
  ...apart.filter((file) => took(file) === undefined).sort((a, b) => bytes(b) - bytes(a)),
  ...apart.filter((file) => took(file) !== undefined).sort((a, b) => (took(b) ?? 0) - (took(a) ?? 0)),
];

async function shard(index: number): Promise<number> {
  const shared = files.filter((file, i) => i % SHARDS === index && !apart.includes(file));
  const name = `shard ${index + 1} of ${SHARDS}`;
  const codes: number[] = [];
  if (shared.length > 0) {
    const ran = await nodeTest(`${name}: ${fileCount(shared.length)} in one process`, [
      '--test-isolation=none',
      ...shared,
    ]);
    codes.push(ran.code);
  }
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    const ran = await nodeTest(`${name}: ${file}, a process of its own`, [file]);
    durations[keyOf(file)] = Math.round(ran.seconds * 10) / 10;
    codes.push(ran.code);
  }
  return codes.some((code) => code !== 0) ? 1 : 0;
}

const started = Date.now();
const codes = await Promise.all(Array.from({ length: SHARDS }, (_, i) => shard(i)));
const line = Object.entries(totals)
  .map(([name, n]) => `${name} ${n}`)
  .join(', ');
const youngGeneration = `a fresh page ${pageMicros.toFixed(1)} µs: ${smallYoungGeneration ? '4 MB semi-spaces' : "V8's own semi-spaces"}`;
process.stdout.write(
  `\nnpm test: ${fileCount(files.length)} in ${SHARDS} shards, ${((Date.now() - started) / 1000).toFixed(0)} s; ${line} (${youngGeneration})\n`,
);
try {
  // Files that are gone (another run's temp files among them) are left out.
  const kept = Object.entries(durations).filter(([file]) => !path.isAbsolute(file) && existsSync(file));
  writeFileSync(DURATIONS, `${JSON.stringify(Object.fromEntries(kept))}\n`);
} catch {
  // Only the next run's order is lost.
}
process.exitCode = codes.some((code) => code !== 0) ? 1 : 0;
