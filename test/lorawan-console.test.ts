/**
 * The console's Integrations section (Settings → Integrations), as a person uses it: add a ChirpStack
 * integration and copy its secret, see a sensor the network server heard, adopt it with a preset, and try a
 * mapping on its last uplink before saving it.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { NewAccount } from '../src/modules/accounts/service.ts';
import type { DeviceLink, Integration } from '../src/modules/integrations/schemas.ts';
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
import { uplink } from './lorawan.ts';
import { chirpstackUp } from './lorawan-fixtures.ts';
import type { List } from './replies.ts';

let world: ConsoleWorld;
let account: NewAccount;
let farmId: string;

before(async () => {
  world = await startConsole();
  account = await world.t.account('Lora Downs');
  farmId = (await make.farm(world.t, account.live_key, { name: 'Lora Downs' })).id;
});

after(async () => {
  await world?.close();
});

test('add a ChirpStack integration, adopt the tank sensor it heard with a preset, try and save a mapping', async () => {
  const { page, problems, person } = await signedInPage(world, account, DESKTOP);
  await page.goto(`${world.base}/settings`);
  await page.getByRole('link', { name: 'Integrations' }).click();
  await page.getByRole('heading', { name: 'Integrations', level: 1 }).waitFor();

  const add = page.locator('form', { has: page.getByRole('heading', { name: 'Add a network server' }) });
  await add.getByLabel('Name').fill('Farm gateway');
  await add.getByRole('button', { name: 'Add integration' }).click();
  const secretBox = add.getByLabel('Uplink secret');
  await secretBox.waitFor();
  const secret = await secretBox.inputValue();
  assert.match(secret, /^lwi_/);
  await add.getByText('Event endpoint URL(s)').waitFor();
  await screenshot(page, 'lorawan-integration-created-desktop');

  const list = await make.fetched<List<Integration>>(
    world.t,
    account.live_key,
    `/v1/farms/${farmId}/integrations`,
  );
  const integ = { id: list.data[0]?.id ?? '', secret };
  const heard = await uplink(
    world.t,
    integ,
    chirpstackUp({
      devEui: '24E124713C19ABCD',
      deviceName: 'tank-north',
      object: { battery: 92, distance: 600 },
    }),
    { event: 'up' },
  );
  assert.equal(heard.body.outcome, 'unmatched');

  await page.reload();
  const card = page.locator('li.card', { has: page.getByRole('heading', { name: 'tank-north' }) });
  await card.getByLabel('Preset').selectOption('milesight-em500-udl');
  await card.getByRole('button', { name: 'Adopt as a device' }).click();
  const key = page.getByLabel('Adopted as tank-north: its device key');
  await key.waitFor();
  assert.match(await key.inputValue(), /^rd_/);

  const device = page.locator('li.card', { has: page.getByRole('link', { name: 'tank-north' }) });
  await device.getByRole('cell', { name: 'water.tank_pct' }).waitFor();
  await device.getByRole('cell', { name: '70' }).waitFor();
  await device
    .getByLabel('Mapping (JSON; blank: the preset’s)')
    .fill('{"distance": {"metric": "water.depth_mm"}}');
  // The live preview: the server's answer for the typed mapping.
  await device.getByRole('cell', { name: 'water.depth_mm' }).waitFor();
  await device.getByRole('button', { name: 'Save mapping' }).click();
  await device.getByRole('status').getByText('Mapping saved').waitFor();
  await screenshot(page, 'lorawan-integrations-desktop');

  const links = await make.fetched<{ data: DeviceLink[] }>(
    world.t,
    account.live_key,
    `/v1/integrations/${integ.id}/devices`,
  );
  assert.deepEqual(links.data[0]?.mapping, { distance: { metric: 'water.depth_mm' } });

  await page.setViewportSize(PHONE);
  await assertNoHorizontalScroll(page);
  await screenshot(page, 'lorawan-integrations-phone');

  // The same page for a person who reads Spanish: the cards' lines, the preview and its numbers in Spanish.
  await person.request('PATCH', '/v1/me', { body: { language: 'es' } });
  await page.goto(`${world.base}/settings/integrations`);
  await page.getByRole('heading', { name: 'Integraciones', level: 1 }).waitFor();
  const linked = page.locator('li.card', { has: page.getByRole('link', { name: 'tank-north' }) });
  await linked.getByRole('cell', { name: 'water.depth_mm' }).waitFor();
  // The set-up steps: the reader's sentences around ChirpStack's own labels, which stay as its console has them.
  await page.getByText('Pasos de configuración').click();
  await page.getByText('Event endpoint URL(s)').waitFor();
  // What a person reads (innerText: a closed disclosure's content is not in it).
  const text = await page.evaluate<string>('document.getElementById("main").innerText');
  for (const phrase of [
    'secreto lwi_',
    'sin dirección de API: solo mensajes de subida',
    'última subida hace',
    'se aplica: su propia correspondencia',
    'El último mensaje de subida tal como lo guarda esta correspondencia',
    'En ChirpStack abra Tenant → Applications → su aplicación → Integrations → HTTP y pulse +.',
    'Headers: nombre Authorization, valor Bearer <el secreto>',
    'Para las órdenes: una clave de API (Tenant → API keys)',
  ]) {
    assert.ok(text.includes(phrase), `“${phrase}” is shown`);
  }
  assert.doesNotMatch(
    text,
    /last uplink|applies:|no API address|commands via|as this mapping stores|In ChirpStack|For commands|the secret/,
  );
  await assertNoHorizontalScroll(page);
  await screenshot(page, 'lorawan-integrations-phone-es');
  assert.deepEqual(problems, []);
  await page.context().close();
});
