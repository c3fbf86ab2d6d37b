/**
 * The chute page (issue 47) on a phone (360 px) in headless Chromium against a real server: three steers
 * weighed by "scanning" their EIDs as a Bluetooth stick reader does (the digits and Enter typed into the
 * page, in three of the reader forms), the weights typed on the keyboard, save going back to the scan field;
 * the second weighed OFFLINE (kept in the field app's queue, sent once with its Idempotency-Key when the
 * signal is back). Each weight is stored once, as the API shows; then the animal's page lists its weights
 * with their gains and ADG, and the group's figures show. A bred cow's card shows her pregnancy check due.
 * Screenshots at 360 px.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import AxeBuilder from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { localDateStart, localDateText } from '../src/lib/local-time.ts';
import type { AnimalWeights, WeightEntry } from '../src/modules/weights/schemas.ts';
import type { Animal, Farm } from '../test/replies.ts';
import { screenshot } from './browser.ts';
import {
  assertNoHorizontalScroll,
  type ConsoleWorld,
  PHONE,
  phoneHoldsFarm,
  serviceWorkerControls,
  signedInPage,
  startConsole,
} from './console-helpers.ts';
import * as make from './factories.ts';
import { waitFor } from './harness.ts';

const DAY = 86_400_000;

let world: ConsoleWorld;

before(async () => {
  world = await startConsole();
});
after(async () => {
  await world?.close();
});

/** Where the focus is (a reader types into whatever has it). */
const focused = (page: Page) => page.evaluate<string>('document.activeElement?.id ?? ""');

/** A stick reader: the number, then Enter, typed into the page as keystrokes. */
async function scanWithReader(page: Page, eid: string): Promise<void> {
  // The page moves the focus after it renders (an effect): wait for it, as a person would see the cursor.
  await waitFor('the scan field to have the focus', async () => (await focused(page)) === 'chute-scan');
  await page.keyboard.type(eid, { delay: 5 });
  await page.keyboard.press('Enter');
}

