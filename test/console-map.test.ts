/**
 * The Map page in a real browser (headless Chromium), read as a grazier's steps: the farm's paddocks and
 * houses are all drawn; tapping a paddock shows its rest and who is in it, and a group in it can be moved;
 * a paddock drawn by tapping corners through leaflet-geoman is created with its outline and acres; a paddock
 * is split along a drawn line. At 360 px (the map under the header, panels as bottom sheets) and on a
 * desktop, with screenshots. The farm is first an SVG (web/farm-svg.ts): tapping it opens the same panels;
 * Leaflet comes with a pan, a zoom, a drawing, an import or a track, at the same view.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { deflateSync } from 'node:zlib';
import area from '@turf/area';
import type { Polygon } from 'geojson';
import type { Locator, Page } from 'playwright-core';
import type { NewAccount } from '../src/modules/accounts/service.ts';
import type { Farm } from '../src/modules/farms/schemas.ts';
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
import { waitFor } from './engines.ts';
import { device, group, farm as makeFarm, paddock as makePaddock, report } from './factories.ts';

let world: ConsoleWorld;
let account: NewAccount;
let farm: Farm;
let key: string;

/** A rectangle's outline (GeoJSON Polygon) from its west, south, east and north edges. */
function box(west: number, south: number, east: number, north: number) {
  return {
    type: 'Polygon',
    coordinates: [
      [
        [west, south],
        [east, south],
        [east, north],
        [west, north],
        [west, south],
      ],
    ],
  };
}

// Two paddocks side by side along the bottom and one at the top left; the top right is open grass, where
// the new paddock is drawn.
const WEST = box(-97.11, 38.2, -97.105, 38.205);
const EAST = box(-97.104, 38.2, -97.1, 38.205);
const NORTH = box(-97.11, 38.21, -97.105, 38.215);

let houseKey: string;
let houseId: string;
let west: Paddock;
let east: Paddock;

const SQUARE_METERS_PER_ACRE = 4046.8564224;

before(async () => {
  // No tile server in tests (the default is OpenStreetMap's, another host): the plain background.
  world = await startConsole({ mapTiles: null });
  account = await world.t.account('Prairie Run');
  key = account.live_key;
  farm = await makeFarm(world.t, key, { name: 'Prairie Run', timezone: 'America/Chicago' });
  const ago = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();
  west = await makePaddock(world.t, key, farm.id, {
    name: 'West',
    geometry: WEST,
    rest_days_target: 30,
    last_grazed_at: ago(40),
  });
  east = await makePaddock(world.t, key, farm.id, {
    name: 'East',
    geometry: EAST,
    rest_days_target: 30,
    last_grazed_at: ago(12),
  });
  await makePaddock(world.t, key, farm.id, {
    name: 'North',
    geometry: NORTH,
    rest_days_target: 45,
  });
  // A paddock nobody has drawn yet: listed, not on the map.
  await makePaddock(world.t, key, farm.id, { name: 'Creek lot' });
  await group(world.t, key, farm.id, { name: 'Cows', paddock_id: west.id, head_count: 40 });
  const house = await device(world.t, key, farm.id, { type: 'house', name: 'House 1' });
  houseKey = house.device_key;
  houseId = house.id;
  // Two reports: the house moved east within West (its track).
  await report(world.t, house.device_key, { lat: 38.2025, lon: -97.1085, battery: 89 });
  await report(world.t, house.device_key, { lat: 38.2025, lon: -97.1075, battery: 88 });
  const tag = await device(world.t, key, farm.id, { type: 'tag', name: 'Tag 7' });
  await report(world.t, tag.device_key, { lat: 38.2022, lon: -97.1065 });
  // A house that never reported a position is not on the map.
  await device(world.t, key, farm.id, { type: 'house', name: 'House 2' });
});

after(async () => {
  await world?.close();
});

async function paddocks(): Promise<Paddock[]> {
  const res = await world.t.request<{ data: Paddock[] }>('GET', `/v1/farms/${farm.id}/paddocks?limit=100`, {
    key,
  });
  return res.body.data;
}

/** The Map page, its farm drawn (as the SVG: Leaflet is not loaded until the person needs it). */
async function openMap(size = DESKTOP) {
  const opened = await signedInPage(world, account, size);
  await opened.page.goto(`${world.base}/map`);
  await opened.page.locator('.map-svg path.map-paddock').first().waitFor();
  return opened;
}

/**
 * Where a shape is on screen once the map has stopped moving. The map pans after a panel opens or closes
 * (animated, and its size is followed a frame later), so a box read at once can be where the shape was, and
 * a tap there lands on the grass beside it, as a person's would if they tapped before looking.
 */
async function settledBox(shape: Locator) {
  // Two frames of the page (a string runs in the page: the test code has no DOM types).
  const frames = () =>
    shape.page().evaluate('new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))');
  let last = await shape.boundingBox();
  for (let tries = 0; tries < 50; tries++) {
    await frames();
    const now = await shape.boundingBox();
    if (last && now && JSON.stringify(now) === JSON.stringify(last)) return now;
    last = now;
  }
  assert.fail(`${shape} never stopped moving`);
}

