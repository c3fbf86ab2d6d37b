/**
 * A headless Chromium for browser tests: playwright-core drives the Chromium build shipped inside the npm
 * package @sparticuz/chromium (unpacked to the temp folder on first use), so nothing is downloaded when tests
 * run. `openBrowser()` once per file; `newPage()` per test; `screenshot()` takes a picture: into
 * docs/screenshots/ for people to look at when FARMSTEAD_SCREENSHOTS=update, else into the temp folder (so a
 * test run leaves the checkout as it was, and the pictures are still taken and can be looked at).
 */
import { mkdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import chromium from '@sparticuz/chromium';
import { type Browser, type Page, chromium as playwright } from 'playwright-core';

export const SCREENSHOTS =
  process.env.FARMSTEAD_SCREENSHOTS === 'update'
    ? path.resolve(import.meta.dirname, '../docs/screenshots')
    : path.join(os.tmpdir(), 'farmstead-screenshots');

export interface TestBrowser {
  browser: Browser;
  newPage(options?: { width?: number; height?: number }): Promise<Page>;
  close(): Promise<void>;
}

/**
 * The package's own flags, less three kinds:
 *  - --single-process (meant for serverless hosts) ends the browser when its first context closes;
 *  - --no-zygote (also for serverless hosts): without it each new renderer (one per browser context;
 *    `console-shell.test.ts` alone starts 37) is forked from Chromium's zygote, already started, instead of
 *    executing the binary afresh. A context with one page then cost 250 ms of the machine's CPU against
 *    415 ms, and the console's thirteen browser files 566 s against 587 s (all processes' busy time from
 *    /proc/stat: the forked renderers are not the test process's children, so its own CPU figures would
 *    flatter it);
 *  - the GPU emulation (ANGLE over SwiftShader, a GPU in software, in-process): the pages draw nothing that
 *    needs WebGL (uPlot and the map draw on a 2D canvas and in SVG), and plain software rasterising costs
 *    about a third less CPU over the console's tests, for the same pictures.
 */
function browserArgs(): string[] {
  const gpuEmulation =
    /^--(use-gl|use-angle|enable-unsafe-swiftshader|in-process-gpu|ignore-gpu-blocklist)\b/;
  return [
    ...chromium.args.filter(
      (arg) => arg !== '--single-process' && arg !== '--no-zygote' && !gpuEmulation.test(arg),
    ),
    '--disable-gpu',
  ];
}

/**
 * The Chromium binary, unpacked by the package into the temp folder on a machine's first use. Test files run
 * in parallel, and the package checks only that the file exists: a second file could start the binary while
 * the first was still writing it (`spawn ETXTBSY` on a fresh machine). So the unpacking is one process's at a
 * time, under a lock folder made atomically; a lock older than two minutes is a killed run's, and is taken over.
 */
async function chromiumPath(): Promise<string> {
  const lock = path.join(os.tmpdir(), 'farmstead-chromium.lock');
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      let age = 0;
      try {
        age = Date.now() - statSync(lock).mtimeMs;
      } catch {
        continue; // released meanwhile
      }
      if (age > 120_000) rmSync(lock, { recursive: true, force: true });
      else await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  try {
    return await chromium.executablePath();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

export async function openBrowser(): Promise<TestBrowser> {
  const browser = await playwright.launch({
    executablePath: await chromiumPath(),
    args: browserArgs(),
    headless: true,
  });
  return {
    browser,
    newPage: ({ width = 1280, height = 900 } = {}) => browser.newPage({ viewport: { width, height } }),
    close: () => browser.close(),
  };
}

/** Saves a screenshot as <SCREENSHOTS>/<name>.png and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const file = path.join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: false });
  return file;
}
