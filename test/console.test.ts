/**
 * The console in a real browser (headless Chromium from @sparticuz/chromium, driven by playwright-core),
 * read as a person's steps. One server, one browser, one account with its sample farm for the whole file;
 * the steps run in order (the owner set up in the first is the one who acknowledges in the second).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { NewAccount } from '../src/modules/accounts/service.ts';
import type { Alert } from '../src/modules/alerts/schemas.ts';
import type { Command } from '../src/modules/commands/schemas.ts';
import type { Farm } from '../src/modules/farms/schemas.ts';
import type { House } from '../src/modules/houses/schemas.ts';
import { invitePerson } from '../src/modules/people/links.ts';
import type { Rule } from '../src/modules/rules/schemas.ts';
import { screenshot } from './browser.ts';
import {
  assertNoHorizontalScroll,
  type ConsolePage,
  type ConsoleWorld,
  DESKTOP,
  goTo,
  openPage,
  PHONE,
  signedInPage,
  startConsole,
} from './console-helpers.ts';
import { waitFor } from './engines.ts';
import { device, farm as makeFarm, paddock as makePaddock, task as makeTask, report } from './factories.ts';
import { startReceiver } from './harness.ts';
import { tokenOf } from './people.ts';

const PASSWORD = 'a long farm password';

let world: ConsoleWorld;
let owner: ConsolePage;
let ownerEmail: string;

/** Part 2's account and its live farm; its people sign in to live mode on it. */
let live: NewAccount;
let liveFarm: Farm;

before(async () => {
  world = await startConsole();
  live = await world.t.account('Willow Creek');
  liveFarm = await makeFarm(world.t, live.live_key, { name: 'Willow Creek', timezone: 'America/Chicago' });
});

after(async () => {
  await world?.close();
});

/** A setup link for a new person of the account, as the CLI or an owner's invite makes it. */
async function setupLink(role: 'owner' | 'crew', email: string): Promise<string> {
  const invite = await invitePerson(
    world.t.database.db,
    world.account.account_id,
    { email, role },
    world.base,
    Date.now(),
  );
  return invite.url;
}

/** Follows a setup link and sets the password; the person lands on the brief. */
async function setUp(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.getByRole('heading', { name: 'Set up your sign-in' }).waitFor();
  await page.getByLabel('Password (at least').fill(PASSWORD);
  await page.getByLabel('Password again').fill(PASSWORD);
  await page.getByRole('button', { name: 'Save and sign in' }).click();
  await page.locator('h1.headline').waitFor();
}

function houseCard(page: Page, name: string) {
  return page.locator('article.house', { has: page.getByRole('heading', { name, exact: true }) });
}

function alertCard(page: Page, title: string) {
  return page.locator('li.alert', { has: page.getByRole('heading', { name: title, exact: true }) });
}

/** A house as the API shows it (its recent commands typed). */
async function houseByName(
  name: string,
): Promise<Omit<House, 'recent_commands'> & { recent_commands: Command[] }> {
  const list = await world.t.request<{ data: House[] }>(
    'GET',
    `/v1/farms/${world.account.sample_farm_id}/houses`,
    {
      key: world.account.test_key,
    },
  );
  const house = list.body.data.find((h) => h.name === name);
  assert.ok(house, `no ${name}`);
  return house as Omit<House, 'recent_commands'> & { recent_commands: Command[] };
}

/** Both sizes, for people to look at in docs/screenshots (and the phone size must not scroll sideways). */
async function screenshots(page: Page, name: string): Promise<void> {
  await page.setViewportSize(PHONE);
  await assertNoHorizontalScroll(page);
  await screenshot(page, `console-${name}-phone`);
  await page.setViewportSize(DESKTOP);
  await screenshot(page, `console-${name}-desktop`);
}

