/**
 * Importing paddocks from the files farmers have: Google Earth's KML, a handheld or tractor GPS's GPX, a
 * GIS's GeoJSON (fixtures/ holds them as those programs write them). Dry run, all or nothing, each problem.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import * as make from '../../../test/factories.ts';
import { expectError, forEachEngine } from '../../../test/harness.ts';
import type { List, Paddock } from '../../../test/replies.ts';
import { MAX_COLLECTION_NESTING } from './import.ts';
import type { PaddockPreview } from './schemas.ts';

const fixture = (name: string) => readFileSync(path.join(import.meta.dirname, 'fixtures', name), 'utf8');

type Preview = { dry_run: true; data: PaddockPreview[] };
type Created = { dry_run: false; data: Paddock[] };

forEachEngine('paddock import', (t) => {
  async function setUp() {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const key = acct.live_key;
    const url = `/v1/farms/${farm}/paddocks/import`;
    const list = async () =>
      (await t().request<List<Paddock>>('GET', `/v1/farms/${farm}/paddocks`, { key })).body.data;
    return { key, farm, url, list };
  }

  test('KML from Google Earth: polygons (with a hole) and a closed line become paddocks; the pin is left out', async () => {
    const { key, url, list } = await setUp();
    const content = fixture('google-earth.kml');
    const preview = await t().request<Preview>('POST', url, { key, body: { content, dry_run: true } });
    assert.equal(preview.status, 200, JSON.stringify(preview.body));
    assert.equal(preview.body.dry_run, true);
    assert.deepEqual(
      preview.body.data.map((p) => [p.name, p.action]),
      [
        ['Creek Bottom', 'create'],
        ['Hilltop', 'create'],
        ['Orchard fence (walked)', 'create'],
        ['Main gate', 'skip'],
      ],
    );
    assert.match(String(preview.body.data[3]?.problem), /Left out: it is a Point, not an area/);
    const hilltop = preview.body.data[1] as PaddockPreview;
    assert.equal((hilltop.geometry?.coordinates as unknown[] | undefined)?.length, 2, 'the pond is a hole');
    assert.equal((await list()).length, 0, 'a dry run stores nothing');

    const made = await t().request<Created>('POST', url, { key, body: { content } });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.deepEqual(
      made.body.data.map((p) => p.name),
      ['Creek Bottom', 'Hilltop', 'Orchard fence (walked)'],
    );
    for (const [i, p] of made.body.data.entries()) {
      assert.equal(p.acres, preview.body.data[i]?.acres, 'computed acres, as previewed');
      assert.equal(p.drawn_acres, p.acres);
    }
    // Creek Bottom: 0.0024° by 0.0024° at 38.956° N, about 208 m by 267 m.
    assert.ok(Math.abs((made.body.data[0]?.acres ?? 0) - 13.7) < 0.3, String(made.body.data[0]?.acres));
    assert.equal((await list()).length, 3);
  });

  test('GPX from a GPS: a boundary track (two segments, ending 7 m from its start) closes into a paddock; an open drive and a waypoint are left out', async () => {
    const { key, url } = await setUp();
    const content = fixture('tractor.gpx');
    const preview = await t().request<Preview>('POST', url, { key, body: { content, dry_run: true } });
    assert.equal(preview.status, 200, JSON.stringify(preview.body));
    const byName = new Map(preview.body.data.map((p) => [p.name, p]));
    const meadow = byName.get('South Meadow boundary');
    assert.equal(meadow?.action, 'create');
    const ring = (meadow?.geometry?.coordinates as number[][][] | undefined)?.[0] ?? [];
    assert.deepEqual(ring[0], ring[ring.length - 1], 'closed by repeating the first position');
    assert.equal(ring.length, 12, '11 track points and the first again');
    assert.equal(byName.get('Drive to the barn')?.action, 'skip');
    assert.match(
      String(byName.get('Drive to the barn')?.problem),
      /open line \(its ends are more than 25 m apart\)/,
    );
    assert.equal(byName.get('Water tank')?.action, 'skip');
    // About 0.0025° by 0.0022°: 217 m by 244 m.
    assert.ok(Math.abs((meadow?.acres ?? 0) - 13.1) < 0.5, String(meadow?.acres));
    const made = await t().request<Created>('POST', url, { key, body: { content, format: 'gpx' } });
    assert.equal(made.status, 201);
    assert.deepEqual(
      made.body.data.map((p) => p.name),
      ['South Meadow boundary'],
    );
  });

  test('GeoJSON from a GIS: a FeatureCollection of Polygons and MultiPolygons; unnamed features are numbered', async () => {
    const { key, url } = await setUp();
    const made = await t().request<Created>('POST', url, { key, body: { content: fixture('qgis.geojson') } });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.deepEqual(
      made.body.data.map((p) => [p.name, p.geometry?.type]),
      [
        ['North Flats', 'MultiPolygon'],
        ['Oak Woods', 'Polygon'],
        ['Paddock 3', 'Polygon'],
      ],
    );
    const one = {
      type: 'Polygon',
      coordinates: [
        [
          [1, 1],
          [1.001, 1],
          [1.001, 1.001],
          [1, 1],
        ],
      ],
    };
    const bare = await t().request<Created>('POST', url, { key, body: { content: JSON.stringify(one) } });
    assert.equal(bare.status, 201);
    assert.deepEqual(bare.body.data[0]?.geometry, one, 'a bare geometry is one paddock');
  });

  test('all or nothing: one refused outline refuses the import, naming the feature; the preview shows it', async () => {
    const { key, url, list } = await setUp();
    const content = JSON.stringify({
      type: 'FeatureCollection',
      features: [
        {
          type: 'Feature',
          properties: { name: 'Good' },
          geometry: {
            type: 'Polygon',
            coordinates: [
              [
                [1, 1],
                [1.001, 1],
                [1.001, 1.001],
                [1, 1],
              ],
            ],
          },
        },
        {
          type: 'Feature',
          properties: { name: 'Bow tie' },
          geometry: {
            type: 'Polygon',
            coordinates: [
              [
                [1, 1],
                [1.001, 1.001],
                [1.001, 1],
                [1, 1.001],
                [1, 1],
              ],
            ],
          },
        },
      ],
    });
    const preview = await t().request<Preview>('POST', url, { key, body: { content, dry_run: true } });
    assert.deepEqual(
      preview.body.data.map((p) => p.action),
      ['create', 'refuse'],
    );
    assert.match(String(preview.body.data[1]?.problem), /crosses itself/);
    const err = expectError(
      await t().request('POST', url, { key, body: { content } }),
      400,
      'invalid_request',
    );
    assert.equal(err.param, 'content');
    assert.match(
      err.message,
      /Feature 2 \("Bow tie"\) cannot be a paddock: .*crosses itself.*Nothing was imported/,
    );
    assert.equal((await list()).length, 0);
  });

  test('files that cannot be read are 400s naming the problem', async () => {
    const { key, url, list } = await setUp();
    const cases: [unknown, string, RegExp][] = [
      [{ content: 'hello' }, 'format', /Could not tell the file format/],
      [{ content: '{"type": "FeatureCollection"', format: 'geojson' }, 'content', /content is not JSON/],
      [{ content: '<kml><Document><Placemark></Document></kml>' }, 'content', /content is not a KML file/],
      [{ content: fixture('tractor.gpx'), format: 'kml' }, 'content', /root element is <gpx>, not <kml>/],
      [{ content: '{"type": "FeatureCollection", "features": []}' }, 'content', /holds no paddock outline/],
      [{ content: '<gpx version="1.1"><wpt lat="1" lon="2"/></gpx>' }, 'content', /holds no paddock outline/],
      [{ content: '{}', format: 'shapefile' }, 'format', /./],
      [{ content: '' }, 'content', /./],
    ];
    for (const [body, param, message] of cases) {
      const err = expectError(await t().request('POST', url, { key, body }), 400, 'invalid_request');
      assert.equal(err.param, param, JSON.stringify(body).slice(0, 80));
      assert.match(err.message, message);
    }
    // An entity-expansion bomb is not expanded into memory: refused or read as text, quickly.
    const bomb = `<?xml version="1.0"?><!DOCTYPE kml [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;"><!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;"><!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;"><!ENTITY g "&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;"><!ENTITY h "&g;&g;&g;&g;&g;&g;&g;&g;&g;&g;">]><kml><Placemark><name>&h;</name><Point><coordinates>1,1</coordinates></Point></Placemark></kml>`;
    const started = Date.now();
    const res = await t().request('POST', url, { key, body: { content: bomb } });
    assert.equal(res.status, 400);
    assert.ok(Date.now() - started < 2_000);
    assert.equal((await list()).length, 0);
  });

  test('GeometryCollections nested past the limit are a 400 naming content (3,000 levels once overflowed the stack)', async () => {
    const { key, url, list } = await setUp();
    const square = '{"type":"Polygon","coordinates":[[[1,1],[1.001,1],[1.001,1.001],[1,1]]]}';
    const nested = (levels: number) =>
      `${'{"type":"GeometryCollection","geometries":['.repeat(levels)}${square}${']}'.repeat(levels)}`;
    for (const dry_run of [true, false]) {
      const err = expectError(
        await t().request('POST', url, { key, body: { content: nested(3_000), dry_run } }),
        400,
        'invalid_request',
      );
      assert.equal(err.param, 'content');
      assert.match(
        err.message,
        new RegExp(`nests GeometryCollections more than ${MAX_COLLECTION_NESTING} deep`),
      );
    }
    const within = await t().request<Preview>('POST', url, {
      key,
      body: { content: nested(MAX_COLLECTION_NESTING), dry_run: true },
    });
    assert.equal(within.status, 200, JSON.stringify(within.body));
    assert.equal(within.body.data[0]?.action, 'create');
    const hollow = await t().request<Preview>('POST', url, {
      key,
      body: { content: '{"type":"GeometryCollection","geometries":{}}', dry_run: true },
    });
    assert.equal(hollow.status, 200, JSON.stringify(hollow.body));
    assert.equal(hollow.body.data[0]?.action, 'skip');
    assert.equal((await list()).length, 0);
  });

  test('the dry run warns (never refuses) about outlines far from the farm, names used twice, overlaps and implausible sizes', async () => {
    const acct = await t().sharedAccount();
    const key = acct.live_key;
    // Willow Creek's place: 38.95 N, 95.25 W.
    const farm = (await make.farm(t(), key, { lat: 38.95, lon: -95.25 })).id;
    const url = `/v1/farms/${farm}/paddocks/import`;
    const square = (lon: number, lat: number, size = 0.002) => ({
      type: 'Polygon',
      coordinates: [
        [
          [lon, lat],
          [lon + size, lat],
          [lon + size, lat + size],
          [lon, lat + size],
          [lon, lat],
        ],
      ],
    });
    await make.created(t(), key, `/v1/farms/${farm}/paddocks`, {
      name: 'Creek',
      geometry: square(-95.25, 38.95),
    });
    const features: [string, unknown][] = [
      ['Fine', square(-95.24, 38.95)],
      ['Creek', square(-95.23, 38.95)],
      ['Farm', square(-95.22, 38.95)],
      ['Farm', square(-95.2195, 38.9505)],
      ['Over the creek', square(-95.2495, 38.9505)],
      ['Abroad', square(10.0, 50.0)],
      ['Speck', square(-95.21, 38.95, 0.0001)],
      ['County', square(-96.5, 38.4, 0.5)],
    ];
    const content = JSON.stringify({
      type: 'FeatureCollection',
      features: features.map(([name, geometry]) => ({ type: 'Feature', properties: { name }, geometry })),
    });
    const preview = await t().request<Preview>('POST', url, { key, body: { content, dry_run: true } });
    assert.equal(preview.status, 200, JSON.stringify(preview.body));
    const rows = preview.body.data;
    assert.deepEqual(
      rows.map((r) => r.action),
      features.map(() => 'create'),
      'warnings never refuse',
    );
    const said = (i: number) => (rows[i]?.warnings ?? []).join(' ');
    assert.deepEqual(rows[0]?.warnings, []);
    assert.match(said(1), /already has a paddock named "Creek"/);
    assert.match(said(2), /"Farm" is used twice in the file/);
    assert.match(said(2), /overlaps "Farm" \(feature 4\) in the file/);
    assert.match(said(3), /overlaps "Farm" \(feature 3\) in the file/);
    assert.match(said(4), /overlaps the farm's paddock "Creek"/);
    assert.match(said(5), /It is [\d,]+ km from the farm's location \(more than 50 km\)/);
    assert.match(said(6), /implausibly small/);
    assert.match(said(7), /implausibly large/);
    for (const i of [0, 1, 2, 3, 4, 6]) assert.doesNotMatch(said(i), /km from/, `feature ${i + 1}`);

    // Without a location, far means far from the farm's other paddocks.
    const bare = (await make.farm(t(), key)).id;
    await make.created(t(), key, `/v1/farms/${bare}/paddocks`, {
      name: 'Home',
      geometry: square(-95.25, 38.95),
    });
    const far = await t().request<Preview>('POST', `/v1/farms/${bare}/paddocks/import`, {
      key,
      body: { content: JSON.stringify(square(10.0, 50.0)), dry_run: true },
    });
    assert.match(far.body.data[0]?.warnings.join(' ') ?? '', /km from the farm's other paddocks/);

    const made = await t().request<Created>('POST', url, { key, body: { content } });
    assert.equal(made.status, 201, 'the import itself goes ahead');
  });
});
