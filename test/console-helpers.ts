/**
 * Browser tests of the console share one server (a real port, SQLite), one browser and one account with
 * its sample farm. Pages are opened at a phone or desktop size; requests to any other host fail the test.
 */
import assert from 'node:assert/strict';
import type { CDPSession, Locator, Page } from 'playwright-core';
import type { Config } from '../src/config.ts';
import type { RoleName } from '../src/domain/permissions.ts';
import type { NewAccount } from '../src/modules/accounts/service.ts';
import { openBrowser, type TestBrowser } from './browser.ts';
import { startTestApp, type TestApp, waitFor } from './harness.ts';
import { signedInPerson } from './people.ts';

export const PHONE = { width: 360, height: 740 };
export const DESKTOP = { width: 1280, height: 800 };

export interface ConsoleWorld {
  t: TestApp;
  base: string;
  browser: TestBrowser;
  account: NewAccount;
  close(): Promise<void>;
}

/** One server for a test file's browser steps; `overrides` sets its config (the map's tiles, say). */
export async function startConsole(overrides: Partial<Config> = {}): Promise<ConsoleWorld> {
  // Webhook receivers in tests listen on 127.0.0.1.
  const t = await startTestApp('sqlite', { webhookAllowPrivate: true, ...overrides });
  const base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  // A browser that cannot start fails the file's tests; the server is closed, or the file would never end.
  const started = await Promise.allSettled([openBrowser(), t.account('Willow Creek')]);
  const [opened, made] = started;
  if (opened.status === 'rejected' || made.status === 'rejected') {
    if (opened.status === 'fulfilled') await opened.value.close();
    await t.close();
    throw opened.status === 'rejected' ? opened.reason : (made as PromiseRejectedResult).reason;
  }
  const browser = opened.value;
  const account = made.value;
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

/** How a test's browser context is opened. */
export interface PageOptions {
  locale?: string;
  timezoneId?: string;
  /**
   * Let the console's service worker install (docs/offline.md): for a test of what it does (a page opened
   * without a network, Background Sync, push, its caches). Without it the context blocks the worker, as
   * some browsers' private windows do, and the console runs on the network alone. Its install caches every
   * file of the console version (about 180) in each new context: measured over test/console-map.test.ts,
   * Chromium's CPU fell from 45 to 25 s and the file's time from 40 to 29 s without it (issue 43).
   */
  serviceWorker?: boolean;
}

/**
 * A fresh browser context (no cookies) at the given size, watching for foreign requests and page errors.
 * The browser's language is the machine's own unless `locale` is given (no fixed `en-US`: the console must
 * work in any language setting, even one that is not a valid language tag, such as `en-US@posix`).
 */
export async function openPage(
  world: ConsoleWorld,
  size = DESKTOP,
  options: PageOptions = {},
): Promise<ConsolePage> {
  const context = await world.browser.browser.newContext({
    viewport: size,
    serviceWorkers: options.serviceWorker ? 'allow' : 'block',
    timezoneId: options.timezoneId ?? 'America/Chicago',
    ...(options.locale ? { locale: options.locale } : {}),
  });
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

/**
 * The facts (`dl.facts`) whose value went under its name but not right under it: drifted down the row
 * when the fact beside it made the row taller. Empty when every value sits beside or under its name.
 */
export function valuesAdrift(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`(() => {
    const out = [];
    // The words' own boxes (a stretched flex line makes the name's element as tall as the gap); two lines'
    // words lie about 6 px apart, a drifted value 18 or more.
    const words = (el) => { if (!el) return null; const r = document.createRange(); r.selectNodeContents(el); return r.getBoundingClientRect(); };
    for (const fact of document.querySelectorAll('.facts > div')) {
      const dt = words(fact.querySelector('dt'));
      const dd = words(fact.querySelector('dd'));
      if (!dt || !dd || dt.height === 0 || dd.top < dt.bottom - 1) continue;
      if (dd.top - dt.bottom > 10) out.push(fact.textContent.trim().slice(0, 40));
    }
    return out;
  })()`);
}

/**
 * The elements matching `selector` whose words run out of their own box (a house's tile, "26.2 ppm" in a
 * tile a third of a phone wide), with their text; a screen reader's words (`.visually-hidden`) left out.
 */
export function textOutOfBox(page: Page, selector: string): Promise<string[]> {
  return page.evaluate<string[]>(`(() => {
    const out = [];
    for (const box of document.querySelectorAll(${JSON.stringify(selector)})) {
      const edge = box.getBoundingClientRect();
      const walk = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
      for (let node = walk.nextNode(); node; node = walk.nextNode()) {
        if (node.parentElement.closest('.visually-hidden')) continue;
        const range = document.createRange();
        range.selectNodeContents(node);
        const r = range.getBoundingClientRect();
        if (r.width > 0 && (r.right > edge.right + 0.5 || r.left < edge.left - 0.5)) {
          out.push([...box.children].map((c) => c.textContent.trim()).join(' ') || box.textContent.trim());
          break;
        }
      }
    }
    return out;
  })()`);
}

/**
 * Scrolls `anchor` to the middle of the window, as a person scrolling to it would, until `shown` is visible:
 * a panel that loads once seen can be pushed out of view again by a chart above it taking its height, and
 * the bottom edge of the window (where a plain scroll-into-view leaves a heading) is behind the tab bar.
 */
export async function scrollUntilShown(anchor: Locator, shown: Locator, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    await anchor.evaluate((element) => element.scrollIntoView({ block: 'center' }));
    try {
      await shown.waitFor({ timeout: Math.min(1_000, Math.max(1, end - Date.now())) });
      return;
    } catch (error) {
      if (Date.now() >= end) throw error;
    }
  }
}

