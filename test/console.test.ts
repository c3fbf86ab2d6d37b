/**
 * The console in a real browser (headless Chromium from @sparticuz/chromium, driven by playwright-core),
 * read as a person's steps. One server, one browser, one account for the whole file.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  assertNoHorizontalScroll,
  type ConsoleWorld,
  openPage,
  PHONE,
  startConsole,
} from './console-helpers.ts';

let world: ConsoleWorld;

before(async () => {
  world = await startConsole();
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
