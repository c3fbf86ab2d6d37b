/**
 * The console in each person's units and language (issue 45), in a real browser: US units show lb and °F
 * on a house and an animal (a weight typed in lb is stored in kg); Spanish on the sign-in page, the event
 * log (sentences, no id or JSON shown) and the account page; the subject picker chosen with the keyboard.
 * Screenshots at 360 px in both languages of the pages converted.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { screenshot } from './browser.ts';
import {
  assertNoHorizontalScroll,
  type ConsoleWorld,
  openPage,
  PHONE,
  signedInPage,
  startConsole,
} from './console-helpers.ts';

let world: ConsoleWorld;

before(async () => {
  world = await startConsole();
});

after(async () => {
  await world?.close();
});

type Events = { data: { subject_id: string | null; subject_type: string | null; data: { kg?: number } }[] };

/** An animal of the sample farm that was weighed. */
async function weighedAnimal(): Promise<string> {
  const res = await world.t.request<Events>(
    'GET',
    `/v1/farms/${world.account.sample_farm_id}/events?type=weight&limit=1`,
    { key: world.account.test_key },
  );
  const id = res.body.data[0]?.subject_id;
  assert.ok(id, 'the sample farm has a weighed animal');
  return id;
}

/** The page's visible text (closed "technical details" are not visible). */
function visibleText(page: import('playwright-core').Page): Promise<string> {
  return page.evaluate<string>('document.getElementById("main").innerText');
}

