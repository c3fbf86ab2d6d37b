/**
 * Paddock geometry: each refusal named (param and problem), the acres computed from the drawn area, a
 * Feature unwrapped, and a stored geometry that would be refused today never breaking a read.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as make from '../../../test/factories.ts';
import { expectError, forEachEngine } from '../../../test/harness.ts';
import { connect, ERAS, ok } from '../../../test/mcp.ts';
import type { List, Paddock } from '../../../test/replies.ts';
import { acresOf, checkPaddockGeometry, type PaddockGeometry, pointInside } from './geometry.ts';

const ring = (...corners: [number, number][]) => [...corners, corners[0] as [number, number]];
const polygon = (...corners: [number, number][]) => ({ type: 'Polygon', coordinates: [ring(...corners)] });

/**
 * A square of 100 acres (636.149 m a side) at 45° N, its side in degrees from the WGS 84 ellipsoid's
 * metres per degree there (111,131.78 m of latitude, 78,846.3 m of longitude).
 */
const HUNDRED_ACRES_AT_45N = polygon(
  [10, 45],
  [10 + 636.149 / 78_846.3, 45],
  [10 + 636.149 / 78_846.3, 45 + 636.149 / 111_131.78],
  [10, 45 + 636.149 / 111_131.78],
);

const FIELD = polygon([-92.34, 38.95], [-92.33, 38.95], [-92.33, 38.955], [-92.34, 38.955]);

test('acres of a square of known side at a known latitude: within 0.5 %', () => {
  const acres = acresOf(checkPaddockGeometry(HUNDRED_ACRES_AT_45N));
  assert.ok(Math.abs(acres - 100) / 100 < 0.005, `${acres} acres`);
});

test('a point inside: in a concave outline and beside a hole, not at the vertex average', () => {
  // A U shape: the average of its corners falls in the gap between the arms.
  const u = checkPaddockGeometry(
    polygon([0, 0], [3, 0], [3, 3], [2, 3], [2, 1], [1, 1], [1, 3], [0, 3]),
  ) as PaddockGeometry;
  const [x, y] = pointInside(u) as [number, number];
  assert.ok(y === 1.5 && x > 0 && x < 1, `[${x}, ${y}] is in the left arm`);
  const holed = checkPaddockGeometry({
    type: 'Polygon',
    coordinates: [ring([0, 0], [4, 0], [4, 4], [0, 4]), ring([1, 1], [3, 1], [3, 3], [1, 3])],
  });
  const [hx] = pointInside(holed) as [number, number];
  assert.ok(hx > 0 && hx < 1, `${hx} is left of the hole`);
});

