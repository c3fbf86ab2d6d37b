/**
 * The herd book in the console (issue 46), on a phone (360 px) in headless Chromium against a real server:
 * the medicine cabinet (a medicine and a batch added; expired, expiring soon and low stock said in words); a
 * treatment given with an expired batch (refused, then given with a reason) and its withdrawal dates; the
 * withdrawal banner, the chips and the "under withdrawal" filter; a sale on the animal's page and a move off
 * refused with 409 inside the withdrawal and recorded with an override reason; a group treated OFFLINE,
 * chute-side, synced once (one treatment per animal, not two, even when the first answer is lost); an
 * expired batch given offline fixed with a reason from "needs attention". Screenshots of each page, and axe
 * on each page's main part.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import AxeBuilder from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import type { Medicine } from '../src/modules/medicines/schemas.ts';
import type { Movement } from '../src/modules/movements/schemas.ts';
import type { Treatment } from '../src/modules/treatments/schemas.ts';
import type { Animal, Farm, List } from '../test/replies.ts';
import { screenshot } from './browser.ts';
import {
  assertNoHorizontalScroll,
  type ConsoleWorld,
  goTo,
  type PageOptions,
  PHONE,
  phoneHoldsFarm,
  serviceWorkerControls,
  signedInPage,
  startConsole,
} from './console-helpers.ts';
import * as make from './factories.ts';
import { waitFor } from './harness.ts';

const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

let world: ConsoleWorld;

before(async () => {
  world = await startConsole();
});
after(async () => {
  await world?.close();
});

type Account = Awaited<ReturnType<ConsoleWorld['t']['account']>>;

/** A live farm with a group of three cattle and one more animal, a medicine and its batches. */
async function herdFarm(name: string) {
  const account: Account = await world.t.account(name);
  const key = account.live_key;
  const farm: Farm = await make.farm(world.t, key, { name, timezone: 'UTC' });
  const group = await make.group(world.t, key, farm.id, { name: 'Heifers', species: 'cattle' });
  const herd: Animal[] = [];
  for (const tag of ['H-1', 'H-2', 'H-3']) {
    herd.push(await make.animal(world.t, key, farm.id, { tag, species: 'cattle', group_id: group.id }));
  }
  const loner = await make.animal(world.t, key, farm.id, { tag: 'B-7', name: 'Bramble', species: 'cattle' });
  const med = await make.created<Medicine>(world.t, key, `/v1/farms/${farm.id}/medicines`, {
    name: 'Pen & Strep',
    unit: 'ml',
    withdrawal: { meat_days: 23, milk_days: 3 },
    licensed_species: ['cattle', 'sheep'],
  });
  const batch = async (body: Record<string, unknown>) => {
    const m = await make.created<Medicine>(world.t, key, `/v1/medicines/${med.id}/batches`, {
      quantity: 500,
      supplier: 'Dale Vets',
      ...body,
    });
    const newest = m.batches.find((b) => b.batch === body.batch);
    assert.ok(newest);
    return newest;
  };
  const good = await batch({ batch: 'PS-2207', expiry: iso(Date.now() + 300 * DAY) });
  const soon = await batch({ batch: 'PS-1904', expiry: iso(Date.now() + 12 * DAY), quantity: 100 });
  const old = await batch({ batch: 'PS-0311', expiry: iso(Date.now() - 20 * DAY), quantity: 50 });
  return { account, key, farm, group, herd, loner, med, good, soon, old };
}

async function phone(account: Account, options: PageOptions = {}) {
  const opened = await signedInPage(world, account, PHONE, 'owner', options);
  return { ...opened, personId: opened.person.session.person.id };
}

async function treatmentsOf(key: string, farm: string): Promise<Treatment[]> {
  return (await make.fetched<List<Treatment>>(world.t, key, `/v1/farms/${farm}/treatments?limit=100`)).data;
}

/** Waits until the herd book's own style sheet (linked by web/herd-book.ts) has loaded. */
async function styled(page: Page): Promise<void> {
  await waitFor('the herd book style sheet', () =>
    page.evaluate<boolean>(
      "[...document.styleSheets].some((s) => s.href?.endsWith('herd-book.css') && s.cssRules.length > 0)",
    ),
  );
}

