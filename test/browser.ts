/**
 * A headless Chromium for browser tests: playwright-core drives the Chromium build shipped inside the npm
 * package @sparticuz/chromium (unpacked to the temp folder on first use), so nothing is downloaded when tests
 * run. `openBrowser()` once per file; `newPage()` per test; `screenshot()` takes a picture: into
 * docs/screenshots/ for people to look at when FARMSTEAD_SCREENSHOTS=update, else into the temp folder (so a
 * test run leaves the checkout as it was, and the pictures are still taken and can be looked at).
 */
import { mkdirSync } from 'node:fs';
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
 * The package's own flags, less two kinds:
 *  - --single-process (meant for serverless hosts) ends the browser when its first context closes;
 *  - the GPU emulation (ANGLE over SwiftShader, a GPU in software, in-process): the pages draw nothing that
 *    needs WebGL (uPlot and the map draw on a 2D canvas and in SVG), and plain software rasterising costs
 *    about a third less CPU over the console's tests, for the same pictures.
 */
function browserArgs(): string[] {
  const gpuEmulation =
    /^--(use-gl|use-angle|enable-unsafe-swiftshader|in-process-gpu|ignore-gpu-blocklist)\b/;
  return [
    ...chromium.args.filter((arg) => arg !== '--single-process' && !gpuEmulation.test(arg)),
    '--disable-gpu',
  ];
}

export async function openBrowser(): Promise<TestBrowser> {
  const browser = await playwright.launch({
    executablePath: await chromium.executablePath(),
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