forEachEngine('paddock geometry', (t) => {
  test('each geometry refusal is a 400 naming the member at fault and the problem; nothing is written', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const cases: [string, unknown, string, RegExp][] = [
      [
        'unclosed ring',
        {
          type: 'Polygon',
          coordinates: [
            [
              [-92.34, 38.95],
              [-92.33, 38.95],
              [-92.33, 38.955],
              [-92.34, 38.955],
            ],
          ],
        },
        'geometry.coordinates[0]',
        /is not closed: its last position \[-92\.34, 38\.955\] must repeat its first \[-92\.34, 38\.95\]/,
      ],
      [
        'self-intersection (a bow tie)',
        polygon([-92.34, 38.95], [-92.33, 38.955], [-92.33, 38.95], [-92.34, 38.955]),
        'geometry.coordinates',
        /crosses itself at \[-92\.335, 38\.9525\] \(a self-intersection\)/,
      ],
      [
        'longitude out of range',
        polygon([-92.34, 38.95], [200, 38.95], [-92.33, 38.955]),
        'geometry.coordinates[0][1]',
        /longitude 200, out of range: it must be from -180 to 180/,
      ],
      [
        'latitude out of range (swapped)',
        polygon([38.95, -92.34], [38.95, -92.33], [38.955, -92.33]),
        'geometry.coordinates[0][0]',
        /latitude -92\.34, out of range.*longitude first/,
      ],
      [
        'a Point',
        { type: 'Point', coordinates: [-92.34, 38.95] },
        'geometry.type',
        /is a Point: a paddock is an area, so it must be a GeoJSON Polygon or MultiPolygon/,
      ],
      [
        'a LineString',
        {
          type: 'LineString',
          coordinates: [
            [-92.34, 38.95],
            [-92.33, 38.95],
          ],
        },
        'geometry.type',
        /is a LineString: a paddock is an area/,
      ],
      [
        'too few positions',
        {
          type: 'Polygon',
          coordinates: [
            [
              [-92.34, 38.95],
              [-92.33, 38.95],
              [-92.34, 38.95],
            ],
          ],
        },
        'geometry.coordinates[0]',
        /has 3 positions: a ring needs at least 4/,
      ],
      [
        'a position that is not numbers',
        polygon([-92.34, 38.95], [-92.33, 38.95], ['-92.33', '38.955'] as unknown as [number, number]),
        'geometry.coordinates[0][2]',
        /must hold numbers/,
      ],
      ['no type', { coordinates: [] }, 'geometry.type', /must be "Polygon" or "MultiPolygon"/],
      [
        'no area (a flat ring)',
        polygon([-92.34, 38.95], [-92.33, 38.95], [-92.32, 38.95]),
        'geometry',
        /encloses no area/,
      ],
      [
        'a MultiPolygon with one bad ring',
        {
          type: 'MultiPolygon',
          coordinates: [
            FIELD.coordinates,
            [
              [
                [-92.3, 38.9],
                [-92.29, 38.9],
                [-92.3, 38.91],
              ],
            ],
          ],
        },
        'geometry.coordinates[1][0]',
        /has 3 positions/,
      ],
      [
        'a MultiPolygon whose second part overlaps its first',
        {
          type: 'MultiPolygon',
          coordinates: [
            FIELD.coordinates,
            polygon([-92.335, 38.952], [-92.32, 38.952], [-92.32, 38.96], [-92.335, 38.96]).coordinates,
          ],
        },
        'geometry.coordinates[1]',
        /overlaps geometry\.coordinates\[0\] by [\d,]+ m²: the parts of a MultiPolygon may touch but not overlap/,
      ],
      [
        'a MultiPolygon with a part inside another (no edges cross)',
        {
          type: 'MultiPolygon',
          coordinates: [
            FIELD.coordinates,
            polygon([-92.338, 38.951], [-92.332, 38.951], [-92.332, 38.954], [-92.338, 38.954]).coordinates,
          ],
        },
        'geometry.coordinates[1]',
        /overlaps geometry\.coordinates\[0\]/,
      ],
      [
        'a Feature of a Point',
        { type: 'Feature', properties: {}, geometry: { type: 'Point', coordinates: [-92.34, 38.95] } },
        'geometry.geometry.type',
        /is a Point/,
      ],
      [
        'a bad bbox (found by check-geojson)',
        { ...FIELD, bbox: [1, 2] },
        'geometry',
        /is not valid GeoJSON: .*bbox/i,
      ],
    ];
    for (const [name, geometry, param, message] of cases) {
      const err = expectError(
        await t().request('POST', `/v1/farms/${farm}/paddocks`, {
          key: acct.live_key,
          body: { name: 'P', geometry },
        }),
        400,
        'invalid_request',
      );
      assert.equal(err.param, param, name);
      assert.match(err.message, message, name);
    }
    const list = await t().request<List<Paddock>>('GET', `/v1/farms/${farm}/paddocks`, {
      key: acct.live_key,
    });
    assert.equal(list.body.data.length, 0);

    // Parts that touch along a fence line, or at a corner, are no overlap.
    const touching = await make.paddock(t(), acct.live_key, farm, {
      name: 'Two parts',
      geometry: {
        type: 'MultiPolygon',
        coordinates: [
          FIELD.coordinates,
          polygon([-92.33, 38.95], [-92.32, 38.95], [-92.32, 38.955], [-92.33, 38.955]).coordinates,
          polygon([-92.32, 38.955], [-92.31, 38.955], [-92.31, 38.96], [-92.32, 38.96]).coordinates,
        ],
      },
    });
    assert.equal(touching.name, 'Two parts');
    await t().request('DELETE', `/v1/paddocks/${touching.id}`, { key: acct.live_key });

    const ok = await make.paddock(t(), acct.live_key, farm, { name: 'Kept', geometry: FIELD });
    const patch = await t().request('PATCH', `/v1/paddocks/${ok.id}`, {
      key: acct.live_key,
      body: { name: 'Renamed', geometry: { type: 'Point', coordinates: [0, 0] } },
    });
    assert.equal(expectError(patch, 400, 'invalid_request').param, 'geometry.type');
    const kept = await make.fetched<Paddock>(t(), acct.live_key, `/v1/paddocks/${ok.id}`);
    assert.equal(kept.name, 'Kept', 'a refused PATCH changes nothing');
  });

  test('acres are computed from the geometry when not given; a given figure is kept beside drawn_acres', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const key = acct.live_key;
    const drawn = await make.paddock(t(), key, farm, { name: 'Square', geometry: HUNDRED_ACRES_AT_45N });
    assert.ok(drawn.acres !== null && Math.abs(drawn.acres - 100) < 0.5, `${drawn.acres}`);
    assert.equal(drawn.drawn_acres, drawn.acres);
    const given = await make.paddock(t(), key, farm, {
      name: 'Told',
      acres: 140,
      geometry: HUNDRED_ACRES_AT_45N,
    });
    assert.equal(given.acres, 140, 'a given figure is kept');
    assert.equal(given.drawn_acres, drawn.acres, 'and the drawn area shown beside it');

    // A new outline: computed acres follow it; given acres stay.
    const half = polygon(
      [10, 45],
      [10 + 636.149 / 78_846.3 / 2, 45],
      [10 + 636.149 / 78_846.3 / 2, 45 + 636.149 / 111_131.78],
      [10, 45 + 636.149 / 111_131.78],
    );
    const redrawn = await t().request<Paddock>('PATCH', `/v1/paddocks/${drawn.id}`, {
      key,
      body: { geometry: half },
    });
    assert.ok(Math.abs((redrawn.body.acres ?? 0) - 50) < 0.25, `${redrawn.body.acres}`);
    const told = await t().request<Paddock>('PATCH', `/v1/paddocks/${given.id}`, {
      key,
      body: { geometry: half },
    });
    assert.equal(told.body.acres, 140);
    assert.equal(told.body.drawn_acres, redrawn.body.acres);
    const recomputed = await t().request<Paddock>('PATCH', `/v1/paddocks/${given.id}`, {
      key,
      body: { acres: null },
    });
    assert.equal(recomputed.body.acres, redrawn.body.acres, 'acres: null asks for the drawn area again');
  });

  test('a Feature is accepted and its geometry stored as {type, coordinates}', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const made = await make.paddock(t(), acct.live_key, farm, {
      name: 'From a GIS',
      geometry: {
        type: 'Feature',
        properties: { name: 'ignored' },
        geometry: { ...FIELD, bbox: [-92.34, 38.95, -92.33, 38.955] },
      },
    });
    assert.deepEqual(made.geometry, FIELD);
  });

  test('a stored geometry that would be refused today never breaks a read: drawn_acres is null', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const key = acct.live_key;
    const made = await make.paddock(t(), key, farm, { name: 'Old', acres: 4 });
    for (const stored of [{ type: 'Point', coordinates: [1, 2] }, { weird: true }, [1, 2, 3], 'text']) {
      await t()
        .database.db.updateTable('paddocks')
        .set({ geometry: JSON.stringify(stored) })
        .where('id', '=', made.id)
        .execute();
      const got = await t().request<Paddock>('GET', `/v1/paddocks/${made.id}`, { key });
      assert.equal(got.status, 200, JSON.stringify(stored));
      assert.equal(got.body.drawn_acres, null);
      assert.equal(got.body.acres, 4);
      const list = await t().request<List<Paddock>>('GET', `/v1/farms/${farm}/paddocks`, { key });
      assert.equal(list.status, 200);
      const brief = await t().request('GET', `/v1/farms/${farm}/brief`, { key });
      assert.equal(brief.status, 200, 'the brief');
      const map = await t().request<{ features: { id: string; properties: Record<string, unknown> }[] }>(
        'GET',
        `/v1/farms/${farm}/map`,
        { key },
      );
      assert.equal(map.status, 200, 'the map');
      assert.ok(
        map.body.features.find((f) => f.id === made.id),
        'the paddock is on the map, undrawn',
      );
    }
    const mcp = await connect(t(), key, ERAS[0] as (typeof ERAS)[number]);
    try {
      const listed = await ok(mcp.client, 'list_paddocks', { farm_id: farm });
      assert.equal(listed.data[0].id, made.id, 'MCP lists it');
    } finally {
      await mcp.close();
    }
  });
});
