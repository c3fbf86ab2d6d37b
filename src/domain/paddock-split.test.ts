import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Position, splitOutline } from './paddock-split.ts';

/** A square 0..10 (closed ring). */
const SQUARE: Position[] = [
  [0, 0],
  [10, 0],
  [10, 10],
  [0, 10],
  [0, 0],
];

/** Shoelace area of a closed ring (planar, for the test's simple shapes). */
function planarArea(ring: Position[]): number {
  let sum = 0;
  for (let i = 0; i + 1 < ring.length; i++) {
    const [x1, y1] = ring[i] as Position;
    const [x2, y2] = ring[i + 1] as Position;
    sum += x1 * y2 - x2 * y1;
  }
  return Math.abs(sum / 2);
}

function parts(result: ReturnType<typeof splitOutline>): [Position[], Position[]] {
  assert.ok('parts' in result, JSON.stringify(result));
  return result.parts;
}

test('a straight line across a square splits it into two closed halves whose areas add up', () => {
  const [a, b] = parts(
    splitOutline(
      [SQUARE],
      [
        [4, -5],
        [4, 15],
      ],
    ),
  );
  for (const ring of [a, b]) assert.deepEqual(ring[0], ring[ring.length - 1]);
  const areas = [planarArea(a), planarArea(b)].sort((x, y) => x - y);
  assert.deepEqual(areas, [40, 60]);
});

test('a line ending exactly on the fence (snapped to it) still splits', () => {
  const [a, b] = parts(
    splitOutline(
      [SQUARE],
      [
        [3, 0],
        [3, 10],
      ],
    ),
  );
  assert.deepEqual(
    [planarArea(a), planarArea(b)].sort((x, y) => x - y),
    [30, 70],
  );
});

test('a bent line keeps its bends inside the paddock as the new boundary', () => {
  const [a, b] = parts(
    splitOutline(
      [SQUARE],
      [
        [-1, 5],
        [5, 8],
        [11, 5],
      ],
    ),
  );
  assert.ok(a.some(([x, y]) => x === 5 && y === 8));
  assert.ok(b.some(([x, y]) => x === 5 && y === 8));
  assert.equal(planarArea(a) + planarArea(b), 100);
});

test('a line across one corner (both crossings near one vertex) cuts off a triangle', () => {
  const [a, b] = parts(
    splitOutline(
      [SQUARE],
      [
        [8, -1],
        [11, 2],
      ],
    ),
  );
  const areas = [planarArea(a), planarArea(b)].sort((x, y) => x - y).map((n) => Math.round(n * 1e9) / 1e9);
  assert.deepEqual(areas, [0.5, 99.5]);
});

test('both crossings on the same edge (a line in and back out) cut a notch', () => {
  const [a, b] = parts(
    splitOutline(
      [SQUARE],
      [
        [2, -1],
        [5, 3],
        [8, -1],
      ],
    ),
  );
  assert.equal(Math.round((planarArea(a) + planarArea(b)) * 1e9) / 1e9, 100);
  assert.ok(Math.min(planarArea(a), planarArea(b)) < 20);
});

test('a line that does not cross twice, or an outline with a hole, is refused with the reason', () => {
  const inside = splitOutline(
    [SQUARE],
    [
      [2, 2],
      [3, 3],
    ],
  );
  assert.ok('refused' in inside && /exactly twice/.test(inside.refused));
  const thrice = splitOutline(
    [SQUARE],
    [
      [-1, 2],
      [11, 2],
      [11, 4],
      [5, 4],
      [5, 12],
    ],
  );
  assert.ok('refused' in thrice);
  const holed = splitOutline(
    [
      SQUARE,
      [
        [4, 4],
        [6, 4],
        [6, 6],
        [4, 4],
      ],
    ],
    [
      [5, -1],
      [5, 11],
    ],
  );
  assert.ok('refused' in holed && /without holes/.test(holed.refused));
});
