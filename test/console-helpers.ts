/**
 * Browser tests of the console share one server (a real port, SQLite), one browser and one account with
 * its sample farm. Pages are opened at a phone or desktop size; requests to any other host fail the test.
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { NewAccount } from '../src/modules/accounts/service.ts';
import { openBrowser, type TestBrowser } from './browser.ts';
import { startTestApp, type TestApp } from './harness.ts';

export const PHONE = { width: 360, height: 740 };
export const DESKTOP = { width: 1280, height: 800 };

export interface ConsoleWorld {
  t: TestApp;
  base: string;
  browser: TestBrowser;
  account: NewAccount;
  close(): Promise<void>;
}

export async function startConsole(): Promise<ConsoleWorld> {
  const t = await startTestApp('sqlite');
  const base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  const [browser, account] = await Promise.all([openBrowser(), t.account('Willow Creek')]);
  return {
    t,
    base,
    browser,
    account,
    async close() {
      await browser.close();
      await t.close();
    },
  };
}

export interface ConsolePage {
  page: Page;
  /** Requests to other hosts and errors thrown in the page, to assert empty at the end. */
  problems: string[];
}

/** A fresh browser context (no cookies) at the given size, watching for foreign requests and page errors. */
export async function openPage(world: ConsoleWorld, size = DESKTOP): Promise<ConsolePage> {
  const context = await world.browser.browser.newContext({ viewport: size });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(world.base) && !request.url().startsWith('data:')) {
      problems.push(`foreign request ${request.url()}`);
    }
  });
  page.on('pageerror', (error) => problems.push(`page error ${error.message}`));
  return { page, problems };
}

/** Asserts the page is no wider than its viewport (no sideways scrolling on a phone). */
export async function assertNoHorizontalScroll(page: Page): Promise<void> {
  // A string runs in the page (the test code has no DOM types).
  const { scroll, client } = await page.evaluate<{ scroll: number; client: number }>(
    '({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })',
  );
  assert.ok(scroll <= client, `page is ${scroll}px wide in a ${client}px viewport`);
}
