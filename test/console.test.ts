/**
 * The console in a real browser (headless Chromium from @sparticuz/chromium, driven by playwright-core),
 * read as a person's steps. One server, one browser, one account for the whole file.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Farm } from '../src/modules/farms/schemas.ts';
import { screenshot } from './browser.ts';
import {
  assertNoHorizontalScroll,
  type ConsoleWorld,
  DESKTOP,
  openPage,
  PHONE,
  signedInPage,
  startConsole,
} from './console-helpers.ts';
import { farm as makeFarm, paddock as makePaddock, task as makeTask } from './factories.ts';
import { startReceiver } from './harness.ts';

let world: ConsoleWorld;
/** A live farm of the world's account, so sessions open in live mode on it. */
let liveFarm: Farm;

before(async () => {
  world = await startConsole();
  liveFarm = await makeFarm(world.t, world.account.live_key, {
    name: 'Willow Creek',
    timezone: 'America/Chicago',
  });
});

after(async () => {
  await world?.close();
});

test('the sign-in page works on a phone without sideways scrolling, everything from this server', async () => {
  const { page, problems } = await openPage(world, PHONE);
  await page.goto(`${world.base}/sign-in`);
  await page.getByRole('heading', { name: 'Sign in to Farmstead' }).waitFor();
  await page.getByLabel('Email').waitFor();
  await page.getByLabel('Password').waitFor();
  await assertNoHorizontalScroll(page);
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('add an animal, find it by its tag, log a weight and see it on the weight chart', async () => {
  const { page, problems } = await signedInPage(world, DESKTOP);
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
  // The chart is uPlot's canvas inside the weight figure.
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
  const { page, problems } = await signedInPage(world, DESKTOP);
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
  await page.getByRole('checkbox', { name: 'body.temp_c' }).waitFor();
  const chart = page.locator('figure', { hasText: 'body.temp_c' });
  await chart.locator('canvas').first().waitFor();
  await chart.getByText(/animal\.fever watch/).waitFor();
  await page.getByText('body.temp_c 39.1').waitFor();
  await page.getByRole('button', { name: '30 d' }).click();
  await page.getByText('Averages per 1h bucket').waitFor();
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

test("a bad alert threshold shows the API's error on its cell; a good one is saved", async () => {
  const { page, problems } = await signedInPage(world, DESKTOP);
  await page.goto(`${world.base}/settings`);
  const watch = page.getByLabel('house.ammonia watch');
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
    key: world.account.live_key,
  });
  assert.equal((saved.body.settings.rules as Record<string, { watch: number }>)['house.ammonia']?.watch, 18);
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('create a webhook, send a test event, and see it in the delivery log', async () => {
  const receiver = await startReceiver(() => 204);
  try {
    const { page, problems } = await signedInPage(world, DESKTOP);
    await page.goto(`${world.base}/settings`);
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
  const { page, problems } = await signedInPage(world, DESKTOP);
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
      key: world.account.live_key,
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
      key: world.account.live_key,
    },
  );
  assert.equal(after.body.data.length, 1);
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('groups, paddocks (outline drawn offline), tasks and the event log open on a phone without sideways scrolling', async () => {
  const key = world.account.live_key;
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
  await makeTask(world.t, key, liveFarm.id, {
    title: 'Check the north water trough',
    due_at: new Date(Date.now() - 3_600_000).toISOString(),
  });
  await world.t.request('POST', `/v1/farms/${liveFarm.id}/events`, {
    key,
    body: { type: 'weight', data: { kg: 301.5 } },
  });
  const { page, problems } = await signedInPage(world, PHONE);
  await page.goto(`${world.base}/paddocks`);
  const card = page.locator('li.card', { hasText: 'North 40' });
  await card.getByRole('img', { name: 'Outline of North 40' }).waitFor();
  await card.getByText('Past rest target').waitFor();
  await card.getByText('45 days').waitFor();
  await assertNoHorizontalScroll(page);

  await page.getByRole('link', { name: 'Tasks' }).click();
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
  await page.getByRole('link', { name: 'Spring lambs' }).waitFor();
  await assertNoHorizontalScroll(page);

  await page.goto(`${world.base}/events?type=weight`);
  await page.getByRole('heading', { name: 'Event log' }).waitFor();
  await page.getByText('"kg":301.5').waitFor();
  await assertNoHorizontalScroll(page);
  assert.deepEqual(problems, []);
  await page.context().close();
});