test('US units: a house reads °F and an animal lb; a weight typed in lb is stored in kg', async () => {
  const { page, problems, person } = await signedInPage(world, world.account, PHONE, 'owner');
  const patched = await person.request('PATCH', '/v1/me', { body: { units: 'us' } });
  assert.equal(patched.status, 200);
  await page.goto(`${world.base}/houses`);
  await page.getByText(/°F/).first().waitFor();
  assert.doesNotMatch(await visibleText(page), /°C/);
  await screenshot(page, 'words-house-us-phone');

  const animalId = await weighedAnimal();
  await page.goto(`${world.base}/animals/${animalId}`);
  await page.getByText(/Latest weight/).waitFor();
  await page.locator('dd', { hasText: / lb$/ }).first().waitFor();
  await page.getByRole('spinbutton', { name: 'Weight (lb)' }).fill('500');
  await page.getByRole('button', { name: 'Log weight' }).click();
  await page.getByRole('status').getByText('Weight logged').waitFor();
  const stored = await world.t.request<Events>(
    'GET',
    `/v1/farms/${world.account.sample_farm_id}/events?type=weight&subject_id=${animalId}&limit=1`,
    { key: world.account.test_key },
  );
  assert.equal(Math.round((stored.body.data[0]?.data.kg ?? 0) * 100) / 100, 226.8, '500 lb is 226.8 kg');
  await page.getByText('500 lb').first().waitFor();
  await page.goto(`${world.base}/`);
  await page.locator('h1.headline').waitFor();
  assert.doesNotMatch(await visibleText(page), /\d\s?°C|\d kg\b/);
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('Spanish with US units: the alerts page writes each alert from its words, in °F', async () => {
  const { page, problems, person } = await signedInPage(world, world.account, PHONE, 'owner');
  assert.equal(
    (await person.request('PATCH', '/v1/me', { body: { language: 'es', units: 'us' } })).status,
    200,
  );
  type Alerts = { data: Array<{ title: string; words?: unknown }> };
  const listed = await world.t.request<Alerts>(
    'GET',
    `/v1/farms/${world.account.sample_farm_id}/alerts?status=active`,
    { key: world.account.test_key },
  );
  const english = listed.body.data.filter((a) => a.words).map((a) => a.title);
  assert.ok(english.length > 0, 'the sample farm has alerts with words');
  await page.goto(`${world.base}/alerts`);
  await page.locator('h2.card-title').first().waitFor();
  const titles = await page.locator('h2.card-title').allInnerTexts();
  for (const title of english) assert.ok(!titles.includes(title), `${title} is written in Spanish`);
  assert.doesNotMatch(await visibleText(page), /\d\s?°C/);
  await screenshot(page, 'words-alerts-es-us-phone');
  assert.equal(
    (await person.request('PATCH', '/v1/me', { body: { language: 'en', units: 'metric' } })).status,
    200,
  );
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('Spanish: the sign-in page from the browser’s language, then the event log and the account page', async () => {
  const signIn = await openPage(world, PHONE, { locale: 'es-ES' });
  await signIn.page.goto(`${world.base}/sign-in`);
  await signIn.page.getByRole('heading', { name: 'Iniciar sesión en Farmstead' }).waitFor();
  await signIn.page.getByLabel('Contraseña').waitFor();
  await screenshot(signIn.page, 'words-sign-in-es-phone');
  await signIn.page.context().close();
  const english = await openPage(world, PHONE, { locale: 'en-US' });
  await english.page.goto(`${world.base}/sign-in`);
  await english.page.getByRole('heading', { name: 'Sign in to Farmstead' }).waitFor();
  await screenshot(english.page, 'words-sign-in-en-phone');
  await english.page.context().close();

  const { page, problems, person } = await signedInPage(world, world.account, PHONE, 'owner');
  for (const language of ['en', 'es'] as const) {
    await person.request('PATCH', '/v1/me', { body: { language } });
    await page.goto(`${world.base}/events`);
    const title = language === 'es' ? 'Registro de eventos' : 'Event log';
    await page.getByRole('heading', { name: title, level: 1 }).waitFor();
    await page.locator('.event-log .sentence').first().waitFor();
    const text = await visibleText(page);
    assert.doesNotMatch(text, /\b(ani|dev|grp|pad|tsk)_[0-9a-z]{6,}/, 'no raw id is shown');
    assert.doesNotMatch(text, /\{"/, 'no JSON is shown');
    assert.match(text, language === 'es' ? /Pienso entregado a / : /Feed delivered to /);
    await assertNoHorizontalScroll(page);
    await screenshot(page, `words-events-${language}-phone`);
    await page.evaluate('document.querySelector(".event-log").scrollIntoView()');
    await screenshot(page, `words-events-log-${language}-phone`);
    await page.goto(`${world.base}/account`);
    await page
      .getByRole('heading', { name: language === 'es' ? 'Unidades e idioma' : 'Units and language' })
      .waitFor();
    await page
      .getByRole('link', { name: language === 'es' ? 'Registro' : 'Event log', includeHidden: true })
      .first()
      .waitFor({ state: 'attached' });
    await page.evaluate('document.getElementById("reading-title").scrollIntoView()');
    await screenshot(page, `words-account-${language}-phone`);
  }
  // Back to English from the account page itself: the page switches at once.
  await page.getByRole('combobox', { name: 'Idioma', exact: true }).selectOption('en');
  await page.getByRole('button', { name: 'Guardar unidades e idioma' }).click();
  await page.getByRole('heading', { name: 'Units and language' }).waitFor();
  const me = await person.request<{ person: { language: string } }>('GET', '/v1/me');
  assert.equal(me.body.person.language, 'en');
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('the subject picker: type part of a tag, choose with the keyboard, and the log shows only that animal', async () => {
  const { page, problems } = await signedInPage(world, world.account, PHONE, 'owner');
  const animal = await world.t.request<{ tag: string | null; name: string | null }>(
    'GET',
    `/v1/animals/${await weighedAnimal()}`,
    { key: world.account.test_key },
  );
  const tag = String(animal.body.tag);
  await page.goto(`${world.base}/events`);
  const box = page.getByRole('combobox', { name: 'About', exact: true });
  await box.click();
  await box.pressSequentially(tag);
  const option = page.getByRole('option').filter({ hasText: tag }).first();
  await option.waitFor();
  assert.equal(await box.getAttribute('aria-expanded'), 'true');
  await box.press('ArrowDown');
  const active = await box.getAttribute('aria-activedescendant');
  assert.ok(active, 'the active option is announced');
  assert.equal(await page.locator(`#${active}`).getAttribute('aria-selected'), 'true');
  await box.press('Enter');
  assert.equal(await box.getAttribute('aria-expanded'), 'false');
  assert.match(await box.inputValue(), new RegExp(tag));
  await page.waitForFunction(
    `[...document.querySelectorAll('.event-log .sentence')].length > 0 && [...document.querySelectorAll('.event-log .sentence')].every((s) => s.textContent.includes(${JSON.stringify(tag)}))`,
  );
  // Escape clears the choice.
  await box.press('Escape');
  assert.equal(await box.inputValue(), '');
  assert.deepEqual(problems, []);
  await page.context().close();
});
