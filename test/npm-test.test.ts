/**
 * `npm test`'s runner (scripts/test.ts), on test files of its own written to a temp folder: which files share
 * a shard's process and which get one each, the totals line, and its exit codes (0, 1 for a failing test, 2
 * for patterns that name no file).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { promisify } from 'node:util';

const RUNNER = path.resolve(import.meta.dirname, '../scripts/test.ts');
const run = promisify(execFile);
const tmp = mkdtempSync(path.join(tmpdir(), 'farmstead-npm-test-tmp-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
const DURATIONS = path.join(tmp, 'farmstead-test-durations.json');

/**
 * Runs the runner on `patterns`, as a shell would (without NODE_TEST_CONTEXT, which tells a `node --test`
 * started under this one to answer in the runner's own protocol, not in words); a non-zero exit is returned,
 * not thrown.
 */
async function runner(
  patterns: string[],
  extra: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const { NODE_TEST_CONTEXT: _, NODE_OPTIONS: __, ...rest } = process.env;
  // Its own temp folder: the runner keeps what each file with a process of its own took there. Two shards
  // (whatever the caller's NPM_TEST_SHARDS) unless a test says otherwise: the tests check how files are shared out.
  const env = { ...rest, TMPDIR: tmp, NPM_TEST_SHARDS: '2', ...extra };
  try {
    const { stdout, stderr } = await run(process.execPath, [RUNNER, ...patterns], { env });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const failed = err as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('npm test (scripts/test.ts)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'farmstead-npm-test-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  // Each file prints its process id, so the test can tell which files shared a process.
  const pidTest = (name: string) => `test('${name}', (t) => { t.diagnostic('pid ' + process.pid); });\n`;
  const files: Record<string, string> = {
    'a.test.ts': `import { test } from 'node:test';\n${pidTest('a')}`,
    'b.test.ts': `import { test } from 'node:test';\n${pidTest('b')}`,
    'c.test.ts': `import { test } from 'node:test';\n${pidTest('c')}`,
    'd.test.ts': `import { test } from 'node:test';\n${pidTest('d')}`,
    'hooked.test.ts': `import { after, test } from 'node:test';\nafter(() => {});\n${pidTest('hooked')}`,
    'marked.test.ts': `import { test } from 'node:test';\n// npm test: a process of its own\n${pidTest('marked')}`,
  };
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  writeFileSync(
    path.join(dir, 'failing.test.ts'),
    `import assert from 'node:assert/strict';\nimport { test } from 'node:test';\ntest('fails', () => assert.equal(1, 2));\n`,
  );

  test('files share their shard’s process, but for those with top-level hooks or the mark; the totals add up', async () => {
    const { code, stdout } = await runner(Object.keys(files).map((name) => path.join(dir, name)));
    assert.equal(code, 0, stdout);
    const pids = new Map<string, string>();
    // The spec reporter writes a test's diagnostic under it: "✔ a (…ms)" then "ℹ pid 123".
    for (const [, name, pid] of stdout.matchAll(/✔ (\w+) \([\d.]+ms\)\n\s*ℹ pid (\d+)/g))
      pids.set(name as string, pid as string);
    assert.equal(pids.size, 6, stdout);
    // Sorted, the files alternate between the shards: a, c, hooked in one; b, d, marked in the other.
    assert.equal(pids.get('a'), pids.get('c'), 'a and c share shard 1’s process');
    assert.equal(pids.get('b'), pids.get('d'), 'b and d share shard 2’s process');
    assert.notEqual(pids.get('a'), pids.get('b'), 'the shards are two processes');
    assert.notEqual(
      pids.get('hooked'),
      pids.get('a'),
      'a file with a top-level hook has a process of its own',
    );
    assert.notEqual(pids.get('marked'), pids.get('b'), 'a marked file has a process of its own');
    assert.match(stdout, /── shard 1 of 2: 2 files in one process/);
    assert.match(stdout, /── shard [12] of 2: \S*hooked\.test\.ts, a process of its own/);
    assert.match(stdout, /── shard [12] of 2: \S*marked\.test\.ts, a process of its own/);
    assert.match(stdout, /npm test: 6 files in 2 shards, \d+ s; tests 6, suites 0, pass 6, fail 0/);
  });

  test('two shards unless NPM_TEST_SHARDS says another count', async () => {
    const byDefault = await runner([path.join(dir, 'a.test.ts')], { NPM_TEST_SHARDS: '' });
    assert.equal(byDefault.code, 0, byDefault.stdout);
    assert.match(byDefault.stdout, /npm test: 1 file in 2 shards, \d+ s; tests 1,/);
    const three = await runner([path.join(dir, 'a.test.ts'), path.join(dir, 'b.test.ts')], {
      NPM_TEST_SHARDS: '3',
    });
    assert.equal(three.code, 0, three.stdout);
    assert.match(three.stdout, /── shard 2 of 3: 1 file in one process/);
    assert.match(three.stdout, /npm test: 2 files in 3 shards, \d+ s; tests 2,/);
  });

  test('a failing test makes the run exit 1, with the test named', async () => {
    const { code, stdout } = await runner([path.join(dir, 'a.test.ts'), path.join(dir, 'failing.test.ts')]);
    assert.equal(code, 1, stdout);
    assert.match(stdout, /✖ fails/);
    assert.match(stdout, /npm test: 2 files in 2 shards, \d+ s; tests 2, suites 0, pass 1, fail 1/);
  });

  test('the test processes get 4 MB semi-spaces where a fresh page is dear, V8’s own sizing where it is cheap', async () => {
    const semiSpaces = path.join(dir, 'semi.test.ts');
    writeFileSync(
      semiSpaces,
      `import { test } from 'node:test';\ntest('semi', (t) => { t.diagnostic('options [' + (process.env.NODE_OPTIONS ?? '') + ']'); });\n`,
    );
    try {
      const dear = await runner([semiSpaces], { NPM_TEST_FRESH_PAGE_US: '15' });
      assert.equal(dear.code, 0, dear.stdout);
      assert.match(dear.stdout, /options \[--max-semi-space-size=4\]/);
      assert.match(dear.stdout, /\(a fresh page 15\.0 µs: 4 MB semi-spaces\)/);
      const cheap = await runner([semiSpaces], {
        NPM_TEST_FRESH_PAGE_US: '2',
        NODE_OPTIONS: '--no-warnings',
      });
      assert.equal(cheap.code, 0, cheap.stdout);
      assert.match(cheap.stdout, /options \[--no-warnings\]/, 'the caller’s NODE_OPTIONS are kept');
      assert.match(cheap.stdout, /\(a fresh page 2\.0 µs: V8's own semi-spaces\)/);
    } finally {
      rmSync(semiSpaces, { force: true });
    }
  });

  test('files with a process of its own are taken from one queue, the longest in the last run first; a new one before all', async () => {
    const hooked = path.join(dir, 'hooked.test.ts');
    const marked = path.join(dir, 'marked.test.ts');
    const fresh = path.join(dir, 'fresh.test.ts');
    // The runner keeps each file's time by its path from where it runs (the checkout), as this test runs it.
    const key = (file: string) => path.relative(process.cwd(), file);
    // With no shared files, shard 1 takes the queue's first file and shard 2 its second.
    const first = async (files: string[]) => {
      const { code, stdout } = await runner(files);
      assert.equal(code, 0, stdout);
      return /── shard 1 of 2: (\S+), a process of its own/.exec(stdout)?.[1];
    };
    writeFileSync(DURATIONS, JSON.stringify({ [key(hooked)]: 1, [key(marked)]: 100 }));
    assert.equal(await first([hooked, marked]), marked);
    // 0.001 s, which no run of a file measures (times are kept to a tenth of a second): a loaded machine's
    // run of this tiny file took 1.0 s once, the time planted before, and the check below took it for kept.
    writeFileSync(DURATIONS, JSON.stringify({ [key(hooked)]: 100, [key(marked)]: 0.001 }));
    assert.equal(await first([hooked, marked]), hooked);
    const kept = JSON.parse(readFileSync(DURATIONS, 'utf8')) as Record<string, number>;
    assert.deepEqual(
      Object.keys(kept).sort(),
      [key(hooked), key(marked)].sort(),
      'each file’s time is kept for the next run',
    );
    assert.ok(
      (kept[key(hooked)] ?? 100) < 100 && kept[key(marked)] !== 0.001,
      'the times are this run’s, not the planted ones',
    );
    // A file with no time goes before those with one, and among such files the largest first.
    const padding = `// ${'larger than the others '.repeat(10)}\n`;
    writeFileSync(
      fresh,
      `import { after, test } from 'node:test';\n${padding}after(() => {});\n${pidTest('fresh')}`,
    );
    try {
      assert.equal(await first([hooked, marked, fresh]), fresh);
      writeFileSync(DURATIONS, '{}');
      assert.equal(await first([hooked, marked, fresh]), fresh, 'fresh.test.ts is the largest of the three');
    } finally {
      rmSync(fresh, { force: true });
    }
  });

  test('patterns that name no file exit 2 and say so', async () => {
    const { code, stderr } = await runner([path.join(dir, 'none-*.test.ts')]);
    assert.equal(code, 2);
    assert.match(stderr, /npm test: no test file matches .*none-\*\.test\.ts/);
  });
});
