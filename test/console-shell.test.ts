/**
 * The console's shell and every page, at 360 px and 1280 px, each opened as a first load (a fresh browser:
 * nothing cached, no service worker): no sideways scroll, one header row, no raw id or JSON in what a
 * person reads, no serious or critical axe violation, touch targets of at least 44 × 44 px on the phone, and
 * the page's weight (every request, API calls included, as compressed on the wire) within 80 KB, with no
 * API call made twice. A screenshot of each page at each size (docs/screenshots/page-<name>-<size>.png with
 * FARMSTEAD_SCREENSHOTS=update).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import AxeBuilder from '@axe-core/playwright';
import type { BrowserContext, Page } from 'playwright-core';
import { screenshot } from './browser.ts';
import { type ConsoleWorld, DESKTOP, PHONE, signedInPage, startConsole } from './console-helpers.ts';
import { waitFor } from './harness.ts';

/**
 * A page's first load, compressed, its API calls included: issue 45's 80 KB. Measured at 360 px: 41–79 KB
 * (settings' rules 78.8 KB, webhooks 77.6, houses 74.3, the event log 72.2; sign-in 43.0). It was 90 KB
 * while the houses, devices, event log and settings pages were at 81–88 KB, until they stopped loading what
 * they did not show (docs/console.md, "Page weight").
 */
const PAGE_BUDGET = 80 * 1024;
/**
 * Pages drawing charts (uPlot, about 36 KB brotli) or a map (Leaflet, about 37 KB): 116 KB with their API
 * calls, measured 101–113 KB (the paddocks 101.2, device 106.2, animal 109.6, Map 111.7, settings' usage
 * 112.4); 132 KB before issue 45's page weight work (104–128 KB). Within 80 KB would need the library itself
 * to load after the first paint.
 */
const DRAWING_BUDGET = 116 * 1024;
const DRAWING_PAGES = new Set(['animal', 'device', 'settings-usage', 'map', 'paddocks']);

