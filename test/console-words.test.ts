/**
 * The console in each person's units and language (issue 45), in a real browser: US units show lb and °F
 * on a house and an animal (a weight typed in lb is stored in kg); Spanish on the sign-in page, the event
 * log (sentences, no id or JSON shown) and the account page; the subject picker chosen with the keyboard.
 * Screenshots at 360 px in both languages of the pages converted.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { HOUSE_COMMANDS } from '../src/domain/house-commands.ts';
import { screenshot } from './browser.ts';
import {
  assertNoHorizontalScroll,
  type ConsoleWorld,
  openPage,
  PHONE,
  scrollUntilShown,
  signedInPage,
  startConsole,
  textOutOfBox,
  valuesAdrift,
} from './console-helpers.ts';
import { waitFor } from './engines.ts';
import * as make from './factories.ts';

let world: ConsoleWorld;

before(async () => {
  // No map tiles: the map page is opened for its words, and a test browser fetches nothing from outside.
  world = await startConsole({ mapTiles: null });
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

/** The sample farm's own rule settings, as the API holds them (null for none). */
async function rulesOf(): Promise<Record<string, Record<string, unknown>> | null> {
  const farm = await world.t.request<{
    settings: { rules?: Record<string, Record<string, unknown>> | null };
  }>('GET', `/v1/farms/${world.account.sample_farm_id}`, { key: world.account.test_key });
  return farm.body.settings.rules ?? null;
}

/** The page's visible text (closed "technical details" are not visible). */
/** The sample farm's first house. */
async function sampleHouse(): Promise<{ id: string; name: string }> {
  const houses = await world.t.request<{ data: { id: string; name: string }[] }>(
    'GET',
    `/v1/farms/${world.account.sample_farm_id}/devices?type=house&limit=1`,
    { key: world.account.test_key },
  );
  const house = houses.body.data[0];
  assert.ok(house, 'the sample farm has a house');
  return house;
}

/** Sends these commands to a device of the sample farm, each accepted. */
async function queueCommands(
  deviceId: string,
  commands: readonly { command: string; params: Record<string, unknown> }[],
): Promise<void> {
  for (const body of commands) {
    const queued = await world.t.request<unknown>('POST', `/v1/devices/${deviceId}/commands`, {
      key: world.account.test_key,
      body,
    });
    assert.equal(queued.status, 201, JSON.stringify(queued.body));
  }
}

function visibleText(page: import('playwright-core').Page): Promise<string> {
  return page.evaluate<string>('document.getElementById("main").innerText');
}

test('US units: the alert thresholds read °F; a line typed in °F is stored in °C, the others left as they were', async () => {
  const { page, problems, person } = await signedInPage(world, world.account, PHONE, 'owner');
  const farmId = world.account.sample_farm_id;
  const before = await rulesOf();
  assert.equal((await person.request('PATCH', '/v1/me', { body: { units: 'us' } })).status, 200);
  try {
    await page.goto(`${world.base}/settings/rules`);
    // house.heat: 32 °C watch, 35 °C urgent; animal.fever: 40.6 °C urgent (105.08 °F).
    const heat = page.getByLabel('High temperature watch');
    await heat.waitFor();
    assert.equal(await heat.inputValue(), '89.6');
    assert.equal(await page.getByLabel('High temperature urgent').inputValue(), '95');
    assert.equal(await page.getByLabel('Raised temperature urgent').inputValue(), '105.08');
    const row = page.locator('tr', { has: heat });
    assert.match((await row.locator('th').textContent()) ?? '', /^High temperature\s*Temperature \(°F\)$/);
    assert.match((await row.textContent()) ?? '', /default 89\.6/);
    await heat.fill('91.4');
    await page.getByRole('button', { name: 'Save thresholds' }).click();
    await page.getByRole('status').getByText('Thresholds saved').waitFor();
    const after = await rulesOf();
    // The API keeps an override's lines whole: the watch typed, the others exactly as they were.
    assert.deepEqual(after?.['house.heat'], { watch: 33, urgent: 35, clear: 30 });
    assert.deepEqual(after?.['animal.fever'], before?.['animal.fever'], 'a line left as shown is unchanged');
    assert.deepEqual(problems, []);
  } finally {
    await person.request('PATCH', '/v1/me', { body: { units: 'metric' } });
    await world.t.request('PATCH', `/v1/farms/${farmId}`, {
      key: world.account.test_key,
      body: { settings: { rules: before } },
    });
    await page.context().close();
  }
});

