/**
 * The rate windows' extremes, worked out in one pass over a metric's stored readings, against the
 * definition written out plainly: for each reading time in [first, last], the highest (falling) or
 * lowest value stored at a time in [t - window, t], both ends included.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { RateWindow } from './repository.ts';
import { readingSpans, windowExtremes } from './rule-inputs.ts';

function byDefinition(stored: ReadonlyArray<readonly [number, number]>, w: RateWindow): Map<number, number> {
  const out = new Map<number, number>();
  for (const [t] of stored) {
    if (t < w.first || t > w.last) continue;
    const inWindow = stored.filter(([at]) => at >= t - w.window_ms && at <= t).map(([, v]) => v);
    out.set(t, w.falling ? Math.max(...inWindow) : Math.min(...inWindow));
  }
  return out;
}

const window = (falling: boolean, first: number, last: number, window_ms = 600): RateWindow => ({
  metric: 'silo.level',
  window_ms,
  falling,
  first,
  last,
});

test('windowExtremes: the window start is included, readings before it are not, ties at one time count', () => {
  const stored: Array<[number, number]> = [
    [0, 100],
    [100, 120],
    [600, 90],
    [700, 95],
    [700, 80],
    [800, 70],
  ];
  assert.deepEqual(
    windowExtremes(stored, window(true, 600, 800)),
    new Map([
      [600, 120], // [0, 600]: 100, 120 and 90
      [700, 120], // [100, 700]: 120 still in
      [800, 95], // [200, 800]: 90, 95, 80, 70
    ]),
  );
  assert.deepEqual(
    windowExtremes(stored, window(false, 700, 700)),
    new Map([[700, 80]]), // both readings at 700 count
  );
});

test('windowExtremes matches the definition for any stored readings', () => {
  const readings = fc
    .array(fc.tuple(fc.integer({ min: 0, max: 3000 }), fc.integer({ min: -50, max: 50 })), { maxLength: 60 })
    .map((rows) => rows.sort((a, b) => a[0] - b[0]));
  fc.assert(
    fc.property(
      readings,
      fc.boolean(),
      fc.integer({ min: 0, max: 3000 }),
      fc.integer({ min: 0, max: 1500 }),
      fc.integer({ min: 1, max: 1200 }),
      (stored, falling, first, length, windowMs) => {
        const w = window(falling, first, first + length, windowMs);
        assert.deepEqual(windowExtremes(stored, w), byDefinition(stored, w));
      },
    ),
  );
});

test('readingSpans: one span per metric, from its longest window before its first reading, which it keeps', () => {
  const spans = readingSpans([
    { ...window(true, 1000, 2000, 600), metric: 'a' },
    { ...window(false, 1000, 2000, 900), metric: 'a' },
    { ...window(true, 5000, 6000, 100), metric: 'b' },
  ]);
  assert.deepEqual(spans, [
    { metric: 'a', from: 100, keepMs: 900 },
    { metric: 'b', from: 4900, keepMs: 100 },
  ]);
});
