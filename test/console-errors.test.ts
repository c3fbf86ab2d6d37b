/**
 * The API's errors in the reader's language (issue 45), on a phone (360 px) in headless Chromium against a
 * real server. A Spanish reader adding an animal whose EID another animal has reads the refusal in Spanish,
 * naming the field by its label, the server's English sentence inside "Detalles técnicos"; an English reader
 * reads the server's sentence as before, with no disclosure. At the chute, an impossible weight is refused
 * naming the weight field; a sale inside the meat withdrawal says why in Spanish, above the reason it asks
 * for. Screenshots of the Spanish refusals at 360 px.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { Medicine } from '../src/modules/medicines/schemas.ts';
import type { Animal, Farm, List } from '../test/replies.ts';
import { screenshot } from './browser.ts';
import {
  assertNoHorizontalScroll,
  type ConsoleWorld,
  PHONE,
  signedInPage,
  startConsole,
} from './console-helpers.ts';
import * as make from './factories.ts';

const DAY = 86_400_000;
const EID = '982000001234567';

let world: ConsoleWorld;
let account: Awaited<ReturnType<ConsoleWorld['t']['account']>>;
let farm: Farm;
let tagged: Animal;

before(async () => {
  world = await startConsole();
  account = await world.t.account('Errors Farm');
  farm = await make.farm(world.t, account.live_key, { name: 'Errors Farm', timezone: 'UTC' });
  tagged = await make.animal(world.t, account.live_key, farm.id, { tag: 'E-1', eid: EID, species: 'cattle' });
});
after(async () => {
  await world?.close();
});

/** A phone signed in as a new owner of the account who reads `language`. */
async function phone(language: 'en' | 'es') {
  const opened = await signedInPage(world, account, PHONE, 'owner', {
    locale: language === 'es' ? 'es-ES' : 'en-US',
  });
  const patched = await opened.person.request('PATCH', '/v1/me', { body: { language } });
  assert.equal(patched.status, 200, JSON.stringify(patched.body));
  return opened;
}

async function animalCount(): Promise<number> {
  const list = await make.fetched<List<Animal>>(
    world.t,
    account.live_key,
    `/v1/farms/${farm.id}/animals?limit=100`,
  );
  return list.data.length;
}

/** Opens the animals page's add form and submits a cow with the EID another animal already has. */
async function addCowWithTakenEid(
  page: Page,
  words: { add: string; species: string; eid: string; submit: string },
) {
  await page.goto(`${world.base}/animals`);
  await page.getByRole('button', { name: words.add, exact: true }).click();
  const form = page.getByRole('form', { name: words.add });
  await form.getByLabel(words.species, { exact: true }).fill('cattle');
  await form.getByLabel(words.eid, { exact: true }).fill(EID);
  await form.getByRole('button', { name: words.submit, exact: true }).click();
}

const SERVER_SENTENCE = () =>
  `Another animal (${tagged.id}) already has eid "${EID}"; an EID names one animal.`;