test('thresholds out of order are said on the cell in the reader’s units and language, and nothing is saved', async () => {
  const { page, problems, person } = await signedInPage(world, world.account, PHONE, 'owner');
  const before = await rulesOf();
  /** The alert in the cell of `input`, once shown; the input is marked invalid. */
  const cellError = async (input: import('playwright-core').Locator) => {
    const alert = page.locator('td', { has: input }).getByRole('alert');
    await alert.waitFor();
    assert.equal(await input.getAttribute('aria-invalid'), 'true');
    return (await alert.textContent()) ?? '';
  };
  try {
    // A US reader: house.heat's lines are 89.6 °F watch, 95 °F urgent, 86 °F clear.
    assert.equal((await person.request('PATCH', '/v1/me', { body: { units: 'us' } })).status, 200);
    await page.goto(`${world.base}/settings/rules`);
    const watch = page.getByLabel('High temperature watch');
    await watch.fill('96');
    await page.getByRole('button', { name: 'Save thresholds' }).click();
    assert.equal(await cellError(watch), 'The watch line (96°F) must be at or below the urgent line (95°F).');
    await watch.fill('');
    const clear = page.getByLabel('High temperature clear');
    await clear.fill('90');
    await page.getByRole('button', { name: 'Save thresholds' }).click();
    assert.equal(
      await cellError(clear),
      'The clear line (90°F) must be below the watch line (89.6°F). Otherwise an alert could never resolve.',
    );
    await page.locator('td', { has: clear }).scrollIntoViewIfNeeded();
    await screenshot(page, 'words-thresholds-order-us-phone');

    // A Spanish reader of US units: the same cells, in Spanish.
    assert.equal((await person.request('PATCH', '/v1/me', { body: { language: 'es' } })).status, 200);
    await page.goto(`${world.base}/settings/rules`);
    const vigilar = page.getByLabel('Temperatura alta vigilar');
    await vigilar.fill('96');
    await page.getByRole('button', { name: 'Guardar los umbrales' }).click();
    assert.equal(
      await cellError(vigilar),
      'El valor de vigilar (96 °F) debe ser menor o igual que el de urgente (95 °F).',
    );
    await page.locator('td', { has: vigilar }).scrollIntoViewIfNeeded();
    await screenshot(page, 'words-thresholds-order-es-phone');
    assert.doesNotMatch(await visibleText(page), /°C/);
    assert.deepEqual(await rulesOf(), before, 'lines out of order are not sent');
    assert.deepEqual(problems, []);
  } finally {
    await person.request('PATCH', '/v1/me', { body: { language: 'en', units: 'metric' } });
    await page.context().close();
  }
});

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
  // The weight chart's points are converted once, from the API's kg: its text alternative says the latest
  // weight in whole lb as the facts do, and its legend names lb.
  const weights = await world.t.request<{ data: { kg: number }[] }>(
    'GET',
    `/v1/animals/${animalId}/weights`,
    {
      key: world.account.test_key,
    },
  );
  const kg = weights.body.data[0]?.kg;
  assert.ok(kg, 'the animal has a weight');
  const lb = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 }).format(kg / 0.45359237);
  const facts = page.locator('.facts div', { has: page.locator('dt', { hasText: 'Latest weight' }) });
  assert.equal(await facts.locator('dd').textContent(), `${lb} lb`);
  // The weight table and the projection in whole lb too, as the console writes a weight in US units.
  await page
    .locator('table.weights td', { hasText: new RegExp(`^${lb} lb$`) })
    .first()
    .waitFor();
  const weighed = await page.locator('table.weights tbody tr td:nth-child(2)').allTextContents();
  assert.ok(weighed.length > 1, weighed.join(' | '));
  for (const cell of weighed) assert.match(cell, /^\d{1,3}(,\d{3})* lb$/, cell);
  const projected = (await page.locator('.weight-figures').textContent()) ?? '';
  assert.match(projected, /About \d{1,3}(,\d{3})* lb by /, projected);
  const summary = (await page.locator('figure.chart .chart-summary').first().textContent()) ?? '';
  assert.match(summary, new RegExp(`^Weight: latest ${lb} lb \\(`), summary);
  await page.locator('figure.chart').first().scrollIntoViewIfNeeded();
  await page.locator('figure.chart .u-legend', { hasText: 'Weight (lb)' }).waitFor();
  await page.getByRole('textbox', { name: 'Weight (lb)' }).fill('500');
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

  // A Spanish reader writes a decimal comma: 563,5 kg is 563.5 kg, never 5,635.
  const spanish = await person.request('PATCH', '/v1/me', { body: { units: 'metric', language: 'es' } });
  assert.equal(spanish.status, 200);
  await page.goto(`${world.base}/animals/${animalId}`);
  await page.getByRole('textbox', { name: 'Peso (kg)' }).fill('563,5');
  await page.getByRole('button', { name: 'Registrar peso' }).click();
  await page.getByRole('status').getByText('Peso registrado').waitFor();
  const comma = await world.t.request<Events>(
    'GET',
    `/v1/farms/${world.account.sample_farm_id}/events?type=weight&subject_id=${animalId}&limit=1`,
    { key: world.account.test_key },
  );
  assert.equal(comma.body.data[0]?.data.kg, 563.5);
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('a house’s readings stay inside their tiles at 360 px, in English and Spanish, metric and US units', async () => {
  // An account of its own: a live farm with one house (the sample farm's values vary with its noise).
  const account = await world.t.account('Tile farm');
  const farm = await make.farm(world.t, account.live_key, { name: 'Tile farm' });
  const house = await make.device(world.t, account.live_key, farm.id, { type: 'house', name: 'House 9' });
  // The longest values a house shows: ammonia past the urgent line with a decimal (its level said too), a hot
  // house (101.5 °F), a full bin, a solar panel's kilowatt.
  const readings = {
    'climate.nh3_ppm': 26.2,
    'climate.temp_c': 38.6,
    'feed.bin_pct': 100,
    'water.tank_pct': 99.9,
    'power.battery_pct': 100,
    'power.solar_w': 1250.5,
  };
  const sent = await make.report(world.t, house.device_key, {
    readings: Object.entries(readings).map(([metric, value]) => ({ metric, value })),
  });
  assert.equal(sent.body.accepted, 6, JSON.stringify(sent.body));
  const { page, problems, person } = await signedInPage(world, account, PHONE, 'owner');
  try {
    for (const [language, units] of [
      ['en', 'metric'],
      ['en', 'us'],
      ['es', 'metric'],
      ['es', 'us'],
    ] as const) {
      assert.equal((await person.request('PATCH', '/v1/me', { body: { language, units } })).status, 200);
      await page.goto(`${world.base}/houses`);
      await page.locator('.metric', { hasText: 'ppm' }).waitFor();
      assert.deepEqual(await textOutOfBox(page, '.metric'), [], `${language}, ${units} units`);
      await screenshot(page, `words-house-tiles-phone-${language}-${units}`);
    }
    assert.deepEqual(problems, []);
  } finally {
    await page.context().close();
  }
});