test('an owner follows the setup link, sets a password, signs in, and the brief shows the sample farm', async () => {
  owner = await openPage(world, DESKTOP);
  const { page } = owner;
  ownerEmail = `owner.${Date.now()}@farm.test`;
  const link = await setupLink('owner', ownerEmail);
  await setUp(page, link);
  await page.goto(link);
  await page.getByRole('heading', { name: 'This link no longer works' }).waitFor();
  await page.goto(`${world.base}/`);
  await page.locator('h1.headline').waitFor();

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in to Farmstead' }).waitFor();
  await page.getByLabel('Password').fill('not the password');
  await page.getByLabel('Email').fill(ownerEmail);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('#sign-in-error').waitFor();
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();

  await page.locator('h1.headline', { hasText: 'High ammonia in House 2' }).waitFor();
  assert.equal(new URL(page.url()).pathname, '/');
  await page.getByRole('note').filter({ hasText: 'Test mode' }).waitFor();
  const items = page.locator('ol.items > li');
  assert.ok((await items.count()) >= 5, 'the ranked items are listed');
  const first = page.locator('ol.items > li').first();
  assert.match((await first.textContent()) ?? '', /urgent.*High ammonia in House 2.*Go to the house now/s);
  // Each card says the next step for what it is about, not one sentence under every alert.
  const steps = await page.locator('ol.items .item-next').allTextContents();
  assert.ok(new Set(steps.map((s) => s.split('·')[0]?.trim())).size >= 4, steps.join(' | '));
  assert.match((await first.getByRole('link').getAttribute('href')) ?? '', /^\/alerts\?status=all#alt_/);
  await page.getByRole('button', { name: 'Reset the sample farm' }).waitFor();
  await screenshots(page, 'brief');
  assert.deepEqual(owner.problems, []);
});

test('a brief item links to its alert; acknowledging the alert moves it from Open to Acknowledged', async () => {
  const { page } = owner;
  await page.locator('ol.items > li').first().getByRole('link').click();
  await page.locator('li.alert:focus', { hasText: 'High ammonia in House 2' }).waitFor();
  assert.equal(new URL(page.url()).searchParams.get('status'), 'all');
  await page.getByRole('navigation').getByRole('link', { name: 'Alerts' }).click();
  const card = alertCard(page, 'High ammonia in House 2');
  await card.waitFor();
  assert.match((await card.locator('.reason').textContent()) ?? '', /Ammonia [\d.]+ ppm in House 2/);
  await card.getByRole('button', { name: 'Acknowledge' }).click();
  await card.waitFor({ state: 'detached' });
  await page.getByRole('button', { name: 'Acknowledged' }).click();
  await alertCard(page, 'High ammonia in House 2').locator('.status', { hasText: 'acknowledged' }).waitFor();
  const alerts = await world.t.request<{ data: Alert[] }>(
    'GET',
    `/v1/farms/${world.account.sample_farm_id}/alerts?status=acknowledged`,
    { key: world.account.test_key },
  );
  assert.ok(alerts.body.data.some((a) => a.title === 'High ammonia in House 2'));
  assert.deepEqual(owner.problems, []);
});

test('a reading sent to /v1/ingest that crosses a rule makes the alert appear without a reload', async () => {
  const { page } = owner;
  await page.getByRole('button', { name: 'Open', exact: true }).click();
  await page.locator('.stream.live').waitFor();
  await page.evaluate('window.__notReloaded = true');
  const house = await device(world.t, world.account.test_key, world.account.sample_farm_id, {
    name: 'House 9',
  });
  const sent = await report(world.t, house.device_key, {
    readings: [{ metric: 'climate.nh3_ppm', value: 31 }],
  });
  assert.equal(sent.status, 200, JSON.stringify(sent.body));
  const card = alertCard(page, 'High ammonia in House 9');
  await card.waitFor({ timeout: 10_000 });
  assert.match((await card.getAttribute('class')) ?? '', /fresh/);
  assert.equal(await page.evaluate('window.__notReloaded'), true);
  await page.getByRole('status').filter({ hasText: 'New urgent alert: High ammonia in House 9' }).waitFor();
  await screenshots(page, 'alerts');
  assert.deepEqual(owner.problems, []);
});

test('lights.set sent from the House 1 card is done, and shows so', async () => {
  const { page } = owner;
  await page.getByRole('navigation').getByRole('link', { name: 'Houses' }).click();
  const card = houseCard(page, 'House 1');
  await card.waitFor();
  await card.locator('summary', { hasText: 'Send a command' }).click();
  // Commands and their parameters offered in words (src/domain/command-terms.ts), not by their codes.
  await card.getByLabel('Send a command').selectOption({ label: 'Set lights' });
  await card.getByLabel('Setting').selectOption('on');
  await card.getByRole('button', { name: 'Send' }).click();
  await card.getByRole('status').filter({ hasText: 'Set lights done' }).waitFor();
  await card.locator('li.command[data-command="lights.set"] .status.done').first().waitFor();
  await card.locator('.facts', { hasText: 'Lights' }).getByText('on', { exact: true }).waitFor();
  assert.deepEqual(owner.problems, []);
});

test('move.start asks for confirmation first, and is not sent when declined', async () => {
  const { page } = owner;
  const card = houseCard(page, 'House 1');
  const before = (await houseByName('House 1')).recent_commands.filter(
    (c) => c.command === 'move.start',
  ).length;
  await card.getByLabel('Send a command').selectOption('move.start');
  // The owner reads US units (an en-US browser): the distance is typed in feet and sent in metres.
  await card.getByLabel('Distance a day (ft/day)').fill('39.37');
  await card.getByRole('button', { name: 'Send' }).click();
  const dialog = page.getByRole('dialog', { name: 'Are you sure?' });
  await dialog.waitFor();
  assert.match(
    (await dialog.textContent()) ?? '',
    /A moving house can hurt animals or people in its way: make sure the way is clear\. Start moving \(House 1\)/,
  );
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await card.getByRole('status').filter({ hasText: 'Not sent.' }).waitFor();
  const after = (await houseByName('House 1')).recent_commands.filter(
    (c) => c.command === 'move.start',
  ).length;
  assert.equal(after, before, 'a declined move.start is not sent');

  await card.getByRole('button', { name: 'Send' }).click();
  await dialog.getByRole('button', { name: 'Yes, send it' }).click();
  await card.getByRole('status').filter({ hasText: 'Start moving done' }).waitFor();
  const sent = (await houseByName('House 1')).recent_commands[0];
  assert.equal(sent?.command, 'move.start');
  assert.deepEqual(sent?.params, { meters_per_day: 12 });
  await card.locator('summary', { hasText: 'Send a command' }).click();
  await page.evaluate('window.scrollTo(0, 0)');
  await screenshots(page, 'houses');
  assert.deepEqual(owner.problems, []);
});

test('opening doors where it is dark now asks first; the farm switcher shows the other farm', async () => {
  const { page } = owner;
  // A test farm on the equator where the local solar time is about midnight right now.
  const now = new Date();
  const utcHours = now.getUTCHours() + now.getUTCMinutes() / 60;
  const lon = ((((-utcHours * 15 + 180) % 360) + 360) % 360) - 180;
  const night = await world.t.request<{ id: string }>('POST', '/v1/farms', {
    key: world.account.test_key,
    body: { name: 'Night Farm', timezone: 'UTC', lat: 0, lon: Math.round(lon * 100) / 100 },
  });
  assert.equal(night.status, 201, JSON.stringify(night.body));
  await device(world.t, world.account.test_key, night.body.id, { name: 'Night House' });
  await page.reload();
  await page.getByLabel('Farm').selectOption({ label: 'Night Farm' });
  await page.getByRole('navigation').getByRole('link', { name: 'Houses' }).click();
  const card = houseCard(page, 'Night House');
  await card.locator('summary', { hasText: 'Send a command' }).click();
  await card.getByLabel('Send a command').selectOption('doors.open');
  await card.getByText('All', { exact: true }).click();
  await card.getByRole('button', { name: 'Send' }).click();
  const dialog = page.getByRole('dialog', { name: 'Are you sure?' });
  await dialog.getByText(/It is dark at Night Farm now/).waitFor();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await card.getByRole('status').filter({ hasText: 'Not sent.' }).waitFor();
  const commands = await world.t.request<{ data: unknown[] }>(
    'GET',
    `/v1/devices/${await houseIdOn(night.body.id)}/commands`,
    {
      key: world.account.test_key,
    },
  );
  assert.equal(commands.body.data.length, 0);
  await page.getByLabel('Farm').selectOption({ label: 'Willow Creek Farm (sample)' });
  assert.deepEqual(owner.problems, []);
});

async function houseIdOn(farmId: string): Promise<string> {
  const list = await world.t.request<{ data: House[] }>('GET', `/v1/farms/${farmId}/houses`, {
    key: world.account.test_key,
  });
  const id = list.body.data[0]?.id;
  assert.ok(id);
  return id;
}

let crewLink: string;

test('the owner invites a crew member from the People page and gets a one-time link', async () => {
  const { page } = owner;
  await page.getByRole('navigation').getByRole('link', { name: 'People' }).click();
  await page.getByRole('heading', { name: ownerEmail }).waitFor();
  await page.getByLabel('Email').fill(`crew.${Date.now()}@farm.test`);
  await page.getByLabel('Role').selectOption('crew');
  await page.getByRole('button', { name: 'Make an invite link' }).click();
  const url = await page.getByLabel('Invite link').inputValue();
  // The link names the configured public address; the test server listens on a port of its own.
  crewLink = `${world.base}/setup/${tokenOf(url)}`;
  assert.match(url, /\/setup\/[A-Za-z0-9_-]+$/);
  assert.deepEqual(owner.problems, []);
});

test('a crew person on a phone sees no owner-only controls, and the server refuses them anyway', async () => {
  const crew = await openPage(world, PHONE);
  const { page } = crew;
  await setUp(page, crewLink);
  await page.getByLabel('Farm').selectOption({ label: 'Willow Creek Farm (sample)' });
  await assertNoHorizontalScroll(page);
  // On a phone the bottom bar has the main pages; the others are under More.
  const nav = page.getByRole('navigation', { name: 'Pages' });
  await nav.getByRole('button', { name: 'More' }).click();
  await nav.getByRole('link', { name: 'Houses' }).waitFor();
  assert.equal(await nav.getByRole('link', { name: 'People' }).count(), 0);
  assert.equal(await page.getByRole('button', { name: 'Reset the sample farm' }).count(), 0);

  await nav.getByRole('link', { name: 'Alerts' }).click();
  await page.locator('li.alert').first().getByRole('button', { name: 'Resolve' }).waitFor();
  await assertNoHorizontalScroll(page);
  await nav.getByRole('button', { name: 'More' }).click();
  await nav.getByRole('link', { name: 'Houses' }).click();
  await houseCard(page, 'House 1').waitFor();
  await assertNoHorizontalScroll(page);

  await page.goto(`${world.base}/people`);
  await page.getByText('Only an owner can open this page.').waitFor();

  // The crew person's own browser asks the server directly (same-origin fetch: the session cookie and its
  // CSRF token), as a hand-made request would: the server refuses what the page did not show.
  const answers = (await page.evaluate(`(async () => {
    const session = await (await fetch('/v1/session')).json();
    const post = (url, body) => fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrf_token },
      body: JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, code: (await r.json()).error?.code }));
    return {
      role: session.person.role,
      invite: await post('/v1/people/invites', { email: 'someone@farm.test', role: 'owner' }),
      reset: await post('/v1/farms/${world.account.sample_farm_id}/reset', {}),
    };
  })()`)) as {
    role: string;
    invite: { status: number; code: string };
    reset: { status: number; code: string };
  };
  assert.equal(answers.role, 'crew');
  assert.deepEqual(answers.invite, { status: 403, code: 'forbidden' });
  assert.deepEqual(answers.reset, { status: 403, code: 'forbidden' });

  // Crew change their own password from their name in the header. A wrong current one is named beside its
  // field, and what was typed in the others is still there to try again.
  await page.getByRole('link', { name: 'Your account' }).click();
  await page.getByRole('heading', { name: 'Change your password' }).waitFor();
  await page.getByLabel('Current password').fill('not the password');
  await page.getByLabel('New password (at least').fill('another long farm password');
  await page.getByLabel('New password again').fill('another long farm password');
  await page.getByRole('button', { name: 'Change password' }).click();
  await page
    .locator('#account-current_password-error', { hasText: 'The current password is not right.' })
    .waitFor();
  assert.equal(await page.getByLabel('New password again').inputValue(), 'another long farm password');
  await page.getByLabel('Current password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Change password' }).click();
  await page.getByRole('status').filter({ hasText: 'Password changed.' }).waitFor();
  await screenshot(page, 'console-account-phone');
  await assertNoHorizontalScroll(page);
  assert.deepEqual(crew.problems, []);
});