test('the chute: three steers scanned and weighed at 360 px, one offline; each weight stored once', async () => {
  const account = await world.t.account('Chute Weigh Farm');
  const key = account.live_key;
  const farm: Farm = await make.farm(world.t, key, { name: 'Chute Weigh Farm', timezone: 'UTC' });
  const group = await make.group(world.t, key, farm.id, { name: 'Steers', species: 'cattle' });
  const steers: Animal[] = [];
  for (const n of [1, 2, 3]) {
    steers.push(
      await make.animal(world.t, key, farm.id, {
        tag: `S-10${n}`,
        eid: `98200000108842${n}`,
        species: 'cattle',
        sex: 'steer',
        group_id: group.id,
      }),
    );
  }
  const [first, second, third] = steers as [Animal, Animal, Animal];
  // A cow served 40 days ago and not checked since: her pregnancy check is due (35 to 60 days).
  const cow = await make.animal(world.t, key, farm.id, {
    tag: 'C-201',
    eid: '982000001088424',
    species: 'cattle',
    sex: 'female',
  });
  await make.created(world.t, key, `/v1/farms/${farm.id}/events`, {
    type: 'service',
    subject_id: cow.id,
    data: { method: 'ai', sire_name: 'Hilltop Resolve' },
    at: new Date(Date.now() - 40 * DAY).toISOString(),
  });
  // The first has a history: 340 kg 60 days ago, 370 kg 30 days ago (1 kg a day).
  for (const [days, kg] of [
    [60, 340],
    [30, 370],
  ] as const) {
    await make.posted(world.t, key, `/v1/animals/${first.id}/weights`, {
      kg,
      at: new Date(Date.now() - days * DAY).toISOString(),
      source: 'event',
    });
  }

  const { page, problems, person } = await signedInPage(world, account, PHONE, 'owner', {
    serviceWorker: true,
  });
  const personId = person.session.person.id;
  const context = page.context();
  await page.goto(`${world.base}/`);
  await page.locator('h1.headline').waitFor();
  await serviceWorkerControls(page);
  await phoneHoldsFarm(page, personId, farm.id);
  // On a phone the chute is under More.
  await page.getByRole('button', { name: 'More' }).click();
  await page.getByRole('link', { name: 'Chute' }).click();
  await page.getByRole('heading', { name: 'Chute', level: 1 }).waitFor();
  await waitFor('the scan field to have the focus', async () => (await focused(page)) === 'chute-scan');

  // 1. Online, the reader's own line (tag type, then the number with a space).
  await scanWithReader(page, 'LA 982 000001088421');
  await page.getByRole('heading', { name: 'S-101' }).waitFor();
  await page.getByText('Last weight 370 kg').waitFor();
  const card = (await page.locator('.chute-card').textContent()) ?? '';
  // Two decimals, as the animal's page writes a gain.
  assert.match(card, /Gaining 1\.00 kg a day/);
  // Two weights: their average daily gain is the same 1 kg, said once.
  assert.doesNotMatch(card, /Over every weighing/);
  await waitFor('the weight field to have the focus', async () => (await focused(page)) === 'chute-kg');
  await page.keyboard.type('412.5');
  await waitFor('the chute style sheet', () =>
    page.evaluate<boolean>(
      "[...document.styleSheets].some((s) => s.href?.endsWith('chute.css') && s.cssRules.length > 0)",
    ),
  );
  await assertNoHorizontalScroll(page);
  // Big targets: the weight field and Save are 56 px high or more.
  for (const target of [page.locator('#chute-kg'), page.getByRole('button', { name: 'Save and next' })]) {
    const box = await target.boundingBox();
    assert.ok(box && box.height >= 56, `a target ${box?.height} px high`);
  }
  const { violations } = await new AxeBuilder({ page }).include('main').analyze();
  assert.deepEqual(
    violations.map((v) => v.id),
    [],
  );
  await screenshot(page, 'console-chute-phone');
  await page.keyboard.press('Enter');
  await page.getByText('Saved 412.5 kg for S-101.').waitFor();
  await waitFor('save to go back to the scan field', async () => (await focused(page)) === 'chute-scan');

  // 2. Offline: the 15 digits with a dot, as some readers send them; kept on the phone.
  await context.setOffline(true);
  await scanWithReader(page, '982.000001088422');
  await page.getByRole('heading', { name: 'S-102' }).waitFor();
  await page.getByText('Its weights show when there is signal.').waitFor();
  await waitFor('the weight field to have the focus', async () => (await focused(page)) === 'chute-kg');
  await page.keyboard.type('398');
  await page.keyboard.press('Enter');
  await page.getByText('398 kg for S-102 is kept on this phone').waitFor();
  await page.getByText('Waiting to sync (1)').waitFor();
  await screenshot(page, 'console-chute-offline-phone');
  await waitFor('the scan field again', async () => (await focused(page)) === 'chute-scan');

  // 3. Back online: the queue sends the second weight, once; the third is scanned as plain digits.
  const keys: string[] = [];
  await context.route('**/v1/animals/*/weights', async (route) => {
    if (route.request().method() === 'POST') keys.push(route.request().headers()['idempotency-key'] ?? '');
    await route.continue();
  });
  await context.setOffline(false);
  await scanWithReader(page, '982000001088423');
  await page.getByRole('heading', { name: 'S-103' }).waitFor();
  await page.getByText('Never weighed before.').waitFor();
  await waitFor('the weight field to have the focus', async () => (await focused(page)) === 'chute-kg');
  await page.keyboard.type('405');
  await page.keyboard.press('Enter');
  await page.getByText('Saved 405 kg for S-103.').waitFor();
  await waitFor(
    'the queue to be sent',
    async () => (await page.getByText(/Waiting to sync/).count()) === 0,
    40_000,
  );
  assert.match((await page.locator('.chute-done').textContent()) ?? '', /Weighed here: 3 animals/);

  // What is due shows on the card: the cow's pregnancy check; she is skipped, not weighed.
  await scanWithReader(page, '982000001088424');
  await page.getByRole('heading', { name: 'C-201' }).waitFor();
  await page.locator('.chute-card').getByText('Pregnancy check due').waitFor();
  await page.getByRole('button', { name: 'Skip' }).click();
  // The first steer again: three weights now, and his average daily gain (72.5 kg in 60 days) is not his
  // last gain (42.5 kg in 30 days), so the card gives both.
  await scanWithReader(page, '982000001088421');
  await page.getByRole('heading', { name: 'S-101' }).waitFor();
  await page.locator('.chute-card').getByText('Over every weighing: 1.21 kg a day.').waitFor();
  assert.match((await page.locator('.chute-card').textContent()) ?? '', /Gaining 1\.42 kg a day/);
  await page.getByRole('button', { name: 'Skip' }).click();

  // Each weight stored once, with the chute as its source.
  const chuteWeights = async (a: Animal) =>
    (await make.fetched<AnimalWeights>(world.t, key, `/v1/animals/${a.id}/weights`)).data
      .filter((w): w is WeightEntry => (w as WeightEntry).source === 'chute')
      .map((w) => w.kg);
  assert.deepEqual(await chuteWeights(first), [412.5]);
  assert.deepEqual(await chuteWeights(second), [398]);
  assert.deepEqual(await chuteWeights(third), [405]);
  assert.equal(new Set(keys).size, keys.length, 'each request under its own key');
  assert.ok(
    keys.every((k) => k.length >= 32),
    'every weight sent with an Idempotency-Key',
  );
  // The animal's page: its weights from every source with their gains, and the ADG; the group's figures.
  await page.goto(`${world.base}/animals/${first.id}`);
  await page.getByRole('heading', { name: 'Weight', exact: true }).waitFor();
  await page.locator('.weight-figures', { hasText: 'Average daily gain' }).waitFor();
  const rows = await page.locator('table.weights tbody tr').allTextContents();
  assert.equal(rows.length, 3);
  assert.match(rows[0] ?? '', /412\.5 kg.*chute/);
  assert.match(rows[2] ?? '', /340 kg.*—.*logged/);
  await page.goto(`${world.base}/groups`);
  await page.getByRole('button', { name: 'Weights of Steers' }).click();
  const figures = page.locator('.group-weights');
  await figures.getByText('3 of 3').waitFor();
  assert.match((await figures.textContent()) ?? '', /Lightest398 kg.*Heaviest412\.5 kg/);
  await screenshot(page, 'console-group-weights-phone');
  assert.deepEqual(
    problems.filter((p) => !p.startsWith('foreign')),
    [],
  );
  await context.close();
});