test('US units: a device’s readings chart is in °F: its legend, its dashed lines and its text alternative', async () => {
  const farm = world.account.sample_farm_id;
  const station = await make.device(world.t, world.account.test_key, farm, {
    type: 'weather',
    name: 'Chart station',
  });
  // 20 °C an hour ago, 25 °C now: 68 °F and 77 °F.
  const sent = await make.report(world.t, station.device_key, {
    readings: [
      { metric: 'climate.temp_c', value: 20, at: new Date(Date.now() - 3_600_000).toISOString() },
      { metric: 'climate.temp_c', value: 25 },
    ],
  });
  assert.equal(sent.status, 200, JSON.stringify(sent.body));
  // A rule on this device only, watching above 30 °C (86 °F): its dashed line.
  const rule = await world.t.request('POST', `/v1/farms/${farm}/rules`, {
    key: world.account.test_key,
    body: {
      name: 'station-heat',
      metric: 'climate.temp_c',
      direction: 'above',
      watch: 30,
      clear: 28,
      device_id: station.id,
    },
  });
  assert.equal(rule.status, 201, JSON.stringify(rule.body));
  const { page, problems, person } = await signedInPage(world, world.account, PHONE, 'owner');
  assert.equal((await person.request('PATCH', '/v1/me', { body: { units: 'us' } })).status, 200);
  await page.goto(`${world.base}/devices/${station.id}`);
  const summary = page.locator('figure.chart .chart-summary');
  await summary.waitFor({ state: 'attached' });
  const said = (await summary.textContent()) ?? '';
  assert.match(said, /latest 77\s?°F/, said);
  assert.match(said, /lowest 68\s?°F, highest 77\s?°F/, said);
  assert.doesNotMatch(said, /°C/);
  await page.locator('figure.chart', { hasText: /station-heat watch 86\s?°F/ }).waitFor();
  // The chart's legend names the reader's unit (drawn once the chart is scrolled to); the chart is described
  // by its summary.
  await page.locator('figure.chart').scrollIntoViewIfNeeded();
  await page.locator('figure.chart .u-legend', { hasText: 'Air temperature (°F)' }).waitFor();
  const described = await page.locator('figure.chart [role="img"]').getAttribute('aria-describedby');
  assert.equal(described, await summary.getAttribute('id'));
  assert.doesNotMatch(await visibleText(page), /\d\s?°C/);
  await screenshot(page, 'words-device-chart-us-phone');
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('US units: the chart’s times are written as the page’s others, on the console’s 24-hour clock; a command the product does not know reads in words', async () => {
  const farm = world.account.sample_farm_id;
  const station = await make.device(world.t, world.account.test_key, farm, {
    type: 'weather',
    name: 'Clock station',
  });
  const sent = await make.report(world.t, station.device_key, {
    readings: [{ metric: 'climate.temp_c', value: 20 }],
  });
  assert.equal(sent.status, 200, JSON.stringify(sent.body));
  // A weather station takes commands of its own: said in their code's words, their parameters as pairs.
  const command = await world.t.request('POST', `/v1/devices/${station.id}/commands`, {
    key: world.account.test_key,
    body: { command: 'pump.set_rate', params: { flow_lpm: 3.5, mode: 'eco' } },
  });
  assert.equal(command.status, 201, JSON.stringify(command.body));
  const { page, problems, person } = await signedInPage(world, world.account, PHONE, 'owner', {
    locale: 'en-US',
  });
  assert.equal((await person.request('PATCH', '/v1/me', { body: { units: 'us' } })).status, 200);
  await page.goto(`${world.base}/devices/${station.id}`);
  // The history (and its words) loads once scrolled to.
  const history = page.getByRole('list', { name: 'Command history' });
  const row = history.locator('li.command').first();
  await scrollUntilShown(
    page.getByRole('heading', { name: 'Command history' }),
    row.getByText('Pump set rate (flow lpm: 3.5, mode: eco)'),
  );
  assert.doesNotMatch(await visibleText(page), /pump\.set_rate|\{"|cmd_/);
  // The command's time and the chart's legend time: one style, "Nov 29, 14:05".
  const CONSOLE_TIME = /^(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{1,2}, \d\d:\d\d$/;
  const when = (await row.locator('.muted.small').textContent()) ?? '';
  assert.match(when, CONSOLE_TIME, when);
  const figure = page.locator('figure.chart').first();
  await figure.scrollIntoViewIfNeeded();
  await figure.locator('.u-over').hover();
  const legendTime = figure.locator('.u-legend .u-series').first().locator('.u-value');
  let shown = '';
  for (let i = 0; i < 100 && !/\d:\d\d/.test(shown); i++) {
    shown = (await legendTime.textContent()) ?? '';
    if (!/\d:\d\d/.test(shown)) await page.evaluate('new Promise((r) => requestAnimationFrame(r))');
  }
  assert.match(shown, CONSOLE_TIME, shown);
  assert.doesNotMatch(`${when} ${shown}`, /AM|PM/);
  await screenshot(page, 'words-device-commands-us-phone');
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('Spanish: a house’s command history says each command as a sentence with its state as a chip; the code and its parameters only in the technical details; the chart’s bucket and metrics in words', async () => {
  const house = await sampleHouse();
  const commands: { command: string; params: Record<string, unknown> }[] = [
    { command: 'climate.set_target', params: { temp_c: 24 } },
    { command: 'fans.set', params: { tunnel: 'on', ridge: 'auto' } },
    { command: 'doors.close', params: { doors: [1, 2] } },
  ];
  await queueCommands(house.id, commands);
  const { page, problems, person } = await signedInPage(world, world.account, PHONE, 'owner');
  assert.equal((await person.request('PATCH', '/v1/me', { body: { language: 'es' } })).status, 200);
  const requested: string[] = [];
  page.on('request', (r) => requested.push(new URL(r.url()).pathname));
  await page.goto(`${world.base}/devices/${house.id}`);
  // At 360 px the history is below the charts: it loads, with its words, once scrolled to.
  await page.getByText('Promedios de 5 minutos.').waitFor();
  const historyAsked = () => requested.filter((path) => /command-(terms|history)\.ts$/.test(path));
  assert.deepEqual(historyAsked(), [], 'the command words load with the first screen');
  const history = page.getByRole('list', { name: 'Historial de órdenes' });
  const newest = history.locator('li.command').first();
  await scrollUntilShown(
    page.getByRole('heading', { name: 'Historial de órdenes' }),
    newest.getByText('Cerrar las trampillas 1 y 2', { exact: true }),
  );
  await newest.locator('.status', { hasText: /^(cumplida|en cola|entregada)$/ }).waitFor();
  await history
    .getByText('Poner los ventiladores de túnel en marcha y los de cumbrera en automático', { exact: true })
    .first()
    .waitFor();
  await history.getByText('Fijar la temperatura objetivo en 24 °C', { exact: true }).first().waitFor();
  // No command code, id or JSON in what a person reads.
  const visible = await visibleText(page);
  assert.doesNotMatch(visible, /doors\.close|fans\.set|climate\.set_target|temp_c|\{"|\[1,|cmd_/, visible);
  // The chart's bucket in words, the metrics in the order of their Spanish names.
  await page.getByText('Promedios de 5 minutos.').waitFor();
  assert.doesNotMatch(visible, /intervalo de 5m|\b5m\b/);
  const boxes = await page.locator('fieldset.checks label').allTextContents();
  assert.ok(boxes.length > 1, boxes.join(' | '));
  assert.deepEqual(boxes, [...boxes].sort(new Intl.Collator('es').compare), boxes.join(' | '));
  await assertNoHorizontalScroll(page);
  await history.scrollIntoViewIfNeeded();
  await screenshot(page, 'words-device-commands-phone-es');
  // The technical details, closed until opened, keep the code and the parameters as sent.
  await newest.locator('summary', { hasText: 'Detalles técnicos' }).click();
  await newest.locator('code', { hasText: 'doors.close' }).waitFor();
  assert.match((await newest.locator('pre').textContent()) ?? '', /"doors": \[\s*1,\s*2\s*\]/);
  await person.request('PATCH', '/v1/me', { body: { language: 'en' } });
  // In English, the same history.
  await page.reload();
  const english = page.getByRole('list', { name: 'Command history' });
  await scrollUntilShown(
    page.getByRole('heading', { name: 'Command history' }),
    english.getByText('Close pop doors 1 and 2').first(),
  );
  await english.getByText('Set the fans: tunnel on, ridge automatic').first().waitFor();
  await page.locator('fieldset.checks').scrollIntoViewIfNeeded();
  await screenshot(page, 'words-device-commands-phone-en');
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('Spanish: a house card’s recent commands are sentences with their state as a chip, loaded when scrolled to; no command code shown', async () => {
  const house = await sampleHouse();
  const commands: { command: string; params: Record<string, unknown> }[] = [
    { command: 'climate.set_target', params: { temp_c: 24 } },
    { command: 'doors.close', params: { doors: [1, 2] } },
  ];
  await queueCommands(house.id, commands);
  const { page, problems, person } = await signedInPage(world, world.account, PHONE, 'owner');
  assert.equal((await person.request('PATCH', '/v1/me', { body: { language: 'es' } })).status, 200);
  try {
    const requested: string[] = [];
    page.on('request', (r) => requested.push(new URL(r.url()).pathname));
    await page.goto(`${world.base}/houses`);
    const card = page.locator(`article[id="${house.id}"]`);
    await card.getByText('Trampillas').first().waitFor();
    const wordsAsked = () => requested.filter((path) => /command-(terms|row)\.ts$/.test(path));
    assert.deepEqual(wordsAsked(), [], 'the command words load with the first screen');
    const recent = card.getByRole('list', { name: 'Órdenes recientes' });
    const newest = recent.locator('li.command').first();
    await scrollUntilShown(
      card.getByRole('heading', { name: 'Órdenes recientes' }),
      newest.getByText('Cerrar las trampillas 1 y 2', { exact: true }),
    );
    await newest.locator('.status', { hasText: /^(cumplida|en cola|entregada)$/ }).waitFor();
    await recent.getByText('Fijar la temperatura objetivo en 24 °C', { exact: true }).first().waitFor();
    const visible = await visibleText(page);
    assert.doesNotMatch(
      visible,
      /\b(doors\.close|climate\.set_target|lights\.set|fans\.set|move\.start)\b|temp_c|meters_per_day|\{"|\[1,|cmd_/,
      visible,
    );
    // House 1's "needs attention" line writes its numbers the Spanish way ("tolva de pienso 12,9%"). The
    // sample's readings have one decimal, which may be 0 ("12%"): a point is refused, a comma not required.
    const house1 = page.locator('article.house', { has: page.getByRole('heading', { name: 'House 1' }) });
    const attention = (await house1.locator('p.attention').first().textContent()) ?? '';
    assert.match(attention, /^Requiere atención: .*\d/, attention);
    assert.doesNotMatch(attention, /\d\.\d/, attention);
    await assertNoHorizontalScroll(page);
    await screenshot(page, 'words-house-commands-phone-es');
    // The technical details, closed until opened, keep the code and the parameters as sent.
    await newest.locator('summary', { hasText: 'Detalles técnicos' }).click();
    await newest.locator('code', { hasText: 'doors.close' }).waitFor();
    assert.match((await newest.locator('pre').textContent()) ?? '', /"doors": \[\s*1,\s*2\s*\]/);
    assert.deepEqual(problems, []);
  } finally {
    await person.request('PATCH', '/v1/me', { body: { language: 'en' } });
    await page.context().close();
  }
});

test('US units: a target temperature typed in °F on the house command form is stored in °C', async () => {
  type Commands = { data: { command: string; params: Record<string, unknown> }[] };
  const house = await sampleHouse();
  const { page, problems, person } = await signedInPage(world, world.account, PHONE, 'owner');
  assert.equal((await person.request('PATCH', '/v1/me', { body: { units: 'us' } })).status, 200);
  try {
    await page.goto(`${world.base}/houses`);
    const card = page.locator(`article[id="${house.id}"]`);
    await card.locator('summary', { hasText: 'Send a command' }).click();
    await card.getByLabel('Send a command').selectOption({ label: 'Set target temperature' });
    // The registry's 0–45 °C, in the reader's units; the field named in °F, never °C.
    const field = card.getByLabel('Target temperature (°F)');
    await field.waitFor();
    // A text field with the decimal keypad (a number field drops a Spanish decimal comma); the range is said.
    assert.equal(await field.getAttribute('inputmode'), 'decimal');
    await card.getByText(/^32\s?°F – 113\s?°F$/).waitFor();
    await field.fill('77');
    await field.evaluate((input) => input.scrollIntoView({ block: 'center' }));
    await screenshot(page, 'words-house-command-form-us-phone');
    await card.getByRole('button', { name: 'Send' }).click();
    await card
      .getByRole('status')
      .filter({ hasText: /^Set target temperature / })
      .waitFor();
    const sent = await world.t.request<Commands>('GET', `/v1/devices/${house.id}/commands?limit=1`, {
      key: world.account.test_key,
    });
    assert.equal(sent.body.data[0]?.command, 'climate.set_target');
    assert.deepEqual(sent.body.data[0]?.params, { temp_c: 25 }, '77 °F is 25 °C');
    // The card's recent commands say it back in °F.
    await scrollUntilShown(
      card.getByRole('heading', { name: 'Recent commands' }),
      card
        .getByRole('list', { name: 'Recent commands' })
        .getByText(/^Set the target temperature to 77\s?°F$/)
        .first(),
    );
    await screenshot(page, 'words-house-commands-us-phone');
    assert.deepEqual(problems, []);
  } finally {
    await person.request('PATCH', '/v1/me', { body: { units: 'metric' } });
    await page.context().close();
  }
});

test('Spanish: the house command form offers every command, label, hint and caution in Spanish; the catalog’s English descriptions never show; the confirmation asks in Spanish', async () => {
  const house = await sampleHouse();
  // The registry's words, written for API readers in English: none of them reaches a Spanish reader.
  const english = HOUSE_COMMANDS.flatMap((c) => [
    c.description,
    ...(c.caution ? [c.caution] : []),
    ...c.params.map((p) => p.description),
  ]);
  const { page, problems, person } = await signedInPage(world, world.account, PHONE, 'owner');
  assert.equal((await person.request('PATCH', '/v1/me', { body: { language: 'es' } })).status, 200);
  try {
    await page.goto(`${world.base}/houses`);
    const card = page.locator(`article[id="${house.id}"]`);
    await card.locator('summary', { hasText: 'Enviar una orden' }).click();
    const pick = card.getByLabel('Enviar una orden');
    const form = card.locator('form.command-form');
    for (const command of HOUSE_COMMANDS) {
      await pick.selectOption(command.name);
      const text = ((await form.textContent()) ?? '').replaceAll(/\s+/g, ' ');
      for (const words of english) assert.ok(!text.includes(words), `${command.name} shows “${words}”`);
      assert.doesNotMatch(text, /\b(doors|mode|temp_c|meters_per_day|heading_deg|paddock_id|panels)\b/, text);
    }
    // Moving a house: its labels, range and hints in Spanish, the caution said to the person, then asked.
    await pick.selectOption({ label: 'Empezar a moverse' });
    await form
      .getByText('Una casa en marcha puede herir a animales o personas a su paso', { exact: false })
      .waitFor();
    await form.getByLabel('Rumbo (°)').waitFor();
    await form
      .getByText('0 ° – 360 °. 0 es el norte, 90 el este.')
      .or(form.getByText('0° – 360°. 0 es el norte, 90 el este.'))
      .waitFor();
    await form.getByLabel('Distancia al día (m/día)').waitFor();
    await form.getByText('Un largo de la casa al día si no se indica.').waitFor();
    await form.getByLabel('Rumbo (°)').evaluate((input) => input.scrollIntoView({ block: 'center' }));
    await screenshot(page, 'words-house-command-form-phone-es');
    await form.getByRole('button', { name: 'Enviar' }).click();
    const dialog = page.getByRole('dialog', { name: '¿Está seguro?' });
    await dialog.waitFor();
    assert.match(
      ((await dialog.textContent()) ?? '').replaceAll(/\s+/g, ' '),
      /compruebe que el camino está libre\. Empezar a moverse \(/,
    );
    await screenshot(page, 'words-house-command-confirm-phone-es');
    await dialog.getByRole('button', { name: 'Cancelar' }).click();
    await card.getByRole('status').filter({ hasText: 'No se envió.' }).waitFor();
    assert.deepEqual(problems, []);
  } finally {
    await person.request('PATCH', '/v1/me', { body: { language: 'en' } });
    await page.context().close();
  }
});

test('Spanish: an animal’s tracker charts name each metric in words, their times in Spanish form', async () => {
  type Devices = { data: { name: string; animal_id: string | null }[] };
  const devices = await world.t.request<Devices>(
    'GET',
    `/v1/farms/${world.account.sample_farm_id}/devices?type=bolus&limit=50`,
    { key: world.account.test_key },
  );
  const bolus = devices.body.data.find((d) => d.name === 'Bolus 1');
  assert.ok(bolus?.animal_id, 'the sample farm’s Bolus 1 is in an animal');
  const { page, problems, person } = await signedInPage(world, world.account, PHONE, 'owner');
  assert.equal((await person.request('PATCH', '/v1/me', { body: { language: 'es' } })).status, 200);
  // The axes are drawn on a canvas, out of the DOM's reach: note every text the page draws.
  await page.addInitScript(() => {
    type FillText = (this: unknown, text: string, ...rest: number[]) => void;
    const win = globalThis as unknown as {
      drawnTexts: string[];
      CanvasRenderingContext2D: { prototype: { fillText: FillText } };
    };
    const drawn: string[] = [];
    win.drawnTexts = drawn;
    const context = win.CanvasRenderingContext2D.prototype;
    const fillText = context.fillText;
    context.fillText = function (text, ...rest) {
      drawn.push(String(text));
      fillText.call(this, text, ...rest);
    };
  });
  try {
    await page.goto(`${world.base}/animals/${bolus.animal_id}`);
    const chart = page.locator('figure.chart', { hasText: 'Bolus 1: Temperatura corporal, últimos 7 días' });
    await chart.scrollIntoViewIfNeeded();
    await chart.locator('canvas').first().waitFor();
    await chart.locator('.u-legend', { hasText: 'Temperatura corporal (°C)' }).waitFor();
    const said = (await chart.locator('.chart-summary').textContent()) ?? '';
    // The latest value may be whole (39 °C); a fraction is written with a comma, never a point.
    assert.match(
      said,
      /^Temperatura corporal: último \d+(,\d+)?\s?°C \(\d{1,2} [a-z]+\.?, \d\d:\d\d\)/,
      said,
    );
    assert.doesNotMatch(said, /\d\.\d/, said);
    // The value axis's ticks of the body temperature (about 38 to 40 °C) in Spanish form, as the legend
    // is: a fraction after a comma, never a point (the ticks may also happen to be whole).
    const drawn = await page.evaluate(() => (globalThis as unknown as { drawnTexts: string[] }).drawnTexts);
    const temperatures = drawn.filter((text) => /^(3\d|4[0-2])([.,]\d+)?$/.test(text));
    assert.ok(temperatures.length > 0, `the temperature axis has ticks: ${drawn.join(' | ')}`);
    assert.deepEqual(
      temperatures.filter((text) => text.includes('.')),
      [],
      `no tick is written with a decimal point: ${temperatures.join(' | ')}`,
    );
    const visible = await visibleText(page);
    assert.doesNotMatch(visible, /\b(body\.temp_c|rumination\.min|activity\.index)\b/, visible);
    await screenshot(page, 'words-animal-tracker-chart-es-phone');
    assert.deepEqual(problems, []);
  } finally {
    await person.request('PATCH', '/v1/me', { body: { language: 'en' } });
    await page.context().close();
  }
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

test('an animal’s page and the alerts in both languages and unit systems: a weight’s source and a device’s type in words, gains to two decimals and never "-0.00", a hen’s water never "0"', async () => {
  const { page, problems, person } = await signedInPage(world, world.account, PHONE, 'owner');
  const farm = world.account.sample_farm_id;
  const key = world.account.test_key;
  // The sample's latest weight came from its EID reader's scale head; an animal wears a band.
  const weighed = await weighedAnimal();
  const bands = await make.fetched<{ data: { animal_id: string | null }[] }>(
    world.t,
    key,
    `/v1/farms/${farm}/devices?type=band&limit=1`,
  );
  const wearer = bands.data[0]?.animal_id;
  assert.ok(wearer, 'an animal of the sample farm wears a band');
  // A steer that lost 60 g in 30 days (2 g a day: no gain to two decimals, in kg or lb), long ago, so the
  // sample's weighed animal stays the newest weighed.
  const steer = await make.animal(world.t, key, farm, { tag: 'S-900', species: 'cattle', sex: 'steer' });
  for (const [days, kg] of [
    [400, 400],
    [370, 399.94],
  ] as const) {
    const at = new Date(Date.now() - days * 86_400_000).toISOString();
    await make.posted(world.t, key, `/v1/animals/${steer.id}/weights`, { kg, at, source: 'event' });
  }
  try {
    for (const [language, units] of [
      ['en', 'us'],
      ['es', 'us'],
      ['es', 'metric'],
    ] as const) {
      assert.equal((await person.request('PATCH', '/v1/me', { body: { language, units } })).status, 200);
      const es = language === 'es';
      const unit = units === 'us' ? 'lb' : 'kg';
      const name = `${language}-${units}`;
      // The history says where a weight came from in the weights table's words, not the data's "(scale)".
      await page.goto(`${world.base}/animals/${weighed}`);
      const history = page.locator('ul.history');
      await history
        .locator('li', { hasText: es ? ' · báscula' : ' · scale head' })
        .first()
        .waitFor();
      assert.doesNotMatch((await history.textContent()) ?? '', /\(scale\)/);
      // Its gains to two decimals in the reader's unit, the ADG as the table.
      const figures = (await page.locator('.weight-figures').textContent()) ?? '';
      const per = es ? `(${unit} por día)` : `(${unit} a day)`;
      const decimal = es ? ',' : '\\.';
      assert.match(figures, new RegExp(`\\d${decimal}\\d{2} ${per}`), figures);
      await history.scrollIntoViewIfNeeded();
      await screenshot(page, `words-animal-history-${name}-phone`);
      // Lost 2 g a day: "0.00", never "-0.00", in the ADG and the table alike.
      await page.goto(`${world.base}/animals/${steer.id}`);
      await page.locator('table.weights tbody tr').first().waitFor();
      const gains = `${await page.locator('.weight-figures').textContent()} ${await page.locator('table.weights tbody').textContent()}`;
      const adg = es ? 'Ganancia diaria promedio' : 'Average daily gain';
      assert.match(gains, new RegExp(`${adg} 0${decimal}00 ${per}`), gains);
      assert.doesNotMatch(gains, /-0[.,]00/, gains);
      await page.locator('.weight-figures').scrollIntoViewIfNeeded();
      await screenshot(page, `words-animal-gains-${name}-phone`);
      // A group's weights as the animal's page writes them: whole lb (not "1,098.3 lb"), gains to two decimals.
      await page.goto(`${world.base}/groups`);
      await page.getByRole('button', { name: `${es ? 'Pesos de' : 'Weights of'} Cow-calf herd` }).click();
      const group = page.locator('.group-weights dl');
      await group.waitFor();
      const figuresOfGroup = (await group.textContent()) ?? '';
      assert.match(figuresOfGroup, new RegExp(`\\d${decimal}\\d{2} ${per}`), figuresOfGroup);
      if (units === 'us') assert.doesNotMatch(figuresOfGroup, /\d[.,]\d lb/, figuresOfGroup);
      // A device on an animal is named with its type in the devices page's words ("banda", not "band").
      await page.goto(`${world.base}/animals/${wearer}`);
      const device = page.locator('.panel h3').first();
      await device.waitFor();
      assert.match((await device.textContent()) ?? '', es ? / banda$/ : / band$/);
      await device.scrollIntoViewIfNeeded();
      await screenshot(page, `words-animal-device-${name}-phone`);
      // The layers' water per head a day is a fraction of a litre: two figures, neither "0", not one the same
      // as the other ("0.1 gal, 36% below its median of 0.1 gal").
      await page.goto(`${world.base}/alerts`);
      const intake = page.locator('li.card.alert', { hasText: es ? 'agua por cabeza' : 'Water per head' });
      await intake.first().waitFor();
      const reason = (await intake.first().textContent()) ?? '';
      const amounts = [...reason.matchAll(/(\d+(?:[.,]\d+)?) (?:L|l|gal)\b/g)].map((m) => m[1]);
      assert.equal(amounts.length, 2, reason);
      assert.notEqual(amounts[0], amounts[1], reason);
      for (const amount of amounts) assert.doesNotMatch(amount ?? '', /^0$/, reason);
      await intake.first().scrollIntoViewIfNeeded();
      await screenshot(page, `words-alerts-intake-${name}-phone`);
    }
    assert.deepEqual(problems, []);
  } finally {
    await person.request('PATCH', '/v1/me', { body: { language: 'en', units: 'metric' } });
    await world.t.request('DELETE', `/v1/animals/${steer.id}`, { key });
    await page.context().close();
  }
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
    // A house's jammed door by its alarm's title in the reader's words, not its name made into English.
    assert.match(text, language === 'es' ? /Trampilla atascada: House 2/ : /Pop door jammed: House 2/);
    assert.doesNotMatch(text, /Door jammed/);
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
  const sentences = page.locator('.event-log .sentence');
  await waitFor(
    'the log shows only that animal',
    async () => (await sentences.count()) > 0 && (await sentences.filter({ hasNotText: tag }).count()) === 0,
  );
  // Escape clears the choice.
  await box.press('Escape');
  assert.equal(await box.inputValue(), '');
  assert.deepEqual(problems, []);
  await page.context().close();
});

/** A page in Spanish: its heading, a few of its phrases, and none of its former English phrases. */
interface SpanishPage {
  name: string;
  path: string;
  heading: string | RegExp;
  spanish: (string | RegExp)[];
  english: (string | RegExp)[];
  /** A selector for something the page shows only once its reads are in. */
  ready?: string;
}

test('Spanish: the herd pages (brief, alerts, animals, an animal, groups, medicines, treat, movements, chute) at 360 px', async () => {
  const { page, problems, person } = await signedInPage(world, world.account, PHONE, 'owner');
  const farm = world.account.sample_farm_id;
  const found = await world.t.request<{ data: { id: string; name: string | null }[] }>(
    'GET',
    `/v1/farms/${farm}/animals?q=Pip&limit=5`,
    { key: world.account.test_key },
  );
  const pip = found.body.data.find((a) => a.name === 'Pip');
  assert.ok(pip, 'the sample farm has Pip, inside his meat withdrawal');
  // A medicine whose label sets another period for sheep: the cabinet names the species in Spanish.
  await make.created(world.t, world.account.test_key, `/v1/farms/${farm}/medicines`, {
    name: 'Pen & Strep',
    unit: 'ml',
    withdrawal: { meat_days: 23, milk_days: 3 },
    species_withdrawal: { sheep: { meat_days: 18 } },
  });
  // A mob bought in, by head count: the register names its species ("sheep") in Spanish.
  await make.created(world.t, world.account.test_key, `/v1/farms/${farm}/movements`, {
    direction: 'on',
    head_count: 40,
    species: 'sheep',
    reason: 'purchase',
    other_holding: '3ABCD123',
    at: new Date().toISOString(),
  });
  await person.request('PATCH', '/v1/me', { body: { language: 'es' } });
  const pages: SpanishPage[] = [
    {
      name: 'brief',
      path: '/',
      heading: /./,
      ready: 'details.brief-text',
      spanish: ['El resumen como texto', /actualizado/, / · \d{1,2} [a-z]+\.? \d{4} · /],
      english: [
        'The brief as text',
        'Nothing needs you',
        ' · updated ',
        ' · since ',
        / · \d{4}-\d{2}-\d{2} · /,
      ],
    },
    {
      name: 'alerts',
      path: '/alerts',
      heading: 'Alertas',
      ready: 'li.card.alert',
      spanish: ['Abiertas', 'Confirmadas', 'Resueltas', 'regla Amoníaco alto'],
      // A built-in rule by its title, not its code ("regla Amoníaco alto", not "regla house.ammonia").
      english: ['Acknowledged', 'Resolved', /Raised \d/, 'Open the ', 'Showing the 100', /regla house\./],
    },
    {
      name: 'animals',
      path: '/animals',
      heading: 'Animales',
      ready: 'table.records tbody tr',
      // The species as typed ("cattle") said in Spanish words.
      spanish: ['Buscar', 'Especie', 'Retiro', 'Agregar un animal', 'activo', 'Página 1', 'vacuno'],
      english: [
        'Withdrawal',
        'Search',
        'Species',
        'Add an animal',
        /\bactive\b/,
        'Newer',
        'Older',
        /\bcattle\b/,
      ],
    },
    {
      name: 'animal',
      path: `/animals/${pip.id}`,
      heading: /Pip/,
      ready: '.history li',
      spanish: [
        'En período de retiro',
        'Carne: no apta para sacrificio',
        'Último peso',
        'Reproducción y genealogía',
        // His species and sex as typed ("cattle", "castrated") in Spanish words.
        'vacuno',
        'castrado',
      ],
      english: [
        'Under withdrawal',
        'Weights',
        'Latest weight',
        'Give a treatment',
        'History',
        'Breeding and lineage',
        'Because of',
        /\bcattle\b/,
        /\bcastrated\b/,
      ],
    },
    {
      name: 'groups',
      path: '/groups',
      heading: 'Grupos',
      spanish: ['Dar un tratamiento', 'Pesos', 'Agregar un grupo', 'parvada'],
      english: ['Give a treatment', 'Weights', 'Add a group', /\bweeks\b/, /\bdays\b/, /^flock$/m],
    },
    {
      name: 'medicines',
      path: '/medicines',
      heading: 'Botiquín',
      spanish: [
        'Retiro según la etiqueta',
        'Lote ',
        'Vence',
        'Autorizado para vacuno',
        'Para ovino: carne 18',
      ],
      english: [
        'Withdrawal on the label',
        'Batch ',
        'Expires',
        'Licensed for',
        'left of',
        'For sheep',
        'Para sheep',
      ],
    },
    {
      name: 'treat',
      path: '/treat',
      heading: 'Dar un tratamiento',
      spanish: ['Medicamento', 'Dosis por animal', 'Vía', 'Grupo (cada uno de sus animales'],
      english: ['Give a treatment', 'Dose per animal', 'Route', 'Prescribing vet', 'Single animals'],
    },
    {
      name: 'movements',
      path: '/movements',
      heading: 'Registro de movimientos',
      ready: '.card .line strong',
      spanish: ['Registrar un movimiento', 'Salida del predio', 'Movimientos', '40 cabezas de ovino'],
      english: [
        'Holding register',
        'Record a movement',
        'Off the holding',
        'Movements',
        'head of',
        'de sheep',
      ],
    },
    {
      name: 'chute',
      path: '/chute',
      heading: 'Manga',
      spanish: ['Lea el EID', 'O elija de un grupo'],
      english: ['Chute', 'Scan the EID', 'Choose a group'],
    },
  ];
  try {
    for (const p of pages) {
      await page.goto(`${world.base}${p.path}`);
      await page.getByRole('heading', { name: p.heading, level: 1 }).first().waitFor();
      if (p.ready) await page.locator(p.ready).first().waitFor();
      const text = await visibleText(page);
      for (const phrase of p.spanish) {
        if (typeof phrase === 'string') assert.ok(text.includes(phrase), `${p.name}: “${phrase}” is shown`);
        else assert.match(text, phrase, p.name);
      }
      for (const phrase of p.english) {
        if (typeof phrase === 'string') assert.ok(!text.includes(phrase), `${p.name}: no “${phrase}”`);
        else assert.doesNotMatch(text, phrase, p.name);
      }
      await assertNoHorizontalScroll(page);
      assert.deepEqual(await valuesAdrift(page), [], `${p.name}: values right under their names`);
      await screenshot(page, `page-${p.name}-phone-es`);
    }
    // The chute's card in Spanish: Pip found by his tag, his withdrawal on the card.
    await page.locator('#chute-scan').fill('201');
    await page.locator('#chute-scan').press('Enter');
    await page.getByLabel(/^Peso de .*Pip \(kg\)$/).waitFor();
    await page.locator('.chute-card').getByText('En período de retiro').waitFor();
    assert.doesNotMatch(await visibleText(page), /Last weight|Never weighed|Under withdrawal|Save and next/);
    // Who he is, as the animal page says it: his species and sex as typed ("cattle", "castrated") in Spanish.
    const who = (await page.locator('.chute-who').textContent()) ?? '';
    assert.match(who, /^vacuno · castrado · /);
    assert.doesNotMatch(who, /\bcattle\b|\bcastrated\b/);
    await screenshot(page, 'page-chute-card-phone-es');
    // A group's card says what its age is ("4 semanas" alone read as nothing in particular).
    await page.goto(`${world.base}/groups`);
    const ageCell = page.locator('tr', { hasText: 'Broilers' }).locator('td[data-label="Edad"]');
    assert.match((await ageCell.textContent()) ?? '', /\d+ (semanas|días)/);
    // A movement's species is suggested as the animals' are: the stored word, labelled in Spanish.
    await page.goto(`${world.base}/movements`);
    const suggested = page.locator('#move-species option[value="sheep"]');
    assert.equal(await suggested.getAttribute('label'), 'ovino');
    assert.equal(await page.locator('#move-species option').count(), 9);
    assert.equal(await page.getByLabel('Especie').getAttribute('list'), 'move-species');
    // The animal page further down: the weights table, the log and the history.
    await page.goto(`${world.base}/animals/${pip.id}`);
    await page.getByRole('heading', { name: 'Registrar algo' }).scrollIntoViewIfNeeded();
    await page.getByRole('button', { name: 'Registrar peso' }).waitFor();
    await screenshot(page, 'page-animal-log-phone-es');
    assert.deepEqual(problems, []);
  } finally {
    await person.request('PATCH', '/v1/me', { body: { language: 'en' } });
    await page.context().close();
  }
});

type Devices = { data: { id: string }[] };

/** Each of these pages, opened at 360 px by a person who reads Spanish: its heading and words in Spanish. */
const SPANISH_PAGES: { path: string; name: string; heading: string; says: RegExp[]; not: RegExp[] }[] = [
  {
    path: '/houses',
    name: 'houses',
    heading: 'Gallineros',
    says: [/Trampillas/, /Órdenes recientes/, /Enviar una orden/],
    not: [/Pop doors/, /Recent commands/, /Send a command/, /last report/],
  },
  {
    path: '/devices',
    name: 'devices',
    heading: 'Dispositivos',
    says: [/Agregar un dispositivo/],
    not: [/Add a device/, /No devices yet/, /Quiet/],
  },
  {
    path: '/paddocks',
    name: 'paddocks',
    heading: 'Potreros',
    says: [/Descanso objetivo/, /Historial de pastoreo/],
    not: [/Rest target/, /Grazing history/, /never grazed/],
  },
  {
    path: '/plan',
    name: 'plan',
    heading: 'Plan de pastoreo',
    says: [/movimiento previsto/, /en descanso/],
    not: [/Grazing plan/, /planned move/, /Never grazed/],
  },
  {
    path: '/tasks',
    name: 'tasks',
    heading: 'Tareas',
    says: [/Agregar una tarea/, /Vencidas/],
    not: [/Add a task/, /Overdue/, /No due date/],
  },
  {
    path: '/people',
    name: 'people',
    heading: 'Personas',
    says: [/Invitar a alguien/, /propietario/],
    not: [/Invite someone/, /last signed in/],
  },
  {
    path: '/account',
    name: 'account',
    heading: 'Mi cuenta',
    says: [/Agentes conectados/, /Cambiar su contraseña/, /Notificaciones/],
    not: [/Connected agents/, /Change your password/, /Delivery log/, /Quiet hours/],
  },
  {
    path: '/data',
    name: 'data',
    heading: 'Datos',
    says: [/Exportar/, /Importar animales/],
    not: [/Export readings/, /Import animals/, /Device readings/],
  },
  {
    // Opened without an agent's request: what the page is for, not the server's refusal of an empty one.
    path: '/connect',
    name: 'connect-alone',
    heading: 'Conectar un agente',
    says: [/abre esta página cuando pide usar Farmstead/],
    not: [/no aceptó/, /Connect an agent/, /opens this page/],
  },
  {
    path: '/sync',
    name: 'sync',
    heading: 'Por sincronizar',
    says: [/Sincronizar ahora/],
    not: [/Sync now/, /Nothing waiting/],
  },
  {
    path: '/settings',
    name: 'settings',
    heading: 'Ajustes',
    says: [/Guardar la granja/, /Zona horaria/],
    not: [/Save farm/, /Time zone/, /Add a farm/],
  },
  {
    path: '/settings/rules',
    name: 'settings-rules',
    heading: 'Ajustes: Umbrales y reglas',
    // Each built-in rule by its title and measure in Spanish; no rule or metric code (issue 45).
    says: [/Umbrales de alerta/, /El agua baja rápido/, /Amoníaco alto/, /Amoníaco \(ppm\)/],
    not: [
      /Alert thresholds/,
      /Water dropping fast/,
      /Save rules/,
      /High ammonia/,
      /house\.ammonia/,
      /climate\.nh3_ppm/,
      /water\.leak/,
      /device\.quiet/,
      /water\.used_l/,
    ],
  },
  {
    path: '/settings/escalation',
    name: 'settings-escalation',
    heading: 'Ajustes: Escalamiento',
    says: [/Escalar las alertas urgentes/, /Agregar un paso/],
    not: [/Escalate urgent alerts/, /Add a step/],
  },
  {
    path: '/settings/webhooks',
    name: 'settings-webhooks',
    heading: 'Ajustes: Webhooks',
    says: [/Agregar un webhook/],
    not: [/Add a webhook/, /Every event/],
  },
  {
    path: '/settings/keys',
    name: 'settings-keys',
    heading: 'Ajustes: Claves de API',
    says: [/Crear la clave/],
    not: [/Create key/, /Key name/],
  },
  {
    path: '/settings/integrations',
    name: 'integrations',
    heading: 'Integraciones',
    says: [/Agregar un servidor de red/, /Volver a Ajustes/],
    not: [/Add a network server/, /Back to Settings/, /Add integration/],
  },
  {
    path: '/map',
    name: 'map',
    heading: '',
    says: [/Dibujar un potrero/, /Exportar/, /Importar/],
    not: [/Draw a paddock/, /Nothing on the map yet/, /Import\b/],
  },
];

test('Spanish on every page at 360 px: headings and words in Spanish, none of the former English', async () => {
  const { page, problems, person } = await signedInPage(world, world.account, PHONE, 'owner');
  assert.equal((await person.request('PATCH', '/v1/me', { body: { language: 'es' } })).status, 200);
  const devices = await world.t.request<Devices>(
    'GET',
    `/v1/farms/${world.account.sample_farm_id}/devices?limit=1`,
    { key: world.account.test_key },
  );
  const deviceId = devices.body.data[0]?.id;
  assert.ok(deviceId, 'the sample farm has a device');
  const pages = [
    ...SPANISH_PAGES,
    {
      path: `/devices/${deviceId}`,
      name: 'device',
      heading: '',
      says: [/Historial de órdenes/, /Batería/],
      not: [/Command history/, /Last report/, /Rotate key/],
    },
  ];
  for (const spec of pages) {
    await page.goto(`${world.base}${spec.path}`);
    if (spec.heading) await page.getByRole('heading', { name: spec.heading, level: 1 }).waitFor();
    await page
      .getByText(/^(Cargando|Loading)…$/)
      .first()
      .waitFor({ state: 'detached' });
    for (const said of spec.says) await page.getByText(said).first().waitFor();
    const text = await visibleText(page);
    for (const english of spec.not) assert.doesNotMatch(text, english, `${spec.name}: ${english}`);
    await assertNoHorizontalScroll(page);
    assert.deepEqual(await valuesAdrift(page), [], `${spec.name}: values right under their names`);
    await screenshot(page, `page-${spec.name}-phone-es`);
  }
  // The data page's exports: each row's label and its two links on one line at 360 px; each link named,
  // for a screen reader, by its records and its format.
  await page.goto(`${world.base}/data`);
  for (const records of ['Animales', 'Eventos', 'Tareas']) {
    await page.getByRole('link', { name: `${records} CSV`, exact: true }).waitFor();
    await page.getByRole('link', { name: `${records} NDJSON`, exact: true }).waitFor();
  }
  // Read in one go: a banner coming or going between two reads would move the rows.
  const rows = await page.locator('.export-list li').evaluateAll((items) =>
    items.map((li) => {
      const [label, csv, ndjson] = [...li.children].map((c) => c.getBoundingClientRect());
      return {
        label: label?.top,
        csv: csv?.top,
        csvBottom: csv?.bottom,
        ndjson: ndjson?.top,
        text: li.textContent,
      };
    }),
  );
  assert.equal(rows.length, 3);
  for (const row of rows) {
    const { label = 0, csv = 0, csvBottom = 0, ndjson = 0 } = row;
    assert.ok(
      Math.abs(csv - ndjson) < 2 && label >= csv && label < csvBottom,
      `one line: ${JSON.stringify(row)}`,
    );
  }
  // The map's drawing panel, loaded when drawing starts, speaks Spanish too.
  await page.goto(`${world.base}/map`);
  await page.getByRole('button', { name: 'Dibujar un potrero' }).click();
  const sheet = page.getByRole('region', { name: 'Dibujar un potrero' });
  await sheet.getByRole('button', { name: 'Deshacer esquina' }).waitFor();
  await sheet
    .locator('.measure')
    .getByText(/Longitud/)
    .waitFor();
  assert.match((await sheet.locator('.measure').textContent()) ?? '', /Superficie/);
  await sheet.getByRole('button', { name: 'Cancelar' }).click();
  await person.request('PATCH', '/v1/me', { body: { language: 'en' } });
  assert.deepEqual(problems, []);
  await page.context().close();
});
