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
 * Those run in the same shard, one at a time, after its shared process.
 *
 * `node scripts/test.ts [pattern …]` runs the files the patterns match (default: every *.test.ts under src/
 * and test/); a single file is quicker with `node --test path/to/file.test.ts`.
 */
import { spawn } from 'node:child_process';
import { globSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const SHARDS = 2;
/**
 * A test that has not ended after this long fails, named, and the run goes on: Node's runner has no limit of
 * its own, and a test waiting for something that never comes (a browser waiting for a service worker that
 * was blocked) held a whole shard open with no word of which test it was. The slowest tests take about a
 * minute on a loaded 2-core machine.
 */
const TEST_TIMEOUT_MS = 10 * 60_000;
const OWN_PROCESS_MARK = '// npm test: a process of its own';
const TOP_LEVEL_HOOK = /^(before|after|beforeEach|afterEach)\(/m;

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

const totals: Record<string, number> = {};
const SUMMARY = /^ℹ (tests|suites|pass|fail|cancelled|skipped|todo) (\d+)$/;

/**
 * Runs `node --test` with `args`, resolving with its exit code. Its output is held and written whole when it
 * ends, under a heading: the two shards' lines interleaved would put tests inside another file's suites.
 */
function nodeTest(heading: string, args: string[]): Promise<number> {
  const started = Date.now();
  const out: string[] = [];
  const err: string[] = [];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--test', `--test-timeout=${TEST_TIMEOUT_MS}`, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
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
      const seconds = ((Date.now() - started) / 1000).toFixed(0);
      process.stdout.write(`\n── ${heading} (${seconds} s)\n${out.join('\n')}\n`);
      if (err.length > 0) process.stderr.write(`${err.join('\n')}\n`);
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

const fileCount = (n: number) => `${n} file${n === 1 ? '' : 's'}`;

async function shard(index: number): Promise<number> {
  const mine = files.filter((_, i) => i % SHARDS === index);
  const apart = mine.filter(ownProcess);
  const shared = mine.filter((file) => !apart.includes(file));
  const name = `shard ${index + 1} of ${SHARDS}`;
  const codes: number[] = [];
  if (shared.length > 0)
    codes.push(
      await nodeTest(`${name}: ${fileCount(shared.length)} in one process`, [
        '--test-isolation=none',
        ...shared,
      ]),
    );
  if (apart.length > 0)
    codes.push(
      await nodeTest(`${name}: ${fileCount(apart.length)}, a process each`, [
        '--test-concurrency=1',
        ...apart,
      ]),
    );
  return codes.some((code) => code !== 0) ? 1 : 0;
}

const started = Date.now();
const codes = await Promise.all(Array.from({ length: SHARDS }, (_, i) => shard(i)));
const line = Object.entries(totals)
  .map(([name, n]) => `${name} ${n}`)
  .join(', ');
process.stdout.write(
  `\nnpm test: ${files.length} files in ${SHARDS} shards, ${((Date.now() - started) / 1000).toFixed(0)} s; ${line}\n`,
);
process.exitCode = codes.some((code) => code !== 0) ? 1 : 0;