/** The page's main part has no accessibility violation axe finds (the shell is tested on its own). */
async function accessible(page: Page): Promise<void> {
  const { violations } = await new AxeBuilder({ page }).include('main').analyze();
  assert.deepEqual(
    violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    [],
  );
}

/** Chooses an option of a select by its visible text (part of it). */
async function chooseOption(page: Page, label: string, text: RegExp): Promise<void> {
  const select = page.getByLabel(label, { exact: true });
  // The options come with the page's reads (the cabinet, kept on the phone): wait for the one wanted.
  await select.locator('option', { hasText: text }).first().waitFor({ state: 'attached' });
  const options = await select.locator('option').allTextContents();
  const wanted = options.find((o) => text.test(o));
  assert.ok(wanted, `${label}: no option ${text} in ${JSON.stringify(options)}`);
  await select.selectOption({ label: wanted });
}

test('the medicine cabinet on a phone: batches marked expired, expiring soon and low; a medicine and a batch added', async () => {
  const f = await herdFarm('Cabinet Farm');
  // The batch expiring soon is also low: 85 of its 100 ml given.
  await make.created(world.t, f.key, `/v1/farms/${f.farm.id}/treatments`, {
    medicine_id: f.med.id,
    batch_id: f.soon.id,
    animal_ids: [f.loner.id],
    dose: 85,
    dose_unit: 'ml',
    route: 'injection_im',
  });
  const { page, problems } = await phone(f.account);
  await page.goto(`${world.base}/medicines`);
  const card = page.locator('li.medicine', { hasText: 'Pen & Strep' });
  await card.waitFor();
  const row = (batch: string) => card.locator('li.batch', { hasText: `Batch ${batch}` });
  assert.match((await row('PS-0311').textContent()) ?? '', /Expired/);
  assert.match(
    (await row('PS-1904').textContent()) ?? '',
    /Expires soon.*Low stock.*in 1[12] days.*15 ml left of 100/s,
  );
  const fine = (await row('PS-2207').textContent()) ?? '';
  assert.doesNotMatch(fine, /Expired|soon|Low/);
  assert.match(fine, /500 ml left of 500 · from Dale Vets/);
  // Unexpired first, the soonest to expire first.
  assert.deepEqual(await card.locator('li.batch strong').allTextContents(), [
    'Batch PS-1904',
    'Batch PS-2207',
    'Batch PS-0311',
  ]);
  assert.match(
    (await card.textContent()) ?? '',
    /Meat23 days.*Milk3 days.*Eggsnone on the label.*Licensed for cattle and sheep/s,
  );
  await styled(page);
  await assertNoHorizontalScroll(page);
  await accessible(page);
  await screenshot(page, 'console-medicines-phone');

  // A medicine with a zero eggs period and none for milk, then its first batch.
  await page.getByText('Add a medicine').click();
  const form = page.getByRole('form', { name: 'Add a medicine' });
  await form.getByLabel('Name').fill('Ivomec');
  await form.getByLabel('Unit (what a dose is counted in)').fill('ml');
  await form.getByLabel('Meat (days)').fill('35');
  await form.getByLabel('Eggs (days)').fill('0');
  await form.getByLabel(/Licensed for/).fill('cattle');
  await form.getByRole('button', { name: 'Add medicine' }).click();
  await form.getByText('Ivomec added').waitFor();
  const ivomec = page.locator('li.medicine', { hasText: 'Ivomec' });
  await ivomec.getByText('Add a batch').click();
  const batchForm = page.getByRole('form', { name: 'Add a batch of Ivomec' });
  await batchForm.getByLabel('Batch (lot) number').fill('IV-77');
  await batchForm.getByLabel('Expiry').fill('2031-05-01');
  await batchForm.getByLabel('Quantity bought (ml)').fill('250');
  await batchForm.getByLabel('Supplier').fill('Farm Store');
  await batchForm.getByRole('button', { name: 'Add batch' }).click();
  await ivomec.locator('li.batch', { hasText: 'Batch IV-77' }).waitFor();

  const list = await make.fetched<List<Medicine>>(world.t, f.key, `/v1/farms/${f.farm.id}/medicines`);
  const made = list.data.find((m) => m.name === 'Ivomec');
  assert.deepEqual(made?.withdrawal, { meat_days: 35, eggs_days: 0 }, 'blank milk: the label gives none');
  assert.deepEqual(made?.licensed_species, ['cattle']);
  assert.deepEqual(
    made?.batches.map((b) => [b.batch, b.quantity, b.supplier, b.expiry.slice(0, 10)]),
    [['IV-77', 250, 'Farm Store', '2031-05-01']],
  );
  await screenshot(page, 'console-medicines-added-phone');
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('a treatment from the animal page: an expired batch asks for a reason, the withdrawal dates are shown; the banner, chips and filter; a sale refused inside the withdrawal, then logged with a reason', async () => {
  const f = await herdFarm('Banner Farm');
  const { page, problems } = await phone(f.account);
  await page.goto(`${world.base}/animals/${f.loner.id}`);
  await page.getByRole('heading', { name: 'B-7 · Bramble' }).waitFor();
  assert.equal(await page.locator('.withdrawal-banner').count(), 0, 'no banner before a treatment');
  await page.getByRole('main').getByRole('link', { name: 'Give a treatment' }).click();
  await page.getByRole('heading', { name: 'Give a treatment' }).waitFor();
  await page.getByText('B-7 Bramble').waitFor();
  await chooseOption(page, 'Batch', /PS-0311/);
  await page.getByText('This batch has expired').waitFor();
  await page.getByLabel('Dose per animal').fill('5');
  await chooseOption(page, 'Route', /muscle/);
  await page.getByLabel('Reason or diagnosis').fill('Foot rot');
  await page.getByLabel('Prescribing vet').fill('J. Herriot');
  await styled(page);
  await assertNoHorizontalScroll(page);
  await accessible(page);
  await screenshot(page, 'console-treat-phone');
  // Sent without a reason: the API's refusal is shown beside the batch.
  await page.getByRole('button', { name: 'Give treatment' }).click();
  // In a person's words: no id beside the batch, its expiry in the farm's time, the ask in lower case mid-sentence.
  await page
    .locator('#treat-batch-error')
    .getByText(
      /^Batch PS-0311 expired on [A-Z][a-z]{2} \d{1,2}, \d{2}:\d{2}; give a reason below to use it anyway\.$/,
    )
    .waitFor();
  await screenshot(page, 'console-treat-expired-phone');
  await page.getByLabel(/Reason to use this batch anyway/).fill('Vet agreed: nothing else in stock');
  await page.getByRole('button', { name: 'Give treatment' }).click();
  const given = page.locator('.given');
  await given.getByText('Treatment recorded').waitFor();

  const [treatment] = await treatmentsOf(f.key, f.farm.id);
  assert.ok(treatment);
  assert.equal(treatment.batch, 'PS-0311');
  assert.equal(treatment.override_reason, 'Vet agreed: nothing else in stock');
  assert.equal(treatment.vet, 'J. Herriot');
  assert.equal(treatment.route, 'injection_im');
  // The dates shown are the API's (the farm is in UTC: "Dec 22, 09:41").
  const meat = new Intl.DateTimeFormat('en', {
    timeZone: 'UTC',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(new Date(treatment.withdrawal_until.meat ?? ''));
  assert.match((await given.textContent()) ?? '', new RegExp(`Meat until ${meat}.*Eggs: no withdrawal`));
  await accessible(page);
  await screenshot(page, 'console-treat-given-phone');

  // The animal's page: the banner says what is withheld, until when, and because of what.
  await page.getByRole('link', { name: /Back to B-7/ }).click();
  const banner = page.locator('.withdrawal-banner');
  await banner.waitFor();
  const text = (await banner.textContent()) ?? '';
  assert.match(text, new RegExp(`Meat: not for slaughter or sale before ${meat}`));
  assert.match(text, /Milk: withheld until/);
  assert.match(text, /Because of Pen & Strep, batch PS-0311: the label’s period, 23 days\./);
  assert.doesNotMatch(text, /Eggs/);
  await styled(page);
  await assertNoHorizontalScroll(page);
  await accessible(page);
  await screenshot(page, 'console-animal-withdrawal-phone');

  // The list: a chip on the treated animal only, and the filter keeps it alone.
  await page.goto(`${world.base}/animals`);
  const rowOf = (tag: string) => page.locator('table.records tbody tr', { hasText: tag });
  await rowOf('B-7').locator('.withdrawal-chip').first().waitFor();
  assert.match((await rowOf('B-7').textContent()) ?? '', /Meat withdrawal until .*Milk withheld until/);
  assert.equal(await rowOf('H-1').locator('.withdrawal-chip').count(), 0);
  await page.getByLabel('Withdrawal').selectOption('active');
  await waitFor('the filter', async () => (await page.locator('table.records tbody tr').count()) === 1);
  assert.match((await page.locator('table.records tbody').textContent()) ?? '', /B-7/);
  await styled(page);
  await assertNoHorizontalScroll(page);
  await accessible(page);
  await screenshot(page, 'console-animals-withdrawal-phone');

  // A sale logged on its page is refused inside the meat withdrawal, then logged with a reason.
  await page.getByRole('link', { name: 'B-7' }).click();
  await page.getByRole('button', { name: 'Sale', exact: true }).click();
  await page.getByLabel('Buyer').fill('Dale Mart');
  await page.getByRole('button', { name: 'Log sale' }).click();
  await page
    .locator('#log-override_reason-error')
    .getByText(/inside its meat withdrawal/)
    .waitFor();
  assert.equal((await make.fetched<Animal>(world.t, f.key, `/v1/animals/${f.loner.id}`)).status, 'active');
  await page.getByLabel(/Reason to go ahead anyway/).fill('Sold as a breeding cow, not for slaughter');
  await page.getByRole('button', { name: 'Log sale' }).click();
  await page.getByText('Sale logged').waitFor();
  const sold = await make.fetched<Animal>(world.t, f.key, `/v1/animals/${f.loner.id}`);
  assert.equal(sold.status, 'sold');
  const sales = await make.fetched<List<{ data: Record<string, unknown> }>>(
    world.t,
    f.key,
    `/v1/farms/${f.farm.id}/events?subject_id=${f.loner.id}&type=sale`,
  );
  assert.equal(sales.data.length, 1, 'the refused sale left nothing');
  assert.equal(sales.data[0]?.data.override_reason, 'Sold as a breeding cow, not for slaughter');
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('a move off chosen on the animals list: 409 inside the withdrawal shown, then recorded with a reason; the register lists it', async () => {
  const f = await herdFarm('Register Farm');
  await make.created(world.t, f.key, `/v1/farms/${f.farm.id}/treatments`, {
    medicine_id: f.med.id,
    batch_id: f.good.id,
    animal_ids: [f.herd[0]?.id],
    dose: 5,
    dose_unit: 'ml',
    route: 'injection_im',
  });
  const { page, problems } = await phone(f.account);
  await page.goto(`${world.base}/animals`);
  for (const tag of ['H-1', 'H-2']) await page.getByLabel(`Choose ${tag}`).check();
  const bar = page.getByRole('region', { name: 'Chosen animals' });
  await bar.getByText('2 animals chosen').waitFor();
  await bar.getByRole('link', { name: 'Move off or on' }).click();
  await page.getByRole('heading', { name: 'Holding register' }).waitFor();
  await page.getByText('2 animals:').waitFor();
  await page.getByLabel('Off the holding').check();
  await page.getByLabel(/^To holding/).fill('12/345/6789 Mart');
  await page.getByLabel('Reason', { exact: true }).selectOption('sale');
  await page.getByLabel('Transporter').fill('Hill Haulage');
  await page.getByRole('button', { name: 'Record movement' }).click();
  // The refusal names the animal and its medicine, above the reason it asks for.
  const refusal = page.locator('#move-override_reason-error');
  await refusal.getByText(/1 of 2 animals are not clear to leave: H-1 .* Pen & Strep/).waitFor();
  // In a person's words: no ids beside the names, the end of the withdrawal in the farm's time.
  const said = (await refusal.textContent()) ?? '';
  assert.match(
    said,
    /H-1 is inside its meat withdrawal until [A-Z][a-z]{2} \d{1,2}, \d{2}:\d{2}: Pen & Strep, batch /,
  );
  assert.doesNotMatch(said, /\b[a-z]{2,5}_[0-9a-z]{20,}\b|\d{4}-\d{2}-\d{2}T/);
  assert.equal(
    (await make.fetched<List<Movement>>(world.t, f.key, `/v1/farms/${f.farm.id}/movements`)).data.length,
    0,
    'nothing recorded while refused',
  );
  await styled(page);
  await assertNoHorizontalScroll(page);
  await accessible(page);
  await screenshot(page, 'console-movement-refused-phone');
  await page
    .getByLabel(/Reason to go ahead anyway/)
    .fill('Sold as stores: buyer told, not for slaughter before the date');
  await page.getByRole('button', { name: 'Record movement' }).click();
  await page.getByText('Recorded: 2 head off the holding').waitFor();

  const [moved] = (await make.fetched<List<Movement>>(world.t, f.key, `/v1/farms/${f.farm.id}/movements`))
    .data;
  assert.equal(moved?.direction, 'off');
  assert.equal(moved?.override_reason, 'Sold as stores: buyer told, not for slaughter before the date');
  assert.equal(moved?.transporter, 'Hill Haulage');
  assert.deepEqual([...(moved?.animal_ids ?? [])].sort(), [f.herd[0]?.id, f.herd[1]?.id].sort());
  const h1 = await make.fetched<Animal>(world.t, f.key, `/v1/animals/${f.herd[0]?.id}`);
  assert.equal(h1.status, 'sold');

  const row = page.locator('.register li.card').first();
  await row.getByText('Off to 12/345/6789 Mart: 2 head').waitFor();
  assert.match((await row.textContent()) ?? '', /Sale · Hill Haulage.*Reason given: Sold as stores/s);
  const hrefs = await page
    .locator('.export-list a')
    .evaluateAll((links) => links.map((a) => a.getAttribute('href')));
  assert.deepEqual(hrefs, [
    `/v1/farms/${f.farm.id}/holding-register/export?format=csv`,
    `/v1/farms/${f.farm.id}/medicine-record/export?format=csv`,
  ]);
  await accessible(page);
  await screenshot(page, 'console-register-phone');
  assert.deepEqual(problems, []);
  await page.context().close();
});

/** A phone signed in on the farm, its service worker in control and the farm kept on it (to go offline). */
async function fieldPhone(f: Awaited<ReturnType<typeof herdFarm>>) {
  const { page, personId, problems } = await phone(f.account, { serviceWorker: true });
  await page.goto(`${world.base}/`);
  await page.locator('h1.headline').waitFor();
  await serviceWorkerControls(page);
  await phoneHoldsFarm(page, personId, f.farm.id);

  return { page, personId, problems, context: page.context() };
}

test('offline chute-side: a group given a treatment on a phone is kept, then synced once: one treatment per animal, not two', async () => {
  const f = await herdFarm('Chute Farm');
  const { page, problems, context } = await fieldPhone(f);
  await context.setOffline(true);
  await goTo(page, 'Groups');
  await page.getByRole('link', { name: 'Give a treatment to Heifers' }).click();
  await page.getByRole('heading', { name: 'Give a treatment' }).waitFor();
  assert.equal(await page.getByLabel(/^Group/).inputValue(), f.group.id);
  // Unexpired batches first, the soonest to expire first; the expired one last and said so.
  const options = await page.getByLabel('Batch', { exact: true }).locator('option').allTextContents();
  assert.match(
    options.join('|'),
    /^No batch recorded\|PS-1904: expires .*\|PS-2207: expires .*\|PS-0311: EXPIRED/,
  );
  await chooseOption(page, 'Batch', /PS-2207/);
  await page.getByLabel('Dose per animal').fill('4');
  await chooseOption(page, 'Route', /under the skin/);
  await page.getByLabel('Doses', { exact: true }).fill('3');
  await page.getByLabel('Every (hours)').fill('24');
  await page.getByLabel('Reason or diagnosis').fill('Pneumonia');
  await styled(page);
  await assertNoHorizontalScroll(page);
  await screenshot(page, 'console-treat-offline-phone');
  const tapped = Date.now();
  await page.getByRole('button', { name: 'Give treatment' }).click();
  const kept = page.locator('.given.queued');
  await kept.getByText('Kept on this phone').waitFor();
  assert.match((await kept.textContent()) ?? '', /Pen & Strep for Heifers is saved here/);
  await page.getByText('Waiting to sync (1)').waitFor();
  await accessible(page);
  await screenshot(page, 'console-treat-queued-phone');
  await page.getByRole('link', { name: 'See what is waiting to sync' }).click();
  await page.getByText('Treatment: Pen & Strep to Heifers').waitFor();
  assert.equal((await treatmentsOf(f.key, f.farm.id)).length, 0, 'nothing reached the server offline');

  // Back online, the first answer is lost on the way back (the request did arrive): the queue sends it
  // again with the same Idempotency-Key, and the server answers the first treatments again.
  let posts = 0;
  const keys: string[] = [];
  await context.route('**/v1/farms/*/treatments', async (route) => {
    posts += 1;
    keys.push(route.request().headers()['idempotency-key'] ?? '');
    const response = await route.fetch();
    if (posts === 1) await route.abort('connectionreset');
    else await route.fulfill({ response });
  });
  await context.setOffline(false);
  // The signal is back (the browser's `online` event sends the queue); its answer is lost, so the person
  // taps "Sync now" on the list, as they would.
  await waitFor('the first sending', () => posts >= 1);
  const syncNow = page.getByRole('main').getByRole('button', { name: 'Sync now' });
  await waitFor('the second sending', async () => {
    if (posts < 2 && (await syncNow.isEnabled())) await syncNow.click();
    return posts >= 2;
  });
  await waitFor(
    'the sync',
    async () => posts >= 2 && (await page.locator('li.change .status', { hasText: 'Synced' }).count()) === 1,
    40_000,
  );
  assert.equal(new Set(keys).size, 1, 'sent again with the same Idempotency-Key');
  assert.ok(keys[0] && keys[0].length >= 32);

  const treatments = await treatmentsOf(f.key, f.farm.id);
  assert.equal(treatments.length, 3, 'one treatment per animal of the group, stored once');
  assert.deepEqual(treatments.map((t) => t.animal_id).sort(), f.herd.map((a) => a.id).sort());
  for (const t of treatments) {
    assert.equal(t.batch, 'PS-2207');
    assert.deepEqual(t.course, { doses: 3, every_hours: 24 });
    assert.ok(Date.parse(t.at) <= tapped + 60_000, 'given when it was tapped, not when it synced');
  }
  const stock = await make.fetched<Medicine>(world.t, f.key, `/v1/medicines/${f.med.id}`);
  assert.equal(stock.batches.find((b) => b.id === f.good.id)?.used, 36, '4 ml × 3 doses × 3 animals, once');
  assert.deepEqual(
    problems.filter((p) => !p.startsWith('foreign')),
    [],
  );
  await context.close();
});

test('offline: an expired batch given without a reason waits in "needs attention"; Fix takes the reason and it syncs once', async () => {
  const f = await herdFarm('Attention Farm');
  const { page, personId, problems, context } = await fieldPhone(f);
  await context.setOffline(true);
  await goTo(page, 'Groups');
  await page.getByRole('link', { name: 'Give a treatment to Heifers' }).click();
  await chooseOption(page, 'Batch', /PS-0311/);
  await page.getByLabel('Dose per animal').fill('2');
  // The page says the batch has expired; the person gives it anyway, without a reason.
  await page.getByText('This batch has expired').waitFor();
  await page.getByRole('button', { name: 'Give treatment' }).click();
  await page.locator('.given.queued').waitFor();

  await context.setOffline(false);
  await page.locator('.sync-bar').getByText('1 needs attention').click();
  const card = page.locator('li.change.needs-attention');
  await card.waitFor();
  assert.match((await card.textContent()) ?? '', /Batch PS-0311 .* expired on .*override_reason/);
  await card.getByRole('button', { name: 'Fix' }).click();
  const fix = page.getByRole('form', { name: /^Fix: Treatment: Pen & Strep to Heifers/ });
  await fix.getByLabel('Reason to go ahead anyway (kept with the record)').fill('Vet said use it up');
  await fix.getByRole('button', { name: 'Send again' }).click();
  await waitFor('the fixed treatment to sync', async () =>
    page.evaluate<boolean>(`(async () => {
      const open = indexedDB.open('farmstead-${personId}');
      const db = await new Promise((resolve) => { open.onsuccess = () => resolve(open.result); });
      const all = await new Promise((resolve) => {
        const r = db.transaction('queue').objectStore('queue').getAll();
        r.onsuccess = () => resolve(r.result);
      });
      db.close();
      return all.length === 1 && all[0].state === 'synced';
    })()`),
  );
  const treatments = await treatmentsOf(f.key, f.farm.id);
  assert.equal(treatments.length, 3, 'one per animal of the group, once');
  assert.ok(treatments.every((t) => t.override_reason === 'Vet said use it up' && t.batch === 'PS-0311'));
  assert.deepEqual(
    problems.filter((p) => !p.startsWith('foreign')),
    [],
  );
  await context.close();
});