/** A point inside a drawn paddock on screen, towards its top left corner (its middle has the house). */
async function insideOf(page: Page, id: string): Promise<{ x: number; y: number }> {
  const b = await settledBox(page.locator(`path.paddock-${id}`));
  return { x: b.x + b.width / 4, y: b.y + b.height / 4 };
}

test('the map draws every paddock with an outline and every device with a position, on a plain background', async () => {
  const { page, problems } = await openMap(DESKTOP);
  const outlined = (await paddocks()).filter((p) => p.geometry !== null);
  await page
    .locator('path.map-paddock')
    .nth(outlined.length - 1)
    .waitFor();
  assert.equal(await page.locator('path.map-paddock').count(), outlined.length);
  for (const p of outlined) await page.locator(`path.paddock-${p.id}`).waitFor();
  assert.equal(await page.locator('.map-house').count(), 1);
  assert.equal(await page.locator('.map-tracker').count(), 1);
  await page.getByRole('button', { name: 'House 1' }).waitFor();
  // Each paddock's name is written on it.
  for (const name of ['West', 'East', 'North']) {
    await page.locator('.map-label', { hasText: name }).waitFor();
  }
  // No tile server is set for the tests: nothing is fetched from another host (problems stays empty).
  assert.equal(await page.locator('.leaflet-tile').count(), 0);
  await screenshot(page, 'console-map-desktop');

  // Live: the house reports from further west in West and its marker moves there without a reload. (It
  // stays in West: a house crossing into East would start East's rest again, which later steps read.)
  const marker = page.locator('.map-house');
  const was = await marker.boundingBox();
  const westBox = await page.locator(`path.paddock-${west.id}`).boundingBox();
  assert.ok(was && westBox);
  await report(world.t, houseKey, { lat: 38.2025, lon: -97.1095 });
  await waitFor('the house marker to move west within West', async () => {
    const now = await marker.boundingBox();
    const x = now ? now.x + now.width / 2 : 0;
    return x < was.x + was.width / 2 - 10 && x > westBox.x;
  });
  // Back where it was, for the steps after this one.
  await report(world.t, houseKey, { lat: 38.2025, lon: -97.1075 });
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('the sample farm (test mode) on the map: every paddock and house drawn, at 360 px and on a desktop', async () => {
  const testKey = world.account.test_key;
  const farms = await world.t.request<{ data: Farm[] }>('GET', '/v1/farms', { key: testKey });
  const sample = farms.body.data[0];
  assert.ok(sample);
  const map = await world.t.request<{
    features: { geometry: unknown; properties: Record<string, unknown> }[];
  }>('GET', `/v1/farms/${sample.id}/map`, { key: testKey });
  const drawn = map.body.features.filter((f) => f.properties.kind === 'paddock' && f.geometry !== null);
  const houses = map.body.features.filter(
    (f) => f.properties.kind === 'device' && f.properties.type === 'house',
  );
  assert.ok(drawn.length >= 2 && houses.length >= 1, 'the sample farm has outlines and placed houses');
  for (const size of [PHONE, DESKTOP]) {
    const { page, problems } = await signedInPage(world, world.account, size);
    await page.goto(`${world.base}/map`);
    await page
      .locator('path.map-paddock')
      .nth(drawn.length - 1)
      .waitFor();
    assert.equal(await page.locator('path.map-paddock').count(), drawn.length);
    await page
      .locator('.map-house')
      .nth(houses.length - 1)
      .waitFor();
    assert.equal(await page.locator('.map-house').count(), houses.length);
    await assertNoHorizontalScroll(page);
    await screenshot(page, `console-map-sample-${size === PHONE ? 'phone' : 'desktop'}`);
    assert.deepEqual(problems, []);
    await page.context().close();
  }
});

test('the map comes without Leaflet; a pan loads it at the same view, and the map works on it', async () => {
  const { page, problems } = await signedInPage(world, account, PHONE);
  const leaflet: string[] = [];
  page.on('request', (request) => {
    if (/\/(leaflet\.mjs|leaflet\.css|farm-map\.ts)$/.test(new URL(request.url()).pathname)) {
      leaflet.push(request.url());
    }
  });
  await page.goto(`${world.base}/map`);
  const westShape = page.locator(`path.paddock-${west.id}`);
  await westShape.waitFor();
  assert.equal(await page.locator('.leaflet-container').count(), 0);
  // Keyboard buttons with names: each drawn paddock, the house, the zoom.
  await page.getByRole('button', { name: 'West', exact: true }).waitFor();
  await page.getByRole('button', { name: 'House 1' }).waitFor();
  await page.getByRole('button', { name: 'Zoom in' }).waitFor();
  // A paddock is reached with the keyboard and opened with Enter, as a tap opens it.
  await page.getByRole('button', { name: 'East', exact: true }).focus();
  await page.keyboard.press('Enter');
  const eastSheet = page.getByRole('region', { name: 'East', exact: true });
  await eastSheet.getByText('Resting').waitFor();
  await eastSheet.getByRole('button', { name: 'Close' }).click();
  await eastSheet.waitFor({ state: 'detached' });
  assert.equal(await page.locator('.leaflet-container').count(), 0, 'a tap needs no Leaflet');
  const before = await settledBox(westShape);
  await screenshot(page, 'console-map-svg-phone');
  assert.equal(leaflet.length, 0, 'the first load does not fetch Leaflet');

  // A finger drags the map (on open grass above East): Leaflet is loaded and takes over where the SVG was.
  const eastBox = await settledBox(page.locator(`path.paddock-${east.id}`));
  const start = { x: eastBox.x + eastBox.width / 2, y: Math.max(eastBox.y - 40, 80) };
  await page.mouse.move(start.x, start.y);
  await page.mouse.down();
  await page.mouse.move(start.x + 30, start.y + 10, { steps: 4 });
  await page.mouse.up();
  await page.locator('.map-canvas.leaflet-container').waitFor();
  await page.locator('.map-svg').waitFor({ state: 'detached' });
  assert.ok(
    leaflet.some((url) => url.endsWith('/vendor/leaflet.mjs')),
    'Leaflet is loaded after a pan',
  );
  const after = await settledBox(page.locator(`path.paddock-${west.id}`));
  for (const key of ['x', 'y', 'width', 'height'] as const) {
    assert.ok(
      Math.abs(after[key] - before[key]) <= 2,
      `West's ${key}: ${before[key]} on the SVG, ${after[key]} on Leaflet`,
    );
  }
  // On Leaflet: a drag pans the map, and a tap on a paddock opens its panel.
  await page.mouse.move(start.x, start.y);
  await page.mouse.down();
  await page.mouse.move(start.x + 40, start.y, { steps: 5 });
  await page.mouse.up();
  await waitFor('the map to pan east', async () => {
    const now = await page.locator(`path.paddock-${west.id}`).boundingBox();
    return Boolean(now && now.x > after.x + 20);
  });
  await screenshot(page, 'console-map-leaflet-phone');
  const at = await insideOf(page, west.id);
  await page.mouse.click(at.x, at.y);
  await page.getByRole('region', { name: 'West', exact: true }).waitFor();
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('the zoom button on the SVG loads Leaflet and zooms in', async () => {
  const { page, problems } = await openMap(DESKTOP);
  const before = await settledBox(page.locator(`path.paddock-${west.id}`));
  await page.getByRole('button', { name: 'Zoom in' }).click();
  await page.locator('.map-canvas.leaflet-container').waitFor();
  await waitFor('West to grow', async () => {
    const now = await page.locator(`path.paddock-${west.id}`).boundingBox();
    return Boolean(now && now.width > before.width * 1.5);
  });
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('switching farms on the map draws and fits the other farm, on the SVG and on Leaflet', async () => {
  // A second farm of the account, 60 km north: its paddock must be fitted, not left off the view.
  const other = await makeFarm(world.t, key, { name: 'Upland', timezone: 'America/Chicago' });
  const far = await makePaddock(world.t, key, other.id, {
    name: 'Upland field',
    geometry: box(-97.11, 38.75, -97.1, 38.76),
  });
  const { page, problems } = await openMap(PHONE);
  try {
    const fitted = async (id: string) => {
      const shown = await settledBox(page.locator(`path.paddock-${id}`));
      const map = await page.locator('.map-area').boundingBox();
      assert.ok(map && shown.width > 20, `${id} is ${shown.width} px wide`);
      assert.ok(shown.x >= map.x && shown.x + shown.width <= map.x + map.width, `${id} is in view`);
    };
    await page.locator('.farm-switcher select').selectOption({ label: 'Upland' });
    await page.locator(`.map-svg path.paddock-${far.id}`).waitFor();
    await fitted(far.id);
    assert.equal(await page.locator(`path.paddock-${west.id}`).count(), 0);
    // Leaflet loaded (a zoom), then back to the first farm: Leaflet fits it. The farm is chosen in the same
    // moment as another tap on + (Leaflet drops a view set while a zoom animates): the fit waits for the zoom.
    await page.getByRole('button', { name: 'Zoom in' }).click();
    await page.locator('.map-canvas.leaflet-container').waitFor();
    await settledBox(page.locator(`path.paddock-${far.id}`));
    await page.evaluate(
      `(() => { document.querySelector('.leaflet-control-zoom-in').click();
        const select = document.querySelector('.farm-switcher select');
        select.value = ${JSON.stringify(farm.id)};
        select.dispatchEvent(new Event('change', { bubbles: true })); })()`,
    );
    await page.locator(`.leaflet-container path.paddock-${west.id}`).waitFor();
    await fitted(west.id);
    assert.equal(await page.locator(`path.paddock-${far.id}`).count(), 0);
    assert.deepEqual(problems, []);
  } finally {
    await page.context().close();
    // The next tests open the account's first farm.
    await world.t.request('DELETE', `/v1/farms/${other.id}`, { key });
  }
});

test('tapping a paddock shows its rest and who is in it; a group in it is moved from there', async () => {
  const { page, problems } = await openMap(PHONE);
  await page.locator(`path.paddock-${west.id}`).waitFor();
  // East rests: 12 days of its 30.
  const there = await insideOf(page, east.id);
  await page.mouse.click(there.x, there.y);
  const eastSheet = page.getByRole('region', { name: 'East', exact: true });
  await eastSheet.getByText('Resting').waitFor();
  await eastSheet.getByText('12 days').waitFor();
  await eastSheet.getByRole('button', { name: 'Close' }).click();
  await eastSheet.waitFor({ state: 'detached' });

  const at = await insideOf(page, west.id);
  await page.mouse.click(at.x, at.y);
  const sheet = page.getByRole('region', { name: 'West', exact: true });
  // The cows are in it: grazed now.
  await sheet.getByText('Grazed now', { exact: true }).waitFor();
  await sheet.getByText('30 days').waitFor();
  await assertNoHorizontalScroll(page);
  await screenshot(page, 'console-map-paddock-phone');

  await sheet.getByRole('button', { name: 'Move Cows…' }).click();
  const move = page.getByRole('form', { name: 'Move Cows' });
  await move.getByLabel('To paddock').selectOption({ label: 'East — resting' });
  await move.getByRole('button', { name: 'Record the move' }).click();
  // The form closes once the server has taken the move; West's panel is back.
  await move.waitFor({ state: 'detached' });
  await page.getByRole('region', { name: 'West', exact: true }).waitFor();
  const events = await world.t.request<{ data: { type: string; subject_id: string; data: unknown }[] }>(
    'GET',
    `/v1/farms/${farm.id}/events?type=move`,
    { key },
  );
  const moves = events.body.data.filter((e) => e.type === 'move');
  assert.equal(moves.length, 1);
  assert.deepEqual(moves[0]?.data, { to_paddock_id: east.id });

  // West's grazing history (read when opened) lists the cows' stay, ended by the move.
  const westSheet = page.getByRole('region', { name: 'West', exact: true });
  await westSheet.getByText('Grazing history').click();
  const history = westSheet.getByRole('list', { name: 'Grazing history of West' });
  const cows = history.getByRole('listitem').filter({ hasText: 'Cows' });
  await cows.waitFor();
  assert.doesNotMatch((await cows.textContent()) ?? '', /now/, 'the stay has ended');
  await westSheet.getByRole('button', { name: 'Close' }).click();

  // Tapping the house shows its panel, and its track over the last day.
  await page.getByRole('button', { name: 'House 1' }).click();
  const house = page.getByRole('region', { name: 'House 1', exact: true });
  await house.getByText('88%').waitFor();
  await house.getByRole('button', { name: 'Track 1 d' }).click();
  // A line through its two positions (an east-west line: no height, so "attached", not "visible").
  await page.locator('path.map-track[d*="L"]').waitFor({ state: 'attached' });
  await screenshot(page, 'console-map-track-phone');
  assert.deepEqual(problems, []);
  await page.context().close();
});

/** The links and buttons under `scope` smaller than a thumb (44 × 44 px), with their size. */
function smallTargets(scope: Locator): Promise<string[]> {
  return scope.evaluate((root) =>
    [...root.querySelectorAll('a, button')].flatMap((el) => {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || (r.width >= 43.5 && r.height >= 43.5)) return [];
      return [
        `${(el.textContent || el.getAttribute('title') || '').trim()} ${Math.round(r.width)}×${Math.round(r.height)}`,
      ];
    }),
  );
}

test('the Map page’s links and buttons are a thumb’s size at 360 px: a paddock’s occupants, Leaflet’s zoom', async () => {
  // A crew person: the group in the paddock is a link to its animals (an owner gets a Move button).
  const { page, problems } = await signedInPage(world, account, PHONE, 'crew');
  await page.goto(`${world.base}/map`);
  await page.locator('.map-svg path.map-paddock').first().waitFor();
  const groups = await world.t.request<{ data: { name: string; paddock_id: string }[] }>(
    'GET',
    `/v1/farms/${farm.id}/groups`,
    { key },
  );
  const cows = groups.body.data.find((g) => g.name === 'Cows');
  assert.ok(cows);
  const at = await insideOf(page, cows.paddock_id);
  await page.mouse.click(at.x, at.y);
  const sheet = page.locator('.map-sheet');
  await sheet.getByRole('link', { name: 'Cows' }).waitFor();
  assert.deepEqual(await smallTargets(sheet), []);
  await sheet.getByRole('button', { name: 'Close' }).click();
  // Leaflet (loaded by a zoom) keeps the SVG's 44 px zoom buttons.
  await page.getByRole('button', { name: 'Zoom in' }).click();
  await page.locator('.map-canvas.leaflet-container').waitFor();
  assert.deepEqual(await smallTargets(page.locator('.leaflet-control-zoom')), []);
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('a paddock drawn through leaflet-geoman on a phone is created with its outline and acres', async () => {
  const { page, problems } = await openMap(PHONE);
  const before = await paddocks();
  await page.locator(`path.paddock-${east.id}`).waitFor();
  await page.getByRole('button', { name: 'Draw a paddock' }).click();
  const sheet = page.getByRole('region', { name: 'Draw a paddock', exact: true });
  await sheet.getByText('Tap each corner').waitFor();
  // geoman is loaded now (it was not part of the page's first load).
  await page.waitForFunction(() => Boolean((globalThis as { L?: { PM?: unknown } }).L?.PM));
  // The open grass above East and right of North, in the part of the map the sheet leaves visible.
  const eastBox = await settledBox(page.locator(`path.paddock-${east.id}`));
  const mapBox = await page.locator('.map-canvas').boundingBox();
  assert.ok(eastBox && mapBox);
  const left = eastBox.x + eastBox.width * 0.2;
  const right = eastBox.x + eastBox.width * 0.8;
  const top = Math.max(mapBox.y + 30, eastBox.y - 200);
  const bottom = eastBox.y - 30;
  assert.ok(bottom - top > 60, 'room to draw');
  await page.mouse.click(left, top);
  await page.mouse.click(right, top);
  await page.mouse.move(right, bottom);
  await page.mouse.click(right, bottom);
  await page.mouse.click(left, bottom);
  // The length and area measured while drawing, in the reader's units (metric here: metres and hectares).
  await sheet.getByText(/Area \d+(\.\d\d?)? ha/).waitFor();
  const measured = (await sheet.locator('.measure').textContent()) ?? '';
  assert.match(measured, /Length \d+(\.\d\d?)? k?m/);
  assert.doesNotMatch(measured, / ac| ft| mi/, 'no US units for a metric reader');
  await screenshot(page, 'console-map-draw-phone');
  await sheet.getByRole('button', { name: 'Finish' }).click();

  const form = page.getByRole('form', { name: 'New paddock' });
  await form.getByLabel('Name').fill('Top field');
  await form.getByLabel('Rest target (days)').fill('35');
  await form.getByRole('button', { name: 'Save paddock' }).click();
  const panel = page.getByRole('region', { name: 'Top field', exact: true });
  await panel.waitFor();
  await assertNoHorizontalScroll(page);
  const after = await paddocks();
  assert.equal(after.length, before.length + 1);
  const made = after.find((p) => p.name === 'Top field');
  assert.ok(made);
  const geometry = made.geometry as { type: string; coordinates: number[][][] };
  assert.equal(geometry.type, 'Polygon');
  assert.equal(geometry.coordinates[0]?.length, 5, 'four corners and the closing one');
  for (const [lon, lat] of geometry.coordinates[0] ?? []) {
    assert.ok((lon as number) >= -97.104 && (lon as number) <= -97.1, `lon ${lon}`);
    assert.ok((lat as number) >= 38.205 && (lat as number) < 38.216, `lat ${lat}`);
  }
  const drawnAcres = area(geometry as Polygon) / SQUARE_METERS_PER_ACRE;
  assert.ok(made.acres !== null && Math.abs(made.acres - drawnAcres) < 0.01, `acres ${made.acres}`);
  assert.equal(made.rest_days_target, 35);
  await page.locator(`path.paddock-${made.id}`).waitFor();
  await screenshot(page, 'console-map-drawn-phone');
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('a paddock outline edited through geoman (a corner dragged) is saved with its new acres', async () => {
  const { page, problems } = await openMap(DESKTOP);
  const north = (await paddocks()).find((p) => p.name === 'North');
  assert.ok(north);
  await page.locator(`path.paddock-${north.id}`).waitFor();
  const at = await insideOf(page, north.id);
  await page.mouse.click(at.x, at.y);
  await page
    .getByRole('region', { name: 'North', exact: true })
    .getByRole('button', { name: 'Edit outline' })
    .click();
  const sheet = page.getByRole('region', { name: 'Edit North', exact: true });
  await sheet.getByText(/Area \d+(\.\d\d?)? ha/).waitFor();
  // geoman's corner handles (not the midpoints); the north-east one is dragged east.
  const handles = page.locator('.marker-icon:not(.marker-icon-middle)');
  await handles.nth(3).waitFor();
  await settledBox(handles.nth(3));
  const boxes = await Promise.all((await handles.all()).map((h) => h.boundingBox()));
  const corner = boxes
    .flatMap((b) => (b ? [{ x: b.x + b.width / 2, y: b.y + b.height / 2 }] : []))
    .sort((a, b) => b.x - b.y - (a.x - a.y))[0];
  assert.ok(corner);
  const before = (await sheet.locator('.measure').textContent()) ?? '';
  await page.mouse.move(corner.x, corner.y);
  await page.mouse.down();
  await page.mouse.move(corner.x + 40, corner.y, { steps: 5 });
  await page.mouse.up();
  await waitFor(
    'the area to grow',
    async () => ((await sheet.locator('.measure').textContent()) ?? '') !== before,
  );
  await sheet.getByRole('button', { name: 'Save outline' }).click();
  await sheet.waitFor({ state: 'detached' });
  await page.getByRole('region', { name: 'North', exact: true }).waitFor();
  const after = (await paddocks()).find((p) => p.id === north.id);
  assert.ok(after);
  const ring = (after.geometry as { coordinates: number[][][] }).coordinates[0] ?? [];
  assert.ok(Math.max(...ring.map(([lon]) => lon as number)) > -97.105, 'a corner moved east');
  const acres = area(after.geometry as unknown as Polygon) / SQUARE_METERS_PER_ACRE;
  assert.ok(after.acres && Math.abs(after.acres - acres) < 0.01, `acres ${after.acres} for ${acres}`);
  assert.ok(acres > area(NORTH as Polygon) / SQUARE_METERS_PER_ACRE, 'bigger than before');
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('a paddock split along a line drawn across it becomes two paddocks whose acres add up', async () => {
  const { page, problems } = await openMap(DESKTOP);
  const wholeAcres = area(EAST as Polygon) / SQUARE_METERS_PER_ACRE;
  await page.locator(`path.paddock-${east.id}`).waitFor();
  const at = await insideOf(page, east.id);
  await page.mouse.click(at.x, at.y);
  await page
    .getByRole('region', { name: 'East', exact: true })
    .getByRole('button', { name: 'Split' })
    .click();
  const sheet = page.getByRole('region', { name: 'Split East', exact: true });
  await sheet.getByText('Draw the new fence line').waitFor();
  await page.waitForFunction(() => Boolean((globalThis as { L?: { PM?: unknown } }).L?.PM));
  const b = await settledBox(page.locator(`path.paddock-${east.id}`));
  const x = b.x + b.width * 0.3;
  await page.mouse.click(x, b.y - 40);
  await page.mouse.click(x, b.y + b.height + 12);
  await sheet.getByRole('button', { name: 'Finish' }).click();
  const form = page.getByRole('form', { name: 'Split the paddock' });
  await form.getByLabel('Name of the new paddock').fill('East B');
  await screenshot(page, 'console-map-split-desktop');
  await form.getByRole('button', { name: 'Split' }).click();
  await form.waitFor({ state: 'detached' });
  await page.getByRole('region', { name: 'East', exact: true }).waitFor();
  const after = await paddocks();
  const kept = after.find((p) => p.id === east.id);
  const added = after.find((p) => p.name === 'East B');
  assert.ok(kept?.acres && added?.acres);
  assert.ok(Math.abs(kept.acres + added.acres - wholeAcres) < 0.1, `${kept.acres} + ${added.acres}`);
  assert.ok(added.acres < kept.acres, 'the 30 % west of the line is the new paddock');
  assert.equal(added.rest_days_target, 30);
  await page.locator(`path.paddock-${added.id}`).waitFor();
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('a house sent to another paddock shows its route, with the distance and the day it arrives', async () => {
  const { page, problems } = await openMap(DESKTOP);
  await page.locator(`path.paddock-${east.id}`).waitFor();
  const sent = await world.t.request('POST', `/v1/devices/${houseId}/commands`, {
    key,
    body: { command: 'move.to_paddock', params: { paddock_id: east.id } },
  });
  assert.equal(sent.status, 201, JSON.stringify(sent.body));
  // The queued command reaches the page on the stream; the map reloads with the route.
  await page.locator('path.map-route').waitFor({ state: 'attached' });
  const box = await settledBox(page.locator('path.map-route-hit'));
  // Near its end in East (its start is under the house's marker and name).
  await page.mouse.click(box.x + box.width * 0.8, box.y + box.height / 2);
  const sheet = page.getByRole('region', { name: 'Planned move to East', exact: true });
  await sheet.getByText(/\d+ m\/d(ay)?\b/).waitFor();
  await sheet.getByText('Arrives').waitFor();
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('paddocks imported from a GeoJSON file: the preview lists and draws them, then Create makes them all', async () => {
  const { page, problems } = await openMap(PHONE);
  const before = await paddocks();
  await page.getByRole('button', { name: 'Import' }).click();
  const sheet = page.getByRole('region', { name: 'Import paddocks', exact: true });
  const file = {
    type: 'FeatureCollection',
    features: [
      { type: 'Feature', properties: { name: 'South A' }, geometry: box(-97.11, 38.19, -97.105, 38.195) },
      { type: 'Feature', properties: { name: 'South B' }, geometry: box(-97.104, 38.19, -97.1, 38.195) },
      {
        type: 'Feature',
        properties: { name: 'Gate' },
        geometry: { type: 'Point', coordinates: [-97.1, 38.19] },
      },
    ],
  };
  await sheet.getByLabel('File').setInputFiles({
    name: 'south.geojson',
    mimeType: 'application/geo+json',
    buffer: Buffer.from(JSON.stringify(file)),
  });
  const table = sheet.getByRole('table', { name: 'Paddocks in the file' });
  await table.getByRole('cell', { name: 'South A' }).waitFor();
  await table.getByRole('cell', { name: 'South B' }).waitFor();
  await table.getByRole('cell', { name: /^skipped/ }).waitFor();
  // The outlines are drawn on the map (just after the table: the map follows the page's render); nothing is
  // stored yet.
  await page.locator('path.map-preview').nth(1).waitFor({ state: 'attached' });
  assert.equal(await page.locator('path.map-preview').count(), 2);
  assert.equal((await paddocks()).length, before.length);
  await assertNoHorizontalScroll(page);
  await screenshot(page, 'console-map-import-phone');
  await sheet.getByRole('button', { name: 'Create 2 paddocks' }).click();
  await sheet.getByText('Created 2 paddocks.').waitFor();
  const after = await paddocks();
  assert.deepEqual(
    after
      .filter((p) => p.name.startsWith('South'))
      .map((p) => p.name)
      .sort(),
    ['South A', 'South B'],
  );
  for (const p of after.filter((x) => x.name.startsWith('South'))) {
    await page.locator(`path.paddock-${p.id}`).waitFor();
  }
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('the paddocks page flags acres far from the drawn outline', async () => {
  await makePaddock(world.t, key, farm.id, { name: 'Big claim', acres: 100, geometry: NORTH });
  const { page, problems } = await signedInPage(world, account, PHONE);
  await page.goto(`${world.base}/paddocks`);
  const card = page.locator('li.card', { hasText: 'Big claim' });
  await card.getByText('the outline differs from the area given').waitFor();
  // The drawn area in the reader's units (metric here: hectares).
  assert.match((await card.locator('.acres-apart').textContent()) ?? '', /\d+(\.\d+)? ha\b/);
  await assertNoHorizontalScroll(page);
  assert.deepEqual(problems, []);
  await page.context().close();
});

type Box = { x: number; y: number; width: number; height: number };

/** Whether two boxes on screen share any area. */
function overlaps(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

test('with map tiles set but unreachable, the farm is drawn on a plain background and the page says so', async () => {
  // A tile server that refuses every connection (nothing listens on port 9 of this machine).
  const unreachable = await startConsole({ mapTiles: 'http://127.0.0.1:9/{z}/{x}/{y}.png' });
  try {
    const owner = await unreachable.t.account('Offline farm');
    const offlineFarm = await makeFarm(unreachable.t, owner.live_key, { name: 'Offline farm' });
    await makePaddock(unreachable.t, owner.live_key, offlineFarm.id, { name: 'Home', geometry: WEST });
    const { page, problems, person } = await signedInPage(unreachable, owner, PHONE);
    const html = await (await page.request.get(`${unreachable.base}/map`)).text();
    assert.match(html, /<meta name="farmstead-map-tiles" content="http:\/\/127\.0\.0\.1:9\/\{z\}/);
    // At 360 px, in English and in Spanish (a longer note), the note covers nothing of the farm: the paddock
    // and its name stay whole, in the map's box, clear of the note and of the tools' row.
    for (const [language, note] of [
      ['en', 'Map tiles could not be loaded'],
      ['es', 'No se pudieron cargar los mosaicos del mapa'],
    ] as const) {
      assert.equal((await person.request('PATCH', '/v1/me', { body: { language } })).status, 200);
      await page.goto(`${unreachable.base}/map`);
      await page.locator('path.map-paddock').waitFor();
      await page.getByText(note).waitFor();
      assert.equal(await page.locator('.leaflet-tile').count(), 0);
      const paddock = await settledBox(page.locator('path.map-paddock'));
      const label = await page.locator('text.map-label', { hasText: 'Home' }).boundingBox();
      const noteBox = await page.getByText(note).boundingBox();
      const map = await page.locator('.map-area').boundingBox();
      const tools = await page.locator('.map-tools').boundingBox();
      assert.ok(label && noteBox && map && tools);
      for (const [name, shape] of [
        ['the paddock', paddock],
        ['its name', label],
      ] as const) {
        assert.ok(!overlaps(shape, noteBox), `${language}: the note covers ${name}`);
        assert.ok(!overlaps(shape, tools), `${language}: the tools cover ${name}`);
        assert.ok(
          shape.y >= map.y && shape.y + shape.height <= map.y + map.height,
          `${language}: ${name} is cut by the map's edge`,
        );
      }
      await screenshot(page, `console-map-no-tiles-phone${language === 'en' ? '' : `-${language}`}`);
    }
    // Only the tile requests went elsewhere.
    assert.deepEqual(
      problems.filter((p) => !p.startsWith('foreign request http://127.0.0.1:9/')),
      [],
    );
    await page.context().close();
  } finally {
    await unreachable.close();
  }
});

/** A 256 px square PNG of one colour: a map tile. */
function tilePng(): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (bytes: Buffer) => {
    let c = 0xffffffff;
    for (const b of bytes) c = (crcTable[(c ^ b) & 0xff] as number) ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc(body), 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(256, 0);
  header.writeUInt32BE(256, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(256 * 3, 0xc8)]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(Array.from({ length: 256 }, () => row)))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

test('with map tiles set, the SVG lays them where Leaflet lays the same tiles', async () => {
  const png = tilePng();
  const tiles = createServer((_, res) => {
    res.writeHead(200, { 'content-type': 'image/png', 'cache-control': 'no-store' });
    res.end(png);
  });
  await new Promise<void>((done) => tiles.listen(0, '127.0.0.1', done));
  const origin = `http://127.0.0.1:${(tiles.address() as AddressInfo).port}`;
  const tiled = await startConsole({ mapTiles: `${origin}/{z}/{x}/{y}.png`, mapAttribution: 'Test tiles' });
  try {
    const owner = await tiled.t.account('Tiled farm');
    const tiledFarm = await makeFarm(tiled.t, owner.live_key, { name: 'Tiled farm' });
    await makePaddock(tiled.t, owner.live_key, tiledFarm.id, { name: 'Home', geometry: WEST });
    const { page, problems } = await signedInPage(tiled, owner, PHONE);
    await page.goto(`${tiled.base}/map`);
    await page.locator('.map-svg path.map-paddock').waitFor();
    await waitFor('the tiles drawn', async () =>
      Boolean(
        await page.evaluate(
          `[...document.querySelectorAll('.map-svg img.map-tile')].some((img) => img.complete && img.naturalWidth === 256)`,
        ),
      ),
    );
    await page.getByText('Test tiles').waitFor();
    // Each tile's place from the paddock's corner (the map's box may change under a banner meanwhile).
    // Read in one frame: the paddock and every tile together, so nothing moves between the readings.
    const home = page.locator('path.map-paddock');
    const svgHome = await settledBox(home);
    const tilePlaces = async (tiles: string) =>
      new Map(
        (await page.evaluate(
          `(() => { const home = document.querySelector('path.map-paddock').getBoundingClientRect();
            return [...document.querySelectorAll(${JSON.stringify(tiles)})].map((img) => {
              const box = img.getBoundingClientRect();
              return [img.getAttribute('src') ?? '', { x: box.x - home.x, y: box.y - home.y }];
            }); })()`,
        )) as [string, { x: number; y: number }][],
      );
    const places = await tilePlaces('.map-svg img.map-tile');
    assert.ok(places.size >= 4, `${places.size} tiles`);
    await screenshot(page, 'console-map-svg-tiles-phone');
    // Leaflet, once an arrow key on the map asks for it, shows the same tiles at the same places.
    await page.getByRole('button', { name: 'Zoom in' }).focus();
    await page.keyboard.press('ArrowLeft');
    await page.locator('.map-canvas.leaflet-container').waitFor();
    const leafletTiles = page.locator('img.leaflet-tile');
    await leafletTiles.nth(places.size - 1).waitFor();
    const leafletHome = await settledBox(home);
    assert.ok(Math.abs(leafletHome.width - svgHome.width) <= 2, 'the paddock at the same zoom');
    let same = 0;
    for (const [src, { x, y }] of await tilePlaces('img.leaflet-tile')) {
      const at = places.get(src);
      if (!at) continue;
      assert.ok(Math.abs(x - at.x) <= 2 && Math.abs(y - at.y) <= 2, `${x}, ${y} for ${JSON.stringify(at)}`);
      same++;
    }
    assert.equal(same, places.size, 'every tile of the SVG is one of Leaflet’s');
    assert.deepEqual(
      problems.filter((p) => !p.startsWith(`foreign request ${origin}/`)),
      [],
    );
    await page.context().close();
  } finally {
    await tiled.close();
    tiles.close();
  }
});

// Last: it leaves a paddock on another continent on the farm.
test('an import that looks wrong says so before Create, and the map then fits the farm, not the outlier', async () => {
  const { page, problems } = await openMap(DESKTOP);
  await page.getByRole('button', { name: 'Import' }).click();
  const sheet = page.getByRole('region', { name: 'Import paddocks', exact: true });
  const file = {
    type: 'FeatureCollection',
    features: [
      { type: 'Feature', properties: { name: 'West' }, geometry: box(-97.1095, 38.2005, -97.1055, 38.2045) },
      { type: 'Feature', properties: { name: 'Abroad' }, geometry: box(10.0, 50.0, 10.005, 50.005) },
    ],
  };
  await sheet.getByLabel('File').setInputFiles({
    name: 'google-earth.geojson',
    mimeType: 'application/geo+json',
    buffer: Buffer.from(JSON.stringify(file)),
  });
  await sheet.getByText('2 outlines look wrong').waitFor();
  await sheet.getByText('Check: The farm already has a paddock named "West".').waitFor();
  await sheet.getByText(/Check: It overlaps the farm's paddock "West"/).waitFor();
  await sheet.getByText(/Check: It is [\d,]+ km from the farm's other paddocks/).waitFor();
  await screenshot(page, 'console-map-import-warnings-desktop');
  await sheet.getByRole('button', { name: 'Create 2 paddocks' }).click();
  await sheet.getByText('Created 2 paddocks.').waitFor();
  await page.context().close();

  const again = await openMap(DESKTOP);
  const westShape = again.page.locator(`path.paddock-${west.id}`);
  await westShape.waitFor();
  const shown = await settledBox(westShape);
  // About 440 m wide: tens of pixels when the view fits the farm, under one when it fits two continents.
  assert.ok((shown?.width ?? 0) > 20, `West is ${shown?.width} px wide`);
  assert.deepEqual([...problems, ...again.problems], []);
  await again.page.context().close();
});