test('breeding and lineage: a bred cow on the calving calendar, her state and pedigree on her page', async () => {
  const account = await world.t.account('Calving Farm');
  const key = account.live_key;
  // Far east of UTC: the farm's days are not UTC's (a day late once, read at noon UTC in the farm's zone).
  const zone = 'Pacific/Auckland';
  const farm: Farm = await make.farm(world.t, key, { name: 'Calving Farm', timezone: zone });
  const granddam = await make.animal(world.t, key, farm.id, { tag: 'G-1', species: 'cattle', sex: 'female' });
  const dam = await make.animal(world.t, key, farm.id, {
    tag: 'D-1',
    species: 'cattle',
    sex: 'female',
    dam_id: granddam.id,
  });
  const cow = await make.animal(world.t, key, farm.id, {
    tag: 'C-1',
    name: 'Clover',
    species: 'cattle',
    sex: 'female',
    dam_id: dam.id,
    sire_name: 'Bluegrass Major',
    sire_registration: 'UK123',
  });
  // Served by AI at 08:00 on the farm 250 days ago (the evening before in UTC): due in 33 days (cattle 283).
  const served = localDateStart(localDateText(Date.now() - 250 * DAY, zone), zone) + 8 * 3_600_000;
  await make.posted(world.t, key, `/v1/farms/${farm.id}/events`, {
    type: 'service',
    subject_type: 'animal',
    subject_id: cow.id,
    at: new Date(served).toISOString(),
    data: { method: 'ai', sire_name: 'Redhill Samson', straw: 'RS-0042' },
  });
  const dueDate = (await make.fetched<Animal>(world.t, key, `/v1/animals/${cow.id}`)).breeding?.due_date;
  assert.ok(dueDate);
  const dueDay = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' }).format(
    new Date(`${dueDate}T12:00:00Z`),
  );
  const { page, problems } = await signedInPage(world, account, PHONE, 'owner');
  await page.goto(`${world.base}/calving`);
  await page.getByRole('heading', { name: 'Calving calendar' }).waitFor();
  const entry = page.getByRole('listitem').filter({ hasText: 'C-1 Clover' });
  await entry.waitFor();
  assert.match(
    (await entry.textContent()) ?? '',
    /bred \(not yet checked\): due \w+ \d+(, \d{4})? if it held/,
  );
  assert.match((await entry.textContent()) ?? '', new RegExp(`due ${dueDay}\\b`), `the API's ${dueDate}`);
  await assertNoHorizontalScroll(page);
  await screenshot(page, 'console-calving-phone');
  await entry.getByRole('link').click();
  await page.getByRole('heading', { name: 'Breeding and lineage' }).waitFor();
  assert.match(
    (await page.locator('.breeding-state').textContent()) ?? '',
    new RegExp(`Bred: due ${dueDay}\\b`),
  );
  await page.getByRole('link', { name: 'D-1' }).waitFor();
  await page.getByRole('link', { name: 'G-1' }).waitFor();
  const facts = (await page.locator('dl.facts').last().textContent()) ?? '';
  assert.match(facts, /SireBluegrass Major \(UK123\)/);
  assert.match(facts, /Inbreeding0\.00 %/);
  assert.deepEqual(
    problems.filter((p) => !p.startsWith('foreign')),
    [],
  );
  await page.context().close();
});
