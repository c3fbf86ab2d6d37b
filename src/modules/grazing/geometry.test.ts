import assert from 'node:assert/strict';
import { test } from 'node:test';
import { metresOutside, paddockAt, usableOutline } from './geometry.ts';

const ring = (lon: number, lat: number, size: number) => [
  [lon, lat],
  [lon + size, lat],
  [lon + size, lat + size],
  [lon, lat + size],
  [lon, lat],
];
const polygon = (lon: number, lat: number, size: number) => ({
  type: 'Polygon',
  coordinates: [ring(lon, lat, size)],
});

test('an outline that is absent, not JSON, another type or malformed contains nothing', () => {
  for (const text of [
    null,
    'not json',
    'null',
    '[]',
    JSON.stringify({ type: 'Point', coordinates: [-92.3, 38.9] }),
    JSON.stringify({ type: 'Polygon', coordinates: [[1, 2]] }),
    JSON.stringify({
      type: 'Polygon',
      coordinates: [
        [
          [1, 2],
          [3, 4],
        ],
      ],
    }),
    JSON.stringify({ type: 'Polygon', coordinates: [ring(-200, 38.9, 0.1)] }),
    JSON.stringify({ type: 'MultiPolygon', coordinates: [] }),
    JSON.stringify({ type: 'Feature', geometry: null }),
  ]) {
    assert.equal(usableOutline(text), null, String(text));
    assert.equal(paddockAt([{ id: 'pad_x', geometry: text }], 38.95, -92.25), null, String(text));
  }
});

test('a Polygon, a MultiPolygon and a Feature of one hold the points inside them, not those in a hole', () => {
  const withHole = {
    type: 'Polygon',
    coordinates: [ring(-92.3, 38.9, 0.1), ring(-92.27, 38.93, 0.02)],
  };
  const multi = { type: 'MultiPolygon', coordinates: [[ring(-93, 38, 0.1)], [ring(-92.3, 38.9, 0.1)]] };
  const feature = { type: 'Feature', properties: {}, geometry: polygon(-92.3, 38.9, 0.1) };
  for (const geometry of [withHole, multi, feature]) {
    const shapes = [{ id: 'pad_a', geometry: JSON.stringify(geometry) }];
    assert.equal(paddockAt(shapes, 38.91, -92.29), 'pad_a', geometry.type);
    assert.equal(paddockAt(shapes, 38.5, -92.29), null, geometry.type);
  }
  const holed = [{ id: 'pad_a', geometry: JSON.stringify(withHole) }];
  assert.equal(paddockAt(holed, 38.94, -92.26), null, 'inside the hole');
});

test('where outlines overlap, the smallest holding the point wins, whatever their order', () => {
  const field = { id: 'pad_field', geometry: JSON.stringify(polygon(-92.3, 38.9, 0.1)) };
  const corner = { id: 'pad_corner', geometry: JSON.stringify(polygon(-92.3, 38.9, 0.01)) };
  assert.equal(paddockAt([field, corner], 38.905, -92.295), 'pad_corner');
  assert.equal(paddockAt([corner, field], 38.905, -92.295), 'pad_corner');
  assert.equal(paddockAt([corner, field], 38.95, -92.25), 'pad_field');
});

test('metresOutside: 0 inside or on the edge, else metres to the nearest edge, a hole’s included', () => {
  const lat = 38.9;
  const eastM = 111_320 * Math.cos((lat * Math.PI) / 180);
  // A square about 870 m a side with a square hole about 170 m a side in its middle.
  const withHole = {
    id: 'pad_a',
    geometry: JSON.stringify({
      type: 'Polygon',
      coordinates: [ring(-92.3, lat, 0.01), ring(-92.296, lat + 0.004, 0.002)],
    }),
  };
  const near = (actual: number | null, metres: number, what: string) =>
    assert.ok(actual !== null && Math.abs(actual - metres) < 0.05, `${what}: ${actual} m, not ${metres} m`);
  assert.equal(metresOutside(withHole, lat + 0.002, -92.299), 0, 'inside');
  assert.equal(metresOutside(withHole, lat + 0.005, -92.3), 0, 'on the western edge');
  near(metresOutside(withHole, lat + 0.005, -92.3 - 4 / eastM), 4, '4 m west of the western edge');
  near(metresOutside(withHole, lat + 0.005, -92.3 - 12 / eastM), 12, '12 m west of it');
  // In the hole, 3 m east of its western edge: outside the paddock, 3 m from its nearest edge.
  near(metresOutside(withHole, lat + 0.005, -92.296 + 3 / eastM), 3, 'in the hole');
  const multi = {
    id: 'pad_m',
    geometry: JSON.stringify({
      type: 'MultiPolygon',
      coordinates: [[ring(-93, 38, 0.1)], [ring(-92.3, lat, 0.01)]],
    }),
  };
  near(metresOutside(multi, lat + 0.005, -92.3 - 4 / eastM), 4, 'the nearest part of a MultiPolygon');
  assert.equal(metresOutside({ id: 'pad_x', geometry: 'not json' }, lat, -92.3), null, 'unusable outline');
});
