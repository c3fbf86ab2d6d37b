import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { DAY_MS, formatDuration, HOUR_MS, MINUTE_MS, parseIso, parseIsoGeneral, toIso } from './time.ts';

test('parseIso accepts ISO 8601 dates and date-times, with or without a zone (UTC)', () => {
  assert.equal(parseIso('2026-03-01'), Date.UTC(2026, 2, 1));
  assert.equal(parseIso('2026-03-01T10:20:30Z'), Date.UTC(2026, 2, 1, 10, 20, 30));
  assert.equal(parseIso('2026-03-01T10:20:30.123+02:00'), Date.UTC(2026, 2, 1, 8, 20, 30, 123));
  assert.equal(parseIso('2024-02-29T00:00:00Z'), Date.UTC(2024, 1, 29));
});

test('parseIso reads a date-time without a zone as UTC, whatever the process time zone', () => {
  const before = process.env.TZ;
  process.env.TZ = 'America/Chicago';
  try {
    assert.equal(parseIso('2026-03-01T10:20'), Date.UTC(2026, 2, 1, 10, 20));
    assert.equal(parseIso('2026-03-01 10:20:30'), Date.UTC(2026, 2, 1, 10, 20, 30));
    assert.equal(parseIso('2026-03-01T10:20:30+0200'), Date.UTC(2026, 2, 1, 8, 20, 30));
  } finally {
    if (before === undefined) delete process.env.TZ;
    else process.env.TZ = before;
  }
});

test('parseIso refuses text that is not an ISO date, and impossible calendar days', () => {
  for (const bad of ['yesterday', '03/01/2026', '2026-02-30', '2026-13-01', '2025-02-29T00:00:00Z', '']) {
    assert.equal(parseIso(bad), null, bad);
  }
});

test('parseIso reads the canonical form by hand exactly as its general path reads it', () => {
  const edges = [
    '2026-03-01T10:20:30.123Z',
    '2024-02-29T23:59:59.999Z',
    '2025-02-29T00:00:00.000Z',
    '2100-02-29T00:00:00.000Z',
    '2000-02-29T00:00:00.000Z',
    '1970-01-01T00:00:00.000Z',
    '1969-12-31T23:59:59.999Z',
    '0099-01-01T00:00:00.000Z',
    '2026-04-31T00:00:00.000Z',
    '2026-12-31T24:00:00.000Z',
    '2026-12-31T23:60:00.000Z',
    '2026-12-31T23:59:60.000Z',
    '2026-00-10T00:00:00.000Z',
    '2026-01-00T00:00:00.000Z',
    '2026-01-01T00:00:00.00aZ',
    '2026-01-01t00:00:00.000z',
    '2026-01-01T00:00:00.000+',
    '+02026-01-01T00:00:00.000',
  ];
  for (const text of edges) assert.equal(parseIso(text), parseIsoGeneral(text), text);
  // Any time a Date holds from 1970 on, as toIso writes it, then the same day again (the cached day).
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 253_402_300_799_999 }), (ms) => {
      const text = toIso(ms);
      return parseIso(text) === ms && parseIso(text) === parseIsoGeneral(text);
    }),
    { numRuns: 3000 },
  );
  // Canonical-looking text with every field anywhere in its digits' range, valid or not.
  const field = (width: number) =>
    fc.integer({ min: 0, max: 10 ** width - 1 }).map((n) => String(n).padStart(width, '0'));
  fc.assert(
    fc.property(
      fc.tuple(field(4), field(2), field(2), field(2), field(2), field(2), field(3)),
      ([y, mo, d, h, mi, s, ms]) => {
        const text = `${y}-${mo}-${d}T${h}:${mi}:${s}.${ms}Z`;
        return parseIso(text) === parseIsoGeneral(text);
      },
    ),
    { numRuns: 5000 },
  );
});

test('toIso writes UTC with milliseconds and passes null through', () => {
  assert.equal(toIso(Date.UTC(2026, 0, 2, 3, 4, 5, 6)), '2026-01-02T03:04:05.006Z');
  assert.equal(toIso(null), null);
});

test('toIso writes what Date#toISOString writes, for any time a Date holds', () => {
  const edges = [0, 1, 999, 86_399_999, 86_400_000, 951_782_400_000, 4_107_542_399_999, 253_402_300_799_999];
  for (const ms of [...edges, -1, 253_402_300_800_000, 1.5])
    assert.equal(toIso(ms), new Date(ms).toISOString(), String(ms));
  fc.assert(
    fc.property(
      fc.integer({ min: -8.64e15, max: 8.64e15 }),
      (ms) => toIso(ms) === new Date(ms).toISOString(),
    ),
  );
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 253_402_300_799_999 }),
      (ms) => toIso(ms) === new Date(ms).toISOString(),
    ),
    { numRuns: 5000 },
  );
  assert.equal(toIso(null), null);
  assert.equal(toIso(undefined), null);
});

test('formatDuration: minutes (at least 1) under an hour, half hours under two days, whole days after', () => {
  assert.equal(formatDuration(10_000), '1 min');
  assert.equal(formatDuration(47 * MINUTE_MS), '47 min');
  assert.equal(formatDuration(HOUR_MS), '1 h');
  assert.equal(formatDuration(3 * HOUR_MS + 20 * MINUTE_MS), '3.5 h');
  assert.equal(formatDuration(47 * HOUR_MS), '47 h');
  assert.equal(formatDuration(3 * DAY_MS + 5 * HOUR_MS), '3 days');
});