test('a Spanish reader whose new animal has a taken EID reads why in Spanish, naming the field; the server’s sentence under “Detalles técnicos”', async () => {
  const { page, problems } = await phone('es');
  const before = await animalCount();
  await addCowWithTakenEid(page, {
    add: 'Agregar un animal',
    species: 'Especie',
    eid: 'Identificación electrónica (EID)',
    submit: 'Agregar animal',
  });
  const error = page.locator('#new-eid-error');
  await error.waitFor();
  assert.equal(
    await error.textContent(),
    'Revise «Identificación electrónica (EID)»: otro registro ya tiene ese valor, o choca con uno existente.',
  );
  // The field is marked and described by the Spanish sentence, not by the English detail.
  const eid = page.getByLabel('Identificación electrónica (EID)', { exact: true });
  assert.equal(await eid.getAttribute('aria-invalid'), 'true');
  assert.equal(await eid.getAttribute('aria-describedby'), 'new-eid-error');
  // The server's own sentence is there, folded away until asked for.
  const details = page.locator('.field:has(#new-eid-error) details.said');
  assert.equal(await details.locator('summary').textContent(), 'Detalles técnicos');
  assert.equal(await details.getAttribute('open'), null);
  await details.locator('summary').click();
  assert.equal(await details.getAttribute('open'), '');
  assert.equal(await details.textContent(), `Detalles técnicos${SERVER_SENTENCE()}`);
  await error.scrollIntoViewIfNeeded();
  await assertNoHorizontalScroll(page);
  await screenshot(page, 'console-error-phone-es');
  assert.equal(await animalCount(), before, 'nothing added while refused');
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('an English reader whose new animal has a taken EID reads the server’s sentence as before, with no disclosure', async () => {
  const { page, problems } = await phone('en');
  await addCowWithTakenEid(page, {
    add: 'Add an animal',
    species: 'Species',
    eid: 'Electronic id (EID)',
    submit: 'Add animal',
  });
  const error = page.locator('#new-eid-error');
  await error.waitFor();
  assert.equal(await error.textContent(), SERVER_SENTENCE());
  assert.equal(await page.locator('details.said').count(), 0);
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('a Spanish reader logging a sale inside the meat withdrawal reads why in Spanish, above the reason it asks for', async () => {
  const key = account.live_key;
  const cow = await make.animal(world.t, key, farm.id, { tag: 'E-2', species: 'cattle' });
  const medicine = await make.created<Medicine>(world.t, key, `/v1/farms/${farm.id}/medicines`, {
    name: 'Pen & Strep',
    unit: 'ml',
    withdrawal: { meat_days: 23, milk_days: 3 },
    licensed_species: ['cattle'],
  });
  const stocked = await make.created<Medicine>(world.t, key, `/v1/medicines/${medicine.id}/batches`, {
    batch: 'PS-2207',
    quantity: 500,
    expiry: new Date(Date.now() + 300 * DAY).toISOString(),
  });
  await make.created(world.t, key, `/v1/farms/${farm.id}/treatments`, {
    medicine_id: medicine.id,
    batch_id: stocked.batches[0]?.id,
    animal_ids: [cow.id],
    dose: 5,
    dose_unit: 'ml',
    route: 'injection_im',
  });
  const { page, problems } = await phone('es');
  await page.goto(`${world.base}/animals/${cow.id}`);
  await page.getByRole('button', { name: 'Venta', exact: true }).click();
  await page.getByLabel('Comprador').fill('Feria de Dale');
  await page.getByRole('button', { name: 'Registrar venta' }).click();
  const refusal = page.locator('#log-override_reason-error');
  await refusal.waitFor();
  assert.equal(
    await refusal.textContent(),
    'Un animal está dentro de su período de retiro de carne: no puede venderse, sacrificarse ni salir de la explotación. Para registrarlo de todos modos, escriba el motivo en «Motivo para seguir de todos modos (se guarda con el registro)».',
  );
  // The detail names the animal and its medicine, as the server wrote it.
  assert.match(
    (await page.locator('.override-field details.said').textContent()) ?? '',
    /E-2 .* inside its meat withdrawal .* Pen & Strep/,
  );
  assert.equal((await make.fetched<Animal>(world.t, key, `/v1/animals/${cow.id}`)).status, 'active');
  await refusal.scrollIntoViewIfNeeded();
  await assertNoHorizontalScroll(page);
  await screenshot(page, 'console-withdrawal-refused-phone-es');
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('at the chute, a Spanish reader’s impossible weight is refused naming the weight field', async () => {
  const { page, problems } = await phone('es');
  await page.goto(`${world.base}/chute`);
  await page.getByRole('heading', { name: 'Manga', level: 1 }).waitFor();
  await page.locator('#chute-scan').fill(EID);
  await page.locator('#chute-scan').press('Enter');
  await page.getByRole('heading', { name: 'E-1' }).waitFor();
  // A decimal lost: 5000 kg for 500.
  await page.locator('#chute-kg').fill('5000');
  await page.locator('#chute-kg').press('Enter');
  const error = page.locator('#chute-kg-error');
  await error.waitFor();
  assert.equal(await error.textContent(), 'Revise «Peso de E-1 (kg)»: Farmstead no aceptó ese valor.');
  assert.equal(
    await page.locator('.chute-weigh details.said').textContent(),
    'Detalles técnicos5000 kg is not a possible weight for cattle (10 to 1800 kg).',
  );
  const weights = await make.fetched<{ data: unknown[] }>(
    world.t,
    account.live_key,
    `/v1/animals/${tagged.id}/weights`,
  );
  assert.equal(weights.data.length, 0, 'nothing weighed while refused');
  await assertNoHorizontalScroll(page);
  await screenshot(page, 'console-chute-error-phone-es');
  assert.deepEqual(problems, []);
  await page.context().close();
});
