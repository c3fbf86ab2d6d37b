import assert from 'node:assert/strict';
import { test } from 'node:test';
import { progress } from './output.ts';

/** What `work` writes to stderr (the progress output), with stderr not a terminal. */
function stderrOf(work: () => void): string {
  const write = process.stderr.write;
  const tty = process.stderr.isTTY;
  let text = '';
  process.stderr.isTTY = false;
  process.stderr.write = ((chunk: string) => {
    text += chunk;
    return true;
  }) as typeof process.stderr.write;
  try {
    work();
  } finally {
    process.stderr.write = write;
    process.stderr.isTTY = tty;
  }
  return text;
}

test('progress off a terminal prints a line at most every interval, and a last line', () => {
  let now = 0;
  const text = stderrOf(() => {
    const bar = progress('backup', { everyMs: 2_000, now: () => now });
    bar.update(10, 100);
    now = 1_000;
    bar.update(50, 100);
    now = 2_500;
    bar.update(90, 100);
    bar.done('100 pages copied');
  });
  assert.equal(text, 'backup: 10% (10/100)\nbackup: 90% (90/100)\nbackup: 100 pages copied\n');
});