/** What a person must never read: an id (`ani_01…`) or JSON (`{"kg":498}`). */
const RAW_ID = /\b[a-z]{2,5}_[0-9a-z]{20,}\b/;
const RAW_JSON = /[{[]\s*"[^"]+"\s*:/;

let world: ConsoleWorld;
let cookie: { name: string; value: string };
let animalId: string;
let deviceId: string;

interface Shown {
  /** CONSOLE_PAGES' page name (for the screenshot's file name). */
  name: string;
  path: string;
  public?: boolean;
}

let pages: Shown[] = [];

before(async () => {
  world = await startConsole();
  const opened = await signedInPage(world, world.account, PHONE);
  const [name, value] = opened.person.cookie.split('=') as [string, string];
  cookie = { name, value };
  await opened.page.context().close();
  const farm = world.account.sample_farm_id;
  const key = world.account.test_key;
  const animals = await world.t.request<{ data: { id: string }[] }>('GET', `/v1/farms/${farm}/animals`, {
    key,
  });
  const devices = await world.t.request<{ data: { id: string; type: string }[] }>(
    'GET',
    `/v1/farms/${farm}/devices`,
    { key },
  );
  animalId = (animals.body.data[0] as { id: string }).id;
  deviceId = (devices.body.data.find((d) => d.type !== 'house') ?? devices.body.data[0])?.id as string;
  pages = [
    { name: 'brief', path: '/' },
    { name: 'alerts', path: '/alerts' },
    { name: 'map', path: '/map' },
    { name: 'houses', path: '/houses' },
    { name: 'animals', path: '/animals' },
    { name: 'animal', path: `/animals/${animalId}` },
    { name: 'groups', path: '/groups' },
    { name: 'paddocks', path: '/paddocks' },
    { name: 'plan', path: '/plan' },
    { name: 'tasks', path: '/tasks' },
    { name: 'events', path: '/events' },
    { name: 'devices', path: '/devices' },
    { name: 'device', path: `/devices/${deviceId}` },
    { name: 'data', path: '/data' },
    { name: 'settings', path: '/settings' },
    { name: 'settings-rules', path: '/settings/rules' },
    { name: 'settings-escalation', path: '/settings/escalation' },
    { name: 'settings-webhooks', path: '/settings/webhooks' },
    { name: 'settings-keys', path: '/settings/keys' },
    { name: 'settings-usage', path: '/settings/usage' },
    { name: 'integrations', path: '/settings/integrations' },
    { name: 'people', path: '/people' },
    { name: 'account', path: '/account' },
    { name: 'sync', path: '/sync' },
    { name: 'sign-in', path: '/sign-in', public: true },
    { name: 'setup', path: '/setup/not-a-real-token', public: true },
    { name: 'ack', path: '/ack/not-a-real-token', public: true },
  ];
});

after(async () => {
  await world?.close();
});

interface Request {
  method: string;
  url: string;
  bytes: number;
  done: boolean;
  stream: boolean;
  /** The field app's copy of the farm for offline use (its modules and reads), weighed apart. */
  fieldApp: boolean;
}

/**
 * The field app (docs/offline.md): the modules that keep the farm on the phone, loaded once a page is shown;
 * its reads carry `x-farmstead-for: field-app`.
 */
const FIELD_APP =
  /\/(offline-data|offline-db|offline-refresh|offline-changes|offline-reads|queue-send|background-sync)\.ts$|\/vendor\/idb\.mjs$/;
/** What the field app may add to a first visit for the sample farm (its modules and the farm's lists). */
const FIELD_APP_BUDGET = 40 * 1024;

interface FirstLoad {
  page: Page;
  context: BrowserContext;
  requests: Request[];
}

/**
 * Opens `path` in a fresh browser (no cache, no service worker) and waits until the page shows its heading
 * and the network has been quiet for a moment (the live stream, which stays open, aside). Bytes are what
 * came over the wire (DevTools' encodedDataLength: headers and compressed bodies).
 */
async function firstLoad(shown: Shown, size: typeof PHONE): Promise<FirstLoad> {
  const context = await world.browser.browser.newContext({
    viewport: size,
    serviceWorkers: 'block',
    timezoneId: 'America/Chicago',
  });
  if (!shown.public) await context.addCookies([{ ...cookie, url: world.base }]);
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  const byId = new Map<string, Request>();
  let activity = Date.now();
  cdp.on(
    'Network.requestWillBeSent',
    (e: { requestId: string; request: { url: string; method: string; headers: Record<string, string> } }) => {
      activity = Date.now();
      const { url, method, headers } = e.request;
      const fieldApp = FIELD_APP.test(new URL(url).pathname) || headers['x-farmstead-for'] === 'field-app';
      byId.set(e.requestId, { method, url, bytes: 0, done: false, stream: false, fieldApp });
    },
  );
  cdp.on('Network.responseReceived', (e: { requestId: string; response: { mimeType: string } }) => {
    const request = byId.get(e.requestId);
    if (request && e.response.mimeType === 'text/event-stream') request.stream = true;
  });
  cdp.on('Network.loadingFinished', (e: { requestId: string; encodedDataLength: number }) => {
    activity = Date.now();
    const request = byId.get(e.requestId);
    if (request) Object.assign(request, { bytes: e.encodedDataLength, done: true });
  });
  cdp.on('Network.loadingFailed', (e: { requestId: string }) => {
    activity = Date.now();
    const request = byId.get(e.requestId);
    if (request) request.done = true;
  });
  await cdp.send('Network.enable');
  await page.goto(`${world.base}${shown.path}`, { waitUntil: 'domcontentloaded' });
  await page.locator('main h1').first().waitFor();
  await waitFor(
    `${shown.path} loaded`,
    async () =>
      (await page.getByText('Loading…', { exact: true }).count()) === 0 &&
      [...byId.values()].every((r) => r.done || r.stream) &&
      Date.now() - activity > 500,
  );
  return { page, context, requests: [...byId.values()] };
}

/** Everything found wrong with one page at one size (asserted together, so one run names them all). */
async function check(shown: Shown, size: typeof PHONE, label: string): Promise<string[]> {
  const wrong: string[] = [];
  const { page, context, requests } = await firstLoad(shown, size);
  try {
    const at = `${shown.path} at ${size.width} px`;
    const sum = (list: Request[]) => list.reduce((total, r) => total + r.bytes, 0);
    const own = requests.filter((r) => !r.fieldApp);
    const bytes = sum(own);
    const fieldApp = sum(requests.filter((r) => r.fieldApp));
    const budget = DRAWING_PAGES.has(shown.name) ? DRAWING_BUDGET : PAGE_BUDGET;
    const api = requests.filter((r) => new URL(r.url).pathname.startsWith('/v1/'));
    const ownApi = api.filter((r) => !r.fieldApp);
    const kb = (n: number) => (n / 1024).toFixed(1).padStart(5);
    weights.push(
      `${label.padEnd(17)} page ${String(own.length).padStart(3)} requests ${kb(bytes)} KB (API ${ownApi.length} calls, ${kb(sum(ownApi))} KB); field app ${kb(fieldApp)} KB`,
    );
    if (process.env.FARMSTEAD_WEIGHTS === shown.name) {
      for (const r of requests)
        weights.push(
          `  ${r.bytes} ${r.fieldApp ? 'field app ' : ''}${r.method} ${r.url.replace(world.base, '')}`,
        );
    }
    if (bytes > budget)
      wrong.push(`${at}: ${(bytes / 1024).toFixed(1)} KB on the first load (over ${budget / 1024})`);
    if (fieldApp > FIELD_APP_BUDGET)
      wrong.push(`${at}: the field app's copy is ${(fieldApp / 1024).toFixed(1)} KB`);
    const gets = new Map<string, number>();
    for (const r of api.filter((r) => r.method === 'GET')) gets.set(r.url, (gets.get(r.url) ?? 0) + 1);
    for (const [url, count] of gets) {
      if (count > 1)
        wrong.push(`${at}: GET ${new URL(url).pathname}${new URL(url).search} made ${count} times`);
    }

    const { scroll, client } = await page.evaluate<{ scroll: number; client: number }>(
      '({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })',
    );
    if (scroll > client) wrong.push(`${at}: ${scroll} px wide in a ${client} px viewport`);

    if (!shown.public) {
      const header = await page.locator('header.top').boundingBox();
      if (!header || header.height > 64) wrong.push(`${at}: the header is ${header?.height} px tall`);
    }

    // What a person reads: ids and JSON belong in links and technical details only. The event log's
    // sentences are the other helper's ("words"); its own test asserts them.
    if (!NOT_YET_SENTENCES.has(shown.name)) {
      const text = await page.locator('body').innerText();
      const id = RAW_ID.exec(text);
      if (id) wrong.push(`${at}: shows the raw id ${id[0]}`);
      const json = RAW_JSON.exec(text);
      if (json) wrong.push(`${at}: shows JSON ${text.slice(json.index, json.index + 40)}`);
    }

    const axe = await new AxeBuilder({ page: page as never }).analyze();
    for (const v of axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')) {
      const where = v.nodes
        .slice(0, 3)
        .map((n) => n.target.join(' '))
        .join(', ');
      wrong.push(`${at}: axe ${v.impact} ${v.id} (${v.help}) at ${where}`);
    }

    if (size === PHONE) {
      // Controls a thumb presses: at least 44 × 44 px (inline links in text are exempt, as WCAG's are).
      const small = await page.evaluate<string[]>(`(() => {
        const out = [];
        for (const el of document.querySelectorAll('button, select, input:not([type=checkbox]):not([type=radio]):not([type=hidden]), nav a, .who, summary')) {
          const r = el.getBoundingClientRect();
          if (r.width === 0 || r.height === 0 || el.closest('[hidden], .leaflet-container')) continue;
          if (r.height < 43.5 || r.width < 43.5) out.push((el.textContent || el.getAttribute('aria-label') || el.tagName).trim().slice(0, 30) + ' ' + Math.round(r.width) + '×' + Math.round(r.height));
        }
        return out;
      })()`);
      if (small.length > 0) wrong.push(`${at}: small touch targets: ${small.slice(0, 6).join('; ')}`);
    }
    // Every page at 360 px; a few on a desktop (the side navigation, a table, a settings section).
    if (size === PHONE || DESKTOP_SHOTS.has(shown.name)) {
      await screenshot(page, `page-${shown.name}-${size === PHONE ? 'phone' : 'desktop'}`);
    }
  } finally {
    await context.close();
  }
  return wrong;
}

/**
 * Pages whose visible text is not yet free of ids and JSON, to be emptied by the helper writing the event
 * log's sentences (issue 45): the lead removes `events` when that lands.
 */
const NOT_YET_SENTENCES = new Set(['events']);

const weights: string[] = [];
const DESKTOP_SHOTS = new Set(['brief', 'animals', 'settings-rules']);

for (const size of [PHONE, DESKTOP]) {
  test(`every page at ${size.width} px: no sideways scroll, one header row, no raw ids, axe clean, within its weight`, async (t) => {
    const wrong: string[] = [];
    const only = process.env.FARMSTEAD_PAGES?.split(',');
    for (const shown of pages.filter((p) => !only || only.includes(p.name))) {
      wrong.push(...(await check(shown, size, `${shown.name}@${size.width}`)));
    }
    t.diagnostic(`first loads:\n${weights.join('\n')}`);
    weights.length = 0;
    assert.deepEqual(wrong, []);
  });
}

test('the bottom bar works with a keyboard and a screen reader; More opens and closes; high contrast is kept', async () => {
  const { page, problems } = await signedInPage(world, world.account, PHONE);
  await page.goto(`${world.base}/`);
  await page.locator('h1.headline').waitFor();
  const nav = page.getByRole('navigation', { name: 'Pages' });
  // The main destinations are links in the bar, the current one marked; More is a disclosure button.
  for (const name of ['Brief', 'Alerts', 'Map', 'Animals']) await nav.getByRole('link', { name }).waitFor();
  assert.equal(await nav.getByRole('link', { name: 'Brief' }).getAttribute('aria-current'), 'page');
  const more = nav.getByRole('button', { name: 'More' });
  assert.equal(await more.getAttribute('aria-expanded'), 'false');
  assert.equal(await nav.getByRole('link', { name: 'Houses' }).isVisible(), false);
  // The bar sits at the bottom of the screen, under the thumb.
  const bar = await more.boundingBox();
  assert.ok(bar && bar.y + bar.height >= PHONE.height - 2, `More is at ${bar?.y}`);

  await more.focus();
  await page.keyboard.press('Enter');
  assert.equal(await more.getAttribute('aria-expanded'), 'true');
  await nav.getByRole('link', { name: 'Houses' }).waitFor();
  await nav.getByRole('button', { name: 'Sign out' }).waitFor();
  await screenshot(page, 'page-more-phone');
  await page.keyboard.press('Escape');
  assert.equal(await more.getAttribute('aria-expanded'), 'false');
  assert.equal(await page.evaluate('document.activeElement?.id'), 'more-button');

  // A page under More: chosen from the sheet, which closes; More is marked as where the page is.
  await more.click();
  await nav.getByRole('link', { name: 'Tasks' }).click();
  await page.getByRole('heading', { name: 'Tasks', level: 1 }).waitFor();
  assert.equal(await more.getAttribute('aria-expanded'), 'false');
  assert.equal(await more.getAttribute('aria-current'), 'page');

  // One mode indicator (test mode, said once) and the live dot with words for a screen reader.
  assert.equal(await page.locator('header.top [role="note"]').count(), 1);
  assert.equal(await page.locator('header.top [role="note"]').textContent(), 'Test mode');
  await page.getByRole('img', { name: /^Live/ }).waitFor();

  // High contrast: a person's choice, kept in this browser.
  await more.click();
  await nav.getByRole('switch', { name: 'High contrast' }).check();
  assert.equal(await page.evaluate('document.documentElement.dataset.contrast'), 'high');
  await page.reload();
  await page.getByRole('heading', { name: 'Tasks', level: 1 }).waitFor();
  assert.equal(await page.evaluate('document.documentElement.dataset.contrast'), 'high');
  await screenshot(page, 'page-tasks-phone-high-contrast');
  const axe = await new AxeBuilder({ page: page as never }).withTags(['wcag2aa']).analyze();
  assert.deepEqual(
    axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id),
    [],
  );
  assert.deepEqual(problems, []);
});

test('wording: an alert links to its subject by what it is; the brief says what its "more" are', async () => {
  const { page, problems } = await signedInPage(world, world.account, PHONE);
  await page.goto(`${world.base}/alerts`);
  const water = page.locator('li.alert', { hasText: 'Water dropping fast' });
  await water.getByRole('link', { name: 'Open the device' }).waitFor();
  const ammonia = page.locator('li.alert', { hasText: 'High ammonia in House 2' });
  await ammonia.getByRole('link', { name: 'Open the house' }).waitFor();
  assert.equal(await page.getByText('Go to the house').count(), 0);

  await page.goto(`${world.base}/`);
  await page.locator('summary', { hasText: 'The brief as text' }).click();
  const text = (await page.locator('details.brief-text p').textContent()) ?? '';
  // "Pop door jammed: House 2 and 4 more" read as four more houses.
  assert.match(text, /Watch: [^.]*; and \d+ more watch alerts\./);
  assert.doesNotMatch(text, /\d more\./);
  assert.deepEqual(problems, []);
});
