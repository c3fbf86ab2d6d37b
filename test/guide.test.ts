/**
 * The user guide never rots: every fenced `sh runnable` block of docs/guide/*.md runs, in order, in one bash
 * per page (`set -euo pipefail`), against a real server started here on a fresh SQLite data folder with the
 * sample farm; `js file=NAME` blocks are saved as NAME first. The page's folder holds links to package.json,
 * src and node_modules, so `npm run cli -- …` works there as in a checkout.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { baseEnv, freePort, type Server, startServer } from './processes.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const GUIDE = path.join(ROOT, 'docs/guide');

interface Page {
  scripts: string[];
  files: { name: string; text: string }[];
}

/** The runnable parts of a page, from its fenced blocks' info strings. */
export function runnableParts(markdown: string): Page {
  const page: Page = { scripts: [], files: [] };
  const fence = /^```([^\n]*)\n([\s\S]*?)^```$/gm;
  for (const match of markdown.matchAll(fence)) {
    const info = (match[1] ?? '').trim().split(/\s+/);
    const body = match[2] ?? '';
    if (info[0] === 'sh' && info.includes('runnable')) page.scripts.push(body);
    const file = info.find((word) => word.startsWith('file='));
    if (file) page.files.push({ name: file.slice('file='.length), text: body });
  }
  return page;
}

async function runPage(page: Page, dir: string, env: Record<string, string>) {
  for (const file of page.files) writeFileSync(path.join(dir, file.name), file.text);
  const script = ['set -euo pipefail', ...page.scripts].join('\n');
  // Its own process group: a background process the page starts (a receiver) is ended with it.
  const child = spawn('bash', ['-c', script], {
    cwd: dir,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d) => {
    output += String(d);
  });
  child.stderr?.on('data', (d) => {
    output += String(d);
  });
  const timer = setTimeout(() => process.kill(-(child.pid ?? 0), 'SIGKILL'), 120_000);
  const [code] = await once(child, 'exit');
  clearTimeout(timer);
  try {
    process.kill(-(child.pid ?? 0), 'SIGTERM');
  } catch {
    // The group has already gone.
  }
  return { code: code as number, output };
}

describe('the user guide runs green', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'farmstead-guide-'));
  let server: Server;
  let env: Record<string, string>;

  before(async () => {
    for (const name of ['package.json', 'src', 'node_modules'])
      symlinkSync(path.join(ROOT, name), path.join(dir, name));
    const data = path.join(dir, 'data');
    server = await startServer({
      FARMSTEAD_DATA: data,
      FARMSTEAD_WEBHOOK_ALLOW_PRIVATE: '1',
      LOG_LEVEL: 'warn',
    });
    env = {
      ...baseEnv(),
      // Node 24 (this test's) first, as `npm ci` gives a checkout.
      PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? ''}`,
      HOME: process.env.HOME ?? dir,
      FARMSTEAD: server.url,
      FARMSTEAD_DATA: data,
      RECEIVER_PORT: String(await freePort()),
    };
  });
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the quick start: brief, house, command, device report, alert, verified webhook', async () => {
    const page = runnableParts(readFileSync(path.join(GUIDE, 'quick-start.md'), 'utf8'));
    assert.ok(page.scripts.length >= 5);
    const run = await runPage(page, dir, env);
    assert.equal(run.code, 0, run.output);
    assert.match(run.output, /sample farm: farm_/);
    assert.match(run.output, /"status": "done"/);
    assert.match(run.output, /"severity": "urgent"/);
    assert.match(run.output, /verified alert\.created/);
  });

  for (const name of readdirSync(GUIDE).filter((f) => f.endsWith('.md') && f !== 'quick-start.md')) {
    test(`docs/guide/${name}: its runnable commands succeed`, async (t) => {
      const page = runnableParts(readFileSync(path.join(GUIDE, name), 'utf8'));
      if (page.scripts.length === 0) {
        t.skip('no runnable blocks (configuration snippets only)');
        return;
      }
      const run = await runPage(page, dir, env);
      assert.equal(run.code, 0, run.output);
    });
  }
});