// ---- Part 2: records, devices, settings and data, on an account of its own with a live farm (the account
// above has only the sample farm, so its sessions open in test mode) ----

// (The second account and its live farm, `live` and `liveFarm`, are made in the file's before hook.)

test('add an animal, find it by its tag, log a weight and see it on the weight chart', async () => {
  const { page, problems } = await signedInPage(world, live, DESKTOP);
  await page.goto(`${world.base}/animals`);
  await page.getByRole('button', { name: 'Add an animal' }).click();
  const form = page.locator('form', { has: page.getByRole('heading', { name: 'Add an animal' }) });
  await form.getByLabel('Species').fill('cattle');
  await form.getByLabel('Tag', { exact: true }).fill('WC-4521');
  await form.getByLabel('Name', { exact: true }).fill('Clover');
  await form.getByLabel('Custom field 1 name').fill('dam');
  await form.getByLabel('Custom field 1 value').fill('WC-3310');
  await form.getByRole('button', { name: 'Add animal' }).click();
  await form.getByRole('status').getByText('Added').waitFor();

  await page.getByLabel('Search').fill('4521');
  await page.getByRole('table').getByRole('link', { name: 'WC-4521' }).click();
  await page.getByRole('heading', { name: 'WC-4521 · Clover' }).waitFor();
  await page.getByText('WC-3310').waitFor();

  await page.getByLabel('Weight (kg)').fill('412.5');
  await page.getByRole('button', { name: 'Log weight' }).click();
  await page.getByRole('status').getByText('Weight logged').waitFor();
  await page.getByText('412.5 kg').first().waitFor();
  // The chart is uPlot's canvas inside the weight figure, drawn once the figure is in view.
  await page.locator('figure', { hasText: 'Weight (kg)' }).scrollIntoViewIfNeeded();
  await page.locator('figure', { hasText: 'Weight (kg)' }).locator('canvas').first().waitFor();
  await page.evaluate("document.getElementById('weight-title').scrollIntoView()");
  await screenshot(page, 'console-animal-desktop');
  await page.setViewportSize(PHONE);
  await assertNoHorizontalScroll(page);
  await page.evaluate("document.getElementById('weight-title').scrollIntoView()");
  await screenshot(page, 'console-animal-phone');
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('add a device, copy its key, send a report with it, and see the reading on the chart with its alert lines', async () => {
  const { page, problems } = await signedInPage(world, live, DESKTOP);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: world.base });
  await page.goto(`${world.base}/devices`);
  await page.getByRole('button', { name: 'Add a device' }).click();
  await page.getByLabel('Type').last().selectOption('bolus');
  await page.getByLabel('Name', { exact: true }).fill('Bolus 7');
  await page.getByRole('button', { name: 'Add device' }).click();
  await page.getByText('Key of Bolus 7').waitFor();
  await page.getByRole('button', { name: 'Copy' }).click();
  await page.getByRole('status').getByText('Copied').waitFor();
  const key = await page.evaluate<string>('navigator.clipboard.readText()');
  assert.match(key, /^rd_/);
  await page.getByText(`Authorization: Bearer ${key}`).waitFor();

  // The device reports over HTTP with the copied key, as the curl line shows.
  const report = await fetch(`${world.base}/v1/ingest`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ readings: [{ metric: 'body.temp_c', value: 39.1 }], battery: 88 }),
  });
  assert.equal(report.status, 200);

  await page.getByRole('link', { name: 'Bolus 7' }).click();
  await page.getByRole('heading', { name: 'Bolus 7' }).waitFor();
  // The metric and its rule by their names, not their codes.
  await page.getByRole('checkbox', { name: 'Body temperature' }).waitFor();
  const chart = page.locator('figure', { hasText: 'Body temperature' });
  await chart.scrollIntoViewIfNeeded();
  await chart.locator('canvas').first().waitFor();
  await chart.getByText(/Raised temperature watch 40\s?°C/).waitFor();
  await page.getByText('Body temperature 39.1').waitFor();
  // The chart's bucket in words, never its code ("5m", "1h").
  await page.getByText('5-minute averages.').waitFor();
  await page.getByRole('button', { name: '30 d' }).click();
  await page.getByText('Hourly averages.').waitFor();
  await page.evaluate("document.querySelector('.chart').scrollIntoView()");
  await screenshot(page, 'console-device-desktop');
  await page.setViewportSize(PHONE);
  // The chart follows its box's new width on the next resize callback.
  for (let i = 0; i < 50; i++) {
    if (await page.evaluate<boolean>('document.documentElement.scrollWidth <= 360')) break;
    await page.evaluate('new Promise((r) => requestAnimationFrame(r))');
  }
  await assertNoHorizontalScroll(page);
  await chart.scrollIntoViewIfNeeded();
  await screenshot(page, 'console-device-phone');
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('an alert threshold out of order shows its error on its cell; a good one is saved', async () => {
  const { page, problems } = await signedInPage(world, live, DESKTOP);
  await page.goto(`${world.base}/settings/rules`);
  const watch = page.getByLabel('High ammonia watch');
  await watch.fill('30');
  await page.getByRole('button', { name: 'Save thresholds' }).click();
  const cell = page.locator('td', { has: watch });
  await cell.getByRole('alert').waitFor();
  assert.match((await cell.getByRole('alert').textContent()) ?? '', /watch/);
  assert.equal(await watch.getAttribute('aria-invalid'), 'true');
  await page.evaluate("document.getElementById('rules-title').scrollIntoView()");
  await screenshot(page, 'console-settings-desktop');
  await page.setViewportSize(PHONE);
  await assertNoHorizontalScroll(page);
  await page.evaluate("document.getElementById('rules-title').scrollIntoView()");
  await screenshot(page, 'console-settings-phone');
  await page.setViewportSize(DESKTOP);
  await watch.fill('18');
  await page.getByRole('button', { name: 'Save thresholds' }).click();
  await page.getByRole('status').getByText('Thresholds saved').waitFor();
  const saved = await world.t.request<Farm>('GET', `/v1/farms/${liveFarm.id}`, {
    key: live.live_key,
  });
  assert.equal((saved.body.settings.rules as Record<string, { watch: number }>)['house.ammonia']?.watch, 18);
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('the water, silence and intake rules: turn water.leak off, give water devices two hours of quiet and feed a 30 % drop; a bad value shows its error beside it', async () => {
  const { page, problems } = await signedInPage(world, live, PHONE);
  const rulesOf = async () =>
    (await world.t.request<Farm>('GET', `/v1/farms/${liveFarm.id}`, { key: live.live_key })).body.settings
      .rules as Record<string, unknown> | undefined;
  const builtIn = ['water.leak', 'device.quiet', 'group.intake_drop'];
  const thresholdsBefore = Object.entries((await rulesOf()) ?? {}).filter(
    ([name]) => !builtIn.includes(name),
  );
  await page.goto(`${world.base}/settings/rules`);
  await page.getByRole('heading', { name: 'Water, silence and intake alerts' }).waitFor();
  const leak = page.getByRole('group', { name: /Water dropping fast/ });
  const quiet = page.getByRole('group', { name: /Device quiet/ });
  const intake = page.getByRole('group', { name: /Intake dropped/ });
  assert.equal(await leak.getByLabel('Falls by (points)').inputValue(), '30');
  assert.equal(await leak.getByLabel('Within (minutes)').inputValue(), '60');
  assert.equal(await quiet.getByLabel('water (minutes)').inputValue(), '15');
  assert.equal(await intake.getByLabel('Water per head drops (%)').inputValue(), '25');

  // Five minutes is under the 15-minute floor: the API's error shows beside the water devices' field, in
  // the minutes the form asks for (the API counts seconds).
  await quiet.getByLabel('water (minutes)').fill('5');
  await page.getByRole('button', { name: 'Save rules' }).click();
  const waterField = quiet.locator('.field', { has: page.getByLabel('water (minutes)') });
  await waterField.getByRole('alert').waitFor();
  assert.match(
    (await waterField.getByRole('alert').textContent()) ?? '',
    /^Enter a time from 15 minutes to 7 days \(you entered 5 minutes\)\.$/,
  );
  await waterField.scrollIntoViewIfNeeded();
  await screenshot(page, 'console-rule-settings-error-phone');

  await quiet.getByLabel('water (minutes)').fill('120');
  await leak.getByLabel('On').uncheck();
  await intake.getByLabel('Feed per head drops (%)').fill('30');
  await page.getByRole('button', { name: 'Save rules' }).click();
  await page.getByRole('status').getByText('Rules saved').waitFor();
  await assertNoHorizontalScroll(page);
  await page.evaluate("document.getElementById('other-rules-title').scrollIntoView()");
  await screenshot(page, 'console-rule-settings-phone');

  const listed = await world.t.request<{ data: Rule[] }>('GET', `/v1/farms/${liveFarm.id}/rules`, {
    key: live.live_key,
  });
  const rule = (name: string) => listed.body.data.find((r) => r.name === name);
  assert.equal(rule('water.leak')?.enabled, false);
  assert.equal(rule('water.leak')?.change, -30, 'the fall left at its default');
  assert.equal(rule('device.quiet')?.enabled, true);
  assert.equal(rule('device.quiet')?.quiet_after_s?.water, 7200);
  assert.equal(rule('device.quiet')?.quiet_after_s?.tag, 900);
  assert.deepEqual(rule('group.intake_drop')?.drop_pct, { 'water.used_l': 25, 'feed.dispensed_kg': 30 });
  const after = (await rulesOf()) ?? {};
  for (const [name, value] of thresholdsBefore) assert.deepEqual(after[name], value, `${name} kept`);
  assert.deepEqual(
    after['device.quiet'],
    { quiet_after_s: { water: 7200 } },
    'only what differs from the default',
  );
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('create a webhook, send a test event, and see it in the delivery log', async () => {
  const receiver = await startReceiver(() => 204);
  try {
    const { page, problems } = await signedInPage(world, live, DESKTOP);
    await page.goto(`${world.base}/settings/webhooks`);
    const add = page.getByRole('form', { name: 'Add a webhook' });
    await add.getByLabel('URL').fill(receiver.url);
    await add.getByRole('button', { name: 'Add webhook' }).click();
    await page.getByText('Signing secret').waitFor();
    const card = page.locator('li.card', { hasText: receiver.url });
    await card.getByRole('button', { name: 'Send test event' }).click();
    await card.getByRole('status').getByText('Test event delivered (HTTP 204)').waitFor();
    await card.getByText('webhook.test').waitFor();
    await card.getByText(/Attempt 1.*HTTP 204/).waitFor();
    assert.equal(receiver.requests.length, 1);
    assert.match(receiver.requests[0]?.body ?? '', /webhook\.test/);
    assert.deepEqual(problems, []);
    await page.context().close();
  } finally {
    await receiver.close();
  }
});

test('import a CSV with one bad row: the preview names the row, and nothing is stored until the import', async () => {
  const { page, problems } = await signedInPage(world, live, DESKTOP);
  await page.goto(`${world.base}/data`);
  const csv =
    'species,tag,birth_date\ncattle,IMP-1,2024-01-05\ncattle,IMP-2,not a date\nsheep,IMP-3,2024-03-01\n';
  await page
    .getByLabel('CSV file')
    .setInputFiles({ name: 'herd.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await page.getByRole('button', { name: 'Preview' }).click();
  const errors = page.getByRole('table', { name: /Rows with errors/ });
  await errors.getByRole('cell', { name: 'Row 3' }).waitFor();
  await errors.getByRole('cell', { name: 'birth_date', exact: true }).waitFor();
  await page.getByText('Preview: 3 rows — 2 to add').waitFor();
  assert.ok(await page.getByRole('button', { name: 'Import', exact: true }).isDisabled());
  const before = await world.t.request<{ data: unknown[] }>(
    'GET',
    `/v1/farms/${liveFarm.id}/animals?tag=IMP-1`,
    {
      key: live.live_key,
    },
  );
  assert.equal(before.body.data.length, 0);

  await page.getByLabel('Import the good rows and skip rows with errors').check();
  await page.getByRole('button', { name: 'Import', exact: true }).click();
  await page.getByText('Imported: 3 rows — 2 added').waitFor();
  const after = await world.t.request<{ data: unknown[] }>(
    'GET',
    `/v1/farms/${liveFarm.id}/animals?tag=IMP-1`,
    {
      key: live.live_key,
    },
  );
  assert.equal(after.body.data.length, 1);
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('groups, paddocks (outline drawn offline), tasks and the event log open on a phone without sideways scrolling', async () => {
  const key = live.live_key;
  await makePaddock(world.t, key, liveFarm.id, {
    name: 'North 40',
    acres: 40,
    rest_days_target: 30,
    last_grazed_at: new Date(Date.now() - 45 * 86_400_000).toISOString(),
    geometry: {
      type: 'Polygon',
      coordinates: [
        [
          [-97.1, 38.2],
          [-97.09, 38.2],
          [-97.09, 38.21],
          [-97.1, 38.21],
          [-97.1, 38.2],
        ],
      ],
    },
  });
  // Due two days ago: overdue (a task due earlier today is still due today: the next test).
  await makeTask(world.t, key, liveFarm.id, {
    title: 'Check the north water trough',
    due_at: new Date(Date.now() - 2 * 86_400_000).toISOString(),
  });
  await world.t.request('POST', `/v1/farms/${liveFarm.id}/events`, {
    key,
    body: { type: 'weight', data: { kg: 301.5 } },
  });
  const { page, problems } = await signedInPage(world, live, PHONE);
  await page.goto(`${world.base}/paddocks`);
  const card = page.locator('li.card', { hasText: 'North 40' });
  // The outline drawn as a shape, with no map library and nothing fetched from another host.
  const map = card.getByRole('region', { name: 'Map of North 40' });
  await map.waitFor();
  await map.locator('path.paddock-outline').waitFor();
  const box = await map.locator('path.paddock-outline').boundingBox();
  const frame = await map.boundingBox();
  assert.ok(box && frame && box.width > 40 && box.height > 40, 'the outline fills its box');
  assert.ok(box.x >= frame.x && box.x + box.width <= frame.x + frame.width + 1, 'and stays inside it');
  await card.getByText('Past rest target').waitFor();
  await card.getByText('45 days').waitFor();
  await assertNoHorizontalScroll(page);
  await screenshot(page, 'console-paddocks-phone');

  await goTo(page, 'Tasks');
  const task = page.locator('li.card', { hasText: 'Check the north water trough' });
  await task.getByText('Overdue').waitFor();
  await page.getByRole('button', { name: 'Overdue' }).click();
  await task.getByRole('button', { name: 'Done' }).click();
  await page.getByText('No tasks here.').waitFor();
  await assertNoHorizontalScroll(page);

  await page.goto(`${world.base}/groups`);
  await page.getByRole('button', { name: 'Add a group' }).click();
  const form = page.getByRole('form', { name: 'Add a group' });
  await form.getByLabel('Name').fill('Spring lambs');
  await form.getByLabel('Species').fill('sheep');
  await form.getByLabel('Head count').fill('24');
  await form.getByRole('button', { name: 'Add group' }).click();
  await page.getByRole('link', { name: 'Spring lambs', exact: true }).waitFor();
  await assertNoHorizontalScroll(page);

  await page.goto(`${world.base}/events?type=weight`);
  await page.getByRole('heading', { name: 'Event log' }).waitFor();
  // The event log reads as sentences (issue 45): the weight and who was weighed, no JSON.
  await page
    .getByText(/^Weighed .+: 301\.5 kg/)
    .first()
    .waitFor();
  assert.doesNotMatch(await page.evaluate<string>('document.getElementById("main").innerText'), /"kg"/);
  await assertNoHorizontalScroll(page);
  assert.deepEqual(problems, []);
  await page.context().close();
});

// ---- Issue 34: any language setting, and a new farm in the browser's time zone ----

test('the Tasks page lists overdue first, then due today (its time passed or not), then by due date, undated last; the brief says the same of each', async () => {
  const key = live.live_key;
  // A farm whose clock shows about noon now (a fixed-offset zone), so "earlier today" and "later today" are
  // both today and "yesterday" is not.
  const hour = new Date().getUTCHours();
  const offset = 12 - hour;
  const timezone = offset === 0 ? 'UTC' : `Etc/GMT${offset > 0 ? '-' : '+'}${Math.abs(offset)}`;
  const farm = await makeFarm(world.t, key, { name: 'Noon farm', timezone });
  const inHours = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString();
  // Made in another order than the one shown: the API lists them newest first.
  const made: [string, string | undefined][] = [
    ['Clean the shed', undefined],
    ['Order feed', inHours(24)],
    ['Check the water', inHours(-2)],
    ['Vet visit', inHours(72)],
    ['Fix the fence', inHours(-48)],
    ['Move the ewes', inHours(2)],
    ['Mend the gate', inHours(-72)],
  ];
  for (const [title, due] of made)
    await makeTask(world.t, key, farm.id, { title, ...(due ? { due_at: due } : {}) });
  const { page, problems } = await signedInPage(world, live, PHONE);
  try {
    await page.goto(`${world.base}/tasks`);
    await page.locator('.farm-switcher select').selectOption({ label: 'Noon farm' });
    await page.locator('li.task', { hasText: 'Clean the shed' }).waitFor();
    const titles = () => page.locator('li.task .card-title').allTextContents();
    assert.deepEqual(await titles(), [
      'Mend the gate',
      'Fix the fence',
      'Check the water',
      'Move the ewes',
      'Order feed',
      'Vet visit',
      'Clean the shed',
    ]);
    // Due two hours ago: today's, as the brief says, not overdue.
    const water = page.locator('li.task', { hasText: 'Check the water' });
    await water.getByText(/· Today/).waitFor();
    assert.equal(await water.getByText('Overdue').count(), 0);
    await page
      .locator('li.task')
      .first()
      .evaluate((card) => card.scrollIntoView());
    await screenshot(page, 'console-tasks-order-phone');
    await page.getByRole('button', { name: 'Overdue' }).click();
    assert.deepEqual(await titles(), ['Mend the gate', 'Fix the fence']);
    await page.getByRole('button', { name: 'Due today' }).click();
    assert.deepEqual(await titles(), ['Check the water', 'Move the ewes']);
    const brief = await world.t.request<{ items: { kind: string; title: string }[] }>(
      'GET',
      `/v1/farms/${farm.id}/brief`,
      { key },
    );
    const kind = (k: string) => brief.body.items.filter((i) => i.kind === k).map((i) => i.title);
    assert.deepEqual(kind('task_overdue'), ['Mend the gate', 'Fix the fence']);
    assert.deepEqual(kind('task_due_today'), ['Check the water', 'Move the ewes']);
    assert.deepEqual(problems, []);
  } finally {
    await page.context().close();
    // The next tests see the account's first farm.
    await world.t.request('DELETE', `/v1/farms/${farm.id}`, { key });
  }
});

test('chart pages draw in a browser whose language is not a valid tag (en-US@posix, de_DE.UTF-8), with no page error', async () => {
  for (const locale of ['en-US@posix', 'de_DE.UTF-8']) {
    const { page, problems } = await signedInPage(world, live, PHONE, 'owner', { locale });
    await page.goto(`${world.base}/`);
    await page.locator('h1.headline').waitFor();
    // What the browser reports, as a machine with a POSIX locale makes Chromium do: Intl refuses it.
    const reported = await page.evaluate<string>('navigator.language');
    assert.notEqual(reported, 'en-US', locale);
    assert.equal(
      await page.evaluate<boolean>(
        '(() => { try { new Intl.NumberFormat(navigator.language); return true } catch { return false } })()',
      ),
      false,
      `${locale}: ${reported} should be a tag Intl refuses`,
    );
    // Settings' usage section draws its bars (an SVG, dates in the reader's locale), the device page the readings.
    await page.goto(`${world.base}/settings/usage`);
    const usage = page.locator('figure', { hasText: 'Calls by day' });
    await usage.locator('rect.usage-api').first().waitFor();
    assert.match(
      (await usage.getByRole('img').getAttribute('aria-label')) ?? '',
      /^Calls by day\. The busiest day, .+: \d+ calls?\.$/,
    );
    await usage.scrollIntoViewIfNeeded();
    if (locale === 'en-US@posix') await screenshot(page, 'console-chart-posix-locale-phone');
    const devices = await world.t.request<{ data: { id: string; name: string }[] }>(
      'GET',
      `/v1/farms/${liveFarm.id}/devices`,
      { key: live.live_key },
    );
    const bolus = devices.body.data.find((d) => d.name === 'Bolus 7');
    assert.ok(bolus, 'the device added by an earlier step');
    await page.goto(`${world.base}/devices/${bolus.id}`);
    // The chart draws once scrolled to (uPlot loads when it comes into view).
    await page.locator('figure', { hasText: 'Body temperature' }).scrollIntoViewIfNeeded();
    await page.locator('figure', { hasText: 'Body temperature' }).locator('canvas').first().waitFor();
    await assertNoHorizontalScroll(page);
    assert.deepEqual(problems, [], locale);
    await page.context().close();
  }
});

/** Keeps the text every canvas of the page draws (a chart's axis labels) in `window.drawnText`. */
async function recordCanvasText(page: Page): Promise<void> {
  await page.addInitScript(`{
    window.drawnText = [];
    const fill = CanvasRenderingContext2D.prototype.fillText;
    CanvasRenderingContext2D.prototype.fillText = function (text, ...at) {
      window.drawnText.push(String(text));
      return fill.call(this, text, ...at);
    };
  }`);
}

const SPANISH_DAY = /^\d{1,2} (ene|feb|mar|abr|may|jun|jul|ago|sept?|oct|nov|dic)\.?$/;
const ENGLISH_DAY = /^(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{1,2}$/;

/**
 * The device page's chart of Bolus 7's body temperature, drawn, in the reader's language: the metric and
 * its rule by their names (no code in the visible text), the time axis and the legend's time written as
 * the language writes dates, in the farm's zone (America/Chicago, the browser's being Asia/Kolkata).
 */
async function chartSpeaks(page: Page, language: 'en' | 'es', deviceId: string): Promise<void> {
  const es = language === 'es';
  const metric = es ? 'Temperatura corporal' : 'Body temperature';
  await page.getByRole('checkbox', { name: metric }).waitFor();
  const figure = page.locator('figure.chart', { hasText: metric });
  await figure
    .getByText(es ? /Temperatura elevada: vigilar 40\s?°C/ : /Raised temperature watch 40\s?°C/)
    .waitFor();
  await page
    .getByText(es ? /Últimas: Temperatura corporal 39,1\s?°C/ : /Latest: Body temperature 39.1\s?°C/)
    .waitFor();
  const visible = await page.evaluate<string>('document.getElementById("main").innerText');
  assert.doesNotMatch(visible, /body\.temp_c|animal\.fever/, visible);
  // The axis: a time for each tick on the console's 24-hour clock (as every time of the console, in every
  // language), on the farm's whole hours; the day on a second line at the first tick and at the farm's
  // midnight.
  const drawn = await waitFor('the axis labels', async () => {
    const texts = await page.evaluate<string[]>('window.drawnText');
    return texts.some((text) => /:\d\d/.test(text)) ? texts : null;
  });
  const times = drawn.filter((text) => /^\d{1,2}:\d\d/.test(text));
  assert.ok(times.length >= 2, `times on the axis: ${drawn.join(' | ')}`);
  for (const time of times) assert.match(time, /^\d\d:00$/, time);
  const midnight = /^00:00$/;
  assert.ok(
    times.some((time) => midnight.test(time)),
    `midnight on the farm: ${times.join(' | ')}`,
  );
  assert.ok(
    drawn.some((text) => (es ? SPANISH_DAY : ENGLISH_DAY).test(text)),
    drawn.join(' | '),
  );
  assert.ok(
    !drawn.some((text) => /\d+\/\d+|\b[ap]\.?\s?m\.?(?!\w)/i.test(text)),
    `US-style: ${drawn.join(' | ')}`,
  );
  // The legend's time under the pointer: the reading's bucket, in the farm's time, written as the page's
  // other times are (`farmTime`: "Nov 29, 14:05", "29 nov, 14:05").
  await figure.locator('.u-over').hover();
  const legendTime = figure.locator('.u-legend .u-series').first().locator('.u-value');
  const shown = await waitFor('the legend time', async () => {
    const text = (await legendTime.textContent()) ?? '';
    return /\d:\d\d/.test(text) ? text : null;
  });
  assert.match(
    shown,
    es
      ? /^\d{1,2} (ene|feb|mar|abr|may|jun|jul|ago|sept?|oct|nov|dic)\.?, \d\d:\d\d$/
      : /^(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{1,2}, \d\d:\d\d$/,
  );
  const since = new Date(Date.now() - 24 * 3_600_000).toISOString();
  const points = await world.t.request<{ data: { at: string }[] }>(
    'GET',
    `/v1/devices/${deviceId}/readings?since=${since}&interval=5m&agg=avg&limit=500`,
    { key: live.live_key },
  );
  const farmClock = new Intl.DateTimeFormat('en-GB', {
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    timeZone: 'America/Chicago',
  });
  const clocks = points.body.data.map((p) => farmClock.format(new Date(p.at)));
  assert.ok(
    clocks.includes(shown.match(/\d\d:\d\d/)?.[0] ?? ''),
    `${shown} is not one of ${clocks.join(', ')} (Chicago)`,
  );
}

test('a chart below the first screen at 360 px draws when scrolled to: uPlot is not requested before; its summary is there at once; its box keeps its place (device, animal; English and Spanish)', async () => {
  const key = { key: live.live_key };
  const devices = await world.t.request<{ data: { id: string; name: string }[] }>(
    'GET',
    `/v1/farms/${liveFarm.id}/devices`,
    key,
  );
  const bolus = devices.body.data.find((d) => d.name === 'Bolus 7');
  const animals = await world.t.request<{ data: { id: string }[] }>(
    'GET',
    `/v1/farms/${liveFarm.id}/animals?tag=WC-4521`,
    key,
  );
  const clover = animals.body.data[0];
  assert.ok(bolus && clover, 'the device and the weighed animal added by earlier steps');
  for (const language of ['en', 'es'] as const) {
    // A browser whose zone (UTC+5:30) is not the farm's (Chicago): the chart's times must be the farm's.
    const { page, problems, person } = await signedInPage(world, live, PHONE, 'owner', {
      timezoneId: 'Asia/Kolkata',
    });
    assert.equal((await person.request('PATCH', '/v1/me', { body: { language } })).status, 200);
    await recordCanvasText(page);
    const requested: string[] = [];
    page.on('request', (r) => requested.push(new URL(r.url()).pathname));
    const uPlotAsked = () => requested.some((path) => path.endsWith('/vendor/uplot.mjs'));
    // The device's readings chart is below the first screen at 360 px.
    await page.goto(`${world.base}/devices/${bolus.id}`);
    const figure = page.locator('figure.chart').first();
    // The text alternative is there at first paint, before any drawing.
    await figure.locator('.chart-summary').waitFor({ state: 'attached' });
    const chartBox = figure.locator('.chart-box');
    const placed = await chartBox.boundingBox();
    assert.ok(placed && placed.y >= PHONE.height, `the chart is below the first screen (${placed?.y})`);
    // A moment for anything the page would ask for: no chart drawn, uPlot not requested.
    await page.waitForTimeout(400);
    assert.equal(await figure.locator('canvas').count(), 0, 'drawn before it was in view');
    assert.equal(uPlotAsked(), false, 'uPlot requested before the chart was in view');

    await figure.scrollIntoViewIfNeeded();
    await figure.locator('canvas').first().waitFor();
    assert.ok(uPlotAsked());
    // The placeholder had the chart's size: the drawn chart is exactly the box held for it.
    const drawn = await chartBox.boundingBox();
    assert.equal(Math.round(drawn?.height ?? 0), Math.round(placed.height), 'the box changed height');
    await assertNoHorizontalScroll(page);
    await screenshot(page, `console-device-chart-scrolled-phone-${language}`);
    await chartSpeaks(page, language, bolus.id);

    // The animal's weight chart, scrolled to (for a weighed animal it starts at the first screen's edge).
    await page.goto(`${world.base}/animals/${clover.id}`);
    const weight = page.locator('figure.chart').first();
    await weight.scrollIntoViewIfNeeded();
    await weight.locator('canvas').first().waitFor();
    await assertNoHorizontalScroll(page);
    await screenshot(page, `console-animal-chart-scrolled-phone-${language}`);
    assert.deepEqual(problems, [], language);
    await page.context().close();
  }
});

test("the create-farm form proposes the browser's time zone, and the new farm is chosen", async () => {
  // An account of its own (a new farm would be the others' first farm); its session opens in test mode.
  const account = await world.t.account('Hillside');
  const { page, problems } = await signedInPage(world, account, PHONE, 'owner', { timezoneId: 'Asia/Tokyo' });
  await page.goto(`${world.base}/settings`);
  const form = page.getByRole('form', { name: 'Add a farm' });
  await form.waitFor();
  assert.equal(await form.getByLabel('Time zone').inputValue(), 'Asia/Tokyo');
  await form.getByText("The time zone is this browser's (Asia/Tokyo)").waitFor();
  await form.getByLabel('Name').fill('Hillside Orchard');
  await form.getByLabel('Latitude').fill('35.68');
  await form.getByLabel('Longitude').fill('139.69');
  await form.scrollIntoViewIfNeeded();
  await assertNoHorizontalScroll(page);
  await screenshot(page, 'console-farm-create-phone');
  await form.getByRole('button', { name: 'Add farm' }).click();
  await form.getByRole('status').getByText('Added Hillside Orchard (Asia/Tokyo)').waitFor();
  // The new farm is the chosen one, and the server stored the zone the form proposed.
  await page.getByText('For Hillside Orchard;').waitFor();
  const farms = await world.t.request<{ data: Farm[] }>('GET', '/v1/farms', { key: account.test_key });
  const made = farms.body.data.find((f) => f.name === 'Hillside Orchard');
  assert.equal(made?.timezone, 'Asia/Tokyo');
  assert.deepEqual(problems, []);
  await page.context().close();
});
