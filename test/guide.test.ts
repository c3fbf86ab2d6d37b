/**
 * The user guide never rots: every fenced `sh runnable` block of docs/guide/*.md runs, in order, in one bash
 * per page (`set -euo pipefail`), against a real server started here on a fresh SQLite data folder with the
 * sample farm, with exactly the environment the quick start's `sh start` block gives `npm start`; `js
 * file=NAME` blocks are saved as NAME first. The page's folder holds links to package.json, src and
 * node_modules, so `npm run cli -- …` works there as in a checkout. The quick start also runs against a
 * server started as the README's Set up says, where it must stop visibly at the step that needs more.
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

/** The environment a documented start line sets: `npm ci && A=1 B=2 npm start` gives {A: '1', B: '2'}. */
export function startEnv(markdown: string, info: RegExp): Record<string, string> {
  const fence = /^```([^\n]*)\n([\s\S]*?)^```$/gm;
  for (const match of markdown.matchAll(fence)) {
    if (!info.test((match[1] ?? '').trim())) continue;
    const line = (match[2] ?? '').split('\n').find((l) => /\bnpm start\b/.test(l));
    if (!line) continue;
    const words = line.slice(0, line.indexOf('npm start')).replace(/^.*&&/, '').trim();
    const env: Record<string, string> = {};
    for (const word of words.split(/\s+/).filter(Boolean)) {
      const assignment = /^([A-Z_][A-Z0-9_]*)=(\S*)$/.exec(word);
      assert.ok(assignment, `the start line "${line}" holds "${word}", which this test cannot follow`);
      env[assignment[1] ?? ''] = assignment[2] ?? '';
    }
    return env;
  }
  throw new Error(`no ${info} block with npm start`);
}

/** A folder to run a page in, with links to package.json, src and node_modules as in a checkout. */
function pageFolder(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'farmstead-guide-'));
  for (const name of ['package.json', 'src', 'node_modules'])
    symlinkSync(path.join(ROOT, name), path.join(dir, name));
  return dir;
}

/** The environment the page's commands run in, against `server`. */
async function readerEnv(server: Server, data: string, dir: string): Promise<Record<string, string>> {
  return {
    ...baseEnv(),
    // Node 24 (this test's) first, as `npm ci` gives a checkout.
    PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? ''}`,
    HOME: process.env.HOME ?? dir,
    FARMSTEAD: server.url,
    FARMSTEAD_DATA: data,
    RECEIVER_PORT: String(await freePort()),
  };
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

/** What a page's output must show beyond its commands succeeding: the steps a quiet failure would skip. */
const SHOWS: Readonly<Record<string, readonly RegExp[]>> = {
  // §5: on a live farm the command reaches the network server, and the device's ack ends it.
  'lorawan.md': [
    /^POST \/api\/devices\/a84041000181c061\/queue Bearer chirpstack-api-key$/m,
    /^\{"queueItem":\{"confirmed":true,"fPort":2,"data":"AwER"\}\}$/m,
    /^delivered$/m,
    /"outcome":"downlink"/,
    /^done$/m,
  ],
};

describe('the user guide runs green', () => {
  const quickStart = readFileSync(path.join(GUIDE, 'quick-start.md'), 'utf8');
  const dir = pageFolder();
  const readmeDir = pageFolder();
  let server: Server;
  let readmeServer: Server;
  let env: Record<string, string>;
  let readmeEnv: Record<string, string>;

  before(async () => {
    const data = path.join(dir, 'data');
    const readmeData = path.join(readmeDir, 'data');
    // LOG_LEVEL only quiets the test's output; everything else is what the reader is told to set.
    [server, readmeServer] = await Promise.all([
      startServer({ ...startEnv(quickStart, /^sh start$/), FARMSTEAD_DATA: data, LOG_LEVEL: 'warn' }),
      startServer({
        ...startEnv(readFileSync(path.join(ROOT, 'README.md'), 'utf8'), /^sh$/),
        FARMSTEAD_DATA: readmeData,
        LOG_LEVEL: 'warn',
      }),
    ]);
    env = await readerEnv(server, data, dir);
    readmeEnv = await readerEnv(readmeServer, readmeData, readmeDir);
  });
  after(async () => {
    await Promise.all([server?.stop(), readmeServer?.stop()]);
    rmSync(dir, { recursive: true, force: true });
    rmSync(readmeDir, { recursive: true, force: true });
  });

  test('the quick start: brief, house, command, device report, alert, verified webhook', async () => {
    const page = runnableParts(quickStart);
    assert.ok(page.scripts.length >= 5);
    const run = await runPage(page, dir, env);
    assert.equal(run.code, 0, run.output);
    assert.match(run.output, /sample farm: farm_/);
    assert.match(run.output, /"feed_pct": \d/, 'step 3 shows the house status');
    assert.match(run.output, /"doors_open": \[/);
    assert.match(run.output, /"status": "done"/);
    assert.match(run.output, /\["[a-z.]+",.*"lights\.set"/, 'the catalog line lists the house commands');
    assert.match(run.output, /"severity": "urgent"/);
    assert.match(run.output, /verified alert\.created/);
    assert.doesNotMatch(run.output, /^null$/m);
  });

  test('the quick start against a server started as the README says stops at the webhook step and says why', async () => {
    const run = await runPage(runnableParts(quickStart), readmeDir, readmeEnv);
    assert.notEqual(run.code, 0, 'a refused step stops the script');
    assert.match(run.output, /sample farm: farm_/, 'the steps before the webhook work');
    assert.match(run.output, /"status": "done"/);
    assert.match(
      run.output,
      /url refused: 127\.0\.0\.1 is a loopback address.*FARMSTEAD_WEBHOOK_ALLOW_PRIVATE=1/,
      "the server's refusal is shown to the reader",
    );
    assert.doesNotMatch(run.output, /verified alert\.created/);
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
      for (const shown of SHOWS[name] ?? []) assert.match(run.output, shown);
    });
  }
});