/**
 * A browser context signed in as a new person of `account` (a real invite, setup and session cookie), in
 * the session's default mode (live when the account has a live farm).
 */
export async function signedInPage(
  world: ConsoleWorld,
  account: NewAccount,
  size = DESKTOP,
  role: RoleName = 'owner',
  options: PageOptions = {},
) {
  const person = await signedInPerson(world.t, account, role);
  const opened = await openPage(world, size, options);
  const [name, value] = person.cookie.split('=') as [string, string];
  await opened.page.context().addCookies([{ name, value, url: world.base }]);
  return { ...opened, person };
}

/**
 * The scope of the console's service worker once it is active, or a failure within `timeoutMs`: a page whose
 * worker is blocked (openPage's default) or never installs would otherwise wait on `navigator.serviceWorker
 * .ready` until the runner's ten-minute limit, naming no cause.
 */
export async function serviceWorkerReady(page: Page, timeoutMs = 30_000): Promise<string> {
  const scope = await page.evaluate<string | null>(`Promise.race([
    navigator.serviceWorker.ready.then((registration) => registration.scope),
    new Promise((resolve) => setTimeout(() => resolve(null), ${timeoutMs})),
  ])`);
  if (scope === null) {
    throw new Error(
      `the console's service worker was not active within ${timeoutMs / 1000} s: did the test open its page with serviceWorker: true?`,
    );
  }
  return scope;
}

/** Waits until the console's service worker is active (its install cached this version's files) and controls the page. */
export async function serviceWorkerControls(page: Page): Promise<void> {
  await serviceWorkerReady(page);
  await waitFor('the page to be controlled', () =>
    page.evaluate<boolean>('Boolean(navigator.serviceWorker.controller)'),
  );
}

/**
 * A DevTools protocol session on `page` and the console's service worker registration, to hand the worker
 * what the browser would (a push message, a Background Sync event).
 */
export async function workerControl(
  world: ConsoleWorld,
  page: Page,
): Promise<{ cdp: CDPSession; registrationId: string }> {
  const cdp = await page.context().newCDPSession(page);
  const registrations: { registrationId: string; scopeURL: string }[] = [];
  cdp.on('ServiceWorker.workerRegistrationUpdated', (event: { registrations: typeof registrations }) =>
    registrations.push(...event.registrations),
  );
  await cdp.send('ServiceWorker.enable');
  const registration = await waitFor('the registration', () =>
    registrations.find((r) => r.scopeURL === `${world.base}/`),
  );
  return { cdp, registrationId: registration.registrationId };
}

/**
 * Goes to a page from the navigation, as a person would: on a phone the pages other than the bottom bar's
 * four are under More (docs/console.md), on a desktop every page is in the side column.
 */
export async function goTo(page: Page, name: string): Promise<void> {
  const nav = page.getByRole('navigation', { name: 'Pages' });
  const link = nav.getByRole('link', { name, exact: true });
  if (!(await link.isVisible())) await nav.getByRole('button', { name: 'More' }).click();
  await link.click();
}

/** A value of the person's IndexedDB (`farmstead-<person id>`), read in the page; undefined if none. */
export async function stored<T>(
  page: Page,
  person: string,
  store: string,
  key?: string,
): Promise<T | undefined> {
  // A string runs in the page (the test code has no DOM types).
  const args = JSON.stringify({ name: `farmstead-${person}`, store, key: key ?? null });
  return page.evaluate<T | undefined>(`(async ({ name, store, key }) => {
    const names = (await indexedDB.databases()).map((d) => d.name);
    if (!names.includes(name)) return undefined;
    return new Promise((resolve, reject) => {
      const open = indexedDB.open(name);
      open.onerror = () => reject(open.error);
      open.onsuccess = () => {
        const db = open.result;
        if (!db.objectStoreNames.contains(store)) {
          db.close();
          resolve(undefined);
          return;
        }
        const objects = db.transaction(store).objectStore(store);
        const request = key === null ? objects.getAll() : objects.get(key);
        request.onsuccess = () => {
          db.close();
          resolve(request.result);
        };
      };
    });
  })(${args})`);
}

/** Waits until the phone holds the farm's data (the field app's first refresh finished). */
export function phoneHoldsFarm(page: Page, person: string, farmId: string): Promise<string> {
  return waitFor('the phone to hold the farm', () => stored<string>(page, person, 'meta', `asof:${farmId}`));
}
