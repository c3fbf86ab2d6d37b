/**
 * Grazing in the console, in a real browser on a phone: the plan shows each paddock's rest against its
 * target and warns about a planned move that comes too early; the paddocks page shows who is in each and its
 * history; a task that plans a move is written with the form and, marked done, moves the herd.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { NewAccount } from '../src/modules/accounts/service.ts';
import type { Farm } from '../src/modules/farms/schemas.ts';
import type { Group } from '../src/modules/groups/schemas.ts';
import type { Paddock } from '../src/modules/paddocks/schemas.ts';
import { screenshot } from './browser.ts';
import {
  assertNoHorizontalScroll,
  type ConsoleWorld,
  DESKTOP,
  PHONE,
  signedInPage,
  startConsole,
} from './console-helpers.ts';
import * as make from './factories.ts';
import { waitFor } from './harness.ts';

const DAY = 86_400_000;

function square(lon: number, lat: number) {
  const s = 0.01;
  return {
    type: 'Polygon',
    coordinates: [
      [
        [lon, lat],
        [lon + s, lat],
        [lon + s, lat + s],
        [lon, lat + s],
        [lon, lat],
      ],
    ],
  };
}

let world: ConsoleWorld;
let account: NewAccount;
let farm: Farm;
let west: Paddock;
let east: Paddock;
let north: Paddock;
let herd: Group;

before(async () => {
  world = await startConsole();
  account = await world.t.account('Rotation Ranch');
  const key = account.live_key;
  farm = await make.farm(world.t, key, { name: 'Rotation Ranch', timezone: 'America/Chicago' });
  west = await make.paddock(world.t, key, farm.id, {
    name: 'West',
    rest_days_target: 30,
    geometry: square(-97.1, 38.2),
  });
  east = await make.paddock(world.t, key, farm.id, {
    name: 'East',
    rest_days_target: 30,
    geometry: square(-97.09, 38.2),
  });
  north = await make.paddock(world.t, key, farm.id, { name: 'North', rest_days_target: 60 });
  // The herd was in East until 40 days ago, in North until 10 days ago, and is in West now.
  herd = await make.group(world.t, key, farm.id, { name: 'Herd', species: 'cattle', paddock_id: east.id });
  for (const [to, daysAgo] of [
    [north.id, 40],
    [west.id, 10],
  ] as const) {
    await make.posted(world.t, key, `/v1/farms/${farm.id}/events`, {
      type: 'move',
      subject_id: herd.id,
      data: { to_paddock_id: to },
      at: new Date(Date.now() - daysAgo * DAY).toISOString(),
    });
  }
  await make.device(world.t, key, farm.id, { name: 'House 1', lat: 38.205, lon: -97.095 });
  // Planned: back to North in 5 days (55 days before its 60-day target), to East tomorrow (rested).
  await make.task(world.t, key, farm.id, {
    title: 'Herd to North',
    subject_id: herd.id,
    paddock_id: north.id,
    due_at: new Date(Date.now() + 5 * DAY).toISOString(),
  });
});

after(async () => {
  await world?.close();
});

test('the grazing plan shows each paddock rested against its target and warns about a move before it', async () => {
  const { page, problems } = await signedInPage(world, account, PHONE);
  await page.goto(`${world.base}/plan`);
  await page.getByRole('heading', { name: 'Grazing plan' }).waitFor();
  const row = (name: string) =>
    page.locator('li.plan-row', { has: page.getByRole('heading', { name, exact: true }) });
  await row('East').getByText('Ready: rested 40 of 30 days').waitFor();
  await row('West').getByText('Being grazed').waitFor();
  await row('West').getByRole('link', { name: 'Herd' }).waitFor();
  await row('West').getByRole('link', { name: 'House 1' }).waitFor();
  await row('North').getByText('Rested 10 of 60 days').waitFor();
  await row('North').getByText('⚠ 45 days before its rest target').waitFor();
  await page.getByText('1 planned move before the rest target').waitFor();
  assert.equal(await row('North').locator('.plan-move.early').count(), 1, 'the marker is drawn as early');
  assert.equal(await page.locator('li.plan-row').count(), 3, 'every paddock has its line');
  // The timeline is drawn by the style sheet: each track a bar with its segments laid on it, not a row of
  // empty boxes.
  await waitFor('the style sheet to draw the plan’s timelines', () =>
    page.evaluate<boolean>(
      `[...document.querySelectorAll('.plan-track')].every((track) =>
        getComputedStyle(track).position === 'relative' && track.getBoundingClientRect().height >= 16 &&
        [...track.querySelectorAll('.plan-seg')].every((seg) => getComputedStyle(seg).position === 'absolute'))`,
    ),
  );
  await assertNoHorizontalScroll(page);
  await screenshot(page, 'console-plan-phone');
  await page.setViewportSize(DESKTOP);
  await screenshot(page, 'console-plan-desktop');
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('a paddock card shows who is in it and its grazing history; a house card, the paddock it stands in', async () => {
  const { page, problems } = await signedInPage(world, account, PHONE);
  await page.goto(`${world.base}/paddocks`);
  const card = (name: string) =>
    page.locator('li.card', { has: page.getByRole('heading', { name, exact: true }) });
  await card('West').getByText('In it now:').waitFor();
  await card('West').getByText('being grazed').waitFor();
  await card('East').getByText('40 days').waitFor();
  await card('North').getByText('Grazing history').click();
  const history = card('North').getByRole('list', { name: 'Grazing history of North' });
  await history.getByText('Herd').waitFor();
  assert.equal(await history.locator('li').count(), 1);
  await assertNoHorizontalScroll(page);
  await screenshot(page, 'console-paddocks-grazing-phone');
  // The house stands in West (its position), as its card on the Houses page says.
  await page.goto(`${world.base}/houses`);
  const house = page.locator('article.house', {
    has: page.getByRole('heading', { name: 'House 1', exact: true }),
  });
  await house.getByRole('link', { name: 'West' }).waitFor();
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('a task planning a move is added with the form, and marking it done moves the herd', async () => {
  const { page, problems } = await signedInPage(world, account, PHONE);
  await page.goto(`${world.base}/tasks`);
  const form = page.getByRole('form', { name: 'Add a task' });
  await form.getByLabel('Task').fill('Herd to East');
  await form.getByLabel('Group to move').selectOption({ label: 'Herd' });
  await form.getByLabel('To paddock').selectOption({ label: 'East' });
  await form.getByRole('button', { name: 'Add task' }).click();
  const card = page.locator('li.card', {
    has: page.getByRole('heading', { name: 'Herd to East', exact: true }),
  });
  await card.getByText('Move Herd to East').waitFor();
  await assertNoHorizontalScroll(page);
  await screenshot(page, 'console-tasks-move-phone');
  await card.getByRole('button', { name: 'Done' }).click();
  // The card leaves the open tasks once the server has taken the done (and made the move).
  await card.waitFor({ state: 'detached' });
  const moved = await make.fetched<Group>(world.t, account.live_key, `/v1/groups/${herd.id}`);
  assert.equal(moved.paddock_id, east.id, 'the herd is in East');
  assert.deepEqual(problems, []);
  await page.context().close();
});
