import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  addLocalDays,
  localClock,
  localDayBounds,
  localDaysBetween,
  localParts,
  zonedTimeToUtc,
} from './local-time.ts';
import { HOUR_MS } from './time.ts';

const chicago = 'America/Chicago';

test('zonedTimeToUtc turns a farm clock time into an instant, in summer and in winter', () => {
  const july = zonedTimeToUtc({ year: 2026, month: 7, day: 1, hour: 6, minute: 30 }, chicago);
  assert.equal(july, Date.UTC(2026, 6, 1, 11, 30));
  const january = zonedTimeToUtc({ year: 2026, month: 1, day: 15, hour: 6, minute: 30 }, chicago);
  assert.equal(january, Date.UTC(2026, 0, 15, 12, 30));
  const kiritimati = zonedTimeToUtc(
    { year: 2026, month: 1, day: 1, hour: 0, minute: 0 },
    'Pacific/Kiritimati',
  );
  assert.equal(kiritimati, Date.UTC(2025, 11, 31, 10, 0));
});

test('a clock time skipped by DST moves past the gap; a repeated one is its first occurrence', () => {
  const skipped = zonedTimeToUtc({ year: 2026, month: 3, day: 8, hour: 2, minute: 30 }, chicago);
  assert.equal(skipped, Date.UTC(2026, 2, 8, 8, 30), '02:30 does not exist; 03:30 CDT');
  const repeated = zonedTimeToUtc({ year: 2026, month: 11, day: 1, hour: 1, minute: 30 }, chicago);
  assert.equal(repeated, Date.UTC(2026, 10, 1, 6, 30), '01:30 CDT, the first of the two');
  // East of Greenwich too: London's 01:30 on 25 October 2026 is first BST (00:30 UTC), then GMT.
  const london = zonedTimeToUtc({ year: 2026, month: 10, day: 25, hour: 1, minute: 30 }, 'Europe/London');
  assert.equal(london, Date.UTC(2026, 9, 25, 0, 30), '01:30 BST, the first of the two');
  const lordHowe = zonedTimeToUtc(
    { year: 2026, month: 10, day: 4, hour: 2, minute: 15 },
    'Australia/Lord_Howe',
  );
  assert.equal(lordHowe, Date.UTC(2026, 9, 3, 15, 45), 'a half-hour gap: 02:15 does not exist; 02:45');
});

test('the answers do not depend on the server’s own time zone', () => {
  const host = process.env.TZ;
  // A different minute on each host, so no answer comes from the conversions remembered on another.
  const ask = (m: number) => [
    zonedTimeToUtc({ year: 2026, month: 10, day: 25, hour: 1, minute: m }, 'Europe/London'),
    zonedTimeToUtc({ year: 2026, month: 10, day: 25, hour: 2, minute: m }, 'Europe/London'),
    zonedTimeToUtc({ year: 2026, month: 3, day: 29, hour: 2, minute: m }, 'Europe/Berlin'),
    zonedTimeToUtc({ year: 2026, month: 11, day: 1, hour: 1, minute: m }, chicago),
  ];
  try {
    // Node re-reads TZ when it changes; a host zone changing clocks at the same moment is the hard case.
    ['UTC', 'Europe/Berlin', 'Europe/London', 'Asia/Tokyo', 'America/Chicago'].forEach((zone, m) => {
      process.env.TZ = zone;
      assert.deepEqual(
        ask(m),
        [
          Date.UTC(2026, 9, 25, 0, m), // 01:mm BST, the first of the two
          Date.UTC(2026, 9, 25, 2, m), // 02:mm GMT
          Date.UTC(2026, 2, 29, 1, m), // 02:mm does not exist; 03:mm CEST
          Date.UTC(2026, 10, 1, 6, m), // 01:mm CDT, the first of the two
        ],
        zone,
      );
    });
  } finally {
    if (host === undefined) delete process.env.TZ;
    else process.env.TZ = host;
  }
});

test('localDayBounds are local midnights: 23-hour and 25-hour days at the DST changes', () => {
  const spring = localDayBounds(Date.UTC(2026, 2, 8, 18), chicago);
  assert.equal(spring.start, Date.UTC(2026, 2, 8, 6));
  assert.equal(spring.end - spring.start, 23 * HOUR_MS);
  const autumn = localDayBounds(Date.UTC(2026, 10, 1, 18), chicago);
  assert.equal(autumn.end - autumn.start, 25 * HOUR_MS);
  const utc = localDayBounds(Date.UTC(2026, 4, 1, 23, 59), 'UTC');
  assert.deepEqual(utc, { start: Date.UTC(2026, 4, 1), end: Date.UTC(2026, 4, 2) });
});

test('localParts and localClock read the farm clock', () => {
  const at = Date.UTC(2026, 6, 1, 4, 5, 6);
  assert.deepEqual(localParts(at, chicago), {
    year: 2026,
    month: 6,
    day: 30,
    hour: 23,
    minute: 5,
    second: 6,
  });
  assert.equal(localClock(at, chicago), '23:05');
  assert.equal(localClock(Date.UTC(2026, 6, 1, 5, 0), chicago), '00:00');
});

test('addLocalDays keeps the farm clock across DST; localDaysBetween counts the farm calendar', () => {
  // Midnight on 1 October 2026 in Chicago (CDT), 60 days on: midnight on 30 November (CST), 60 days and an hour.
  const october = zonedTimeToUtc({ year: 2026, month: 10, day: 1, hour: 0, minute: 0 }, chicago);
  const later = addLocalDays(october, 60, chicago);
  assert.equal(later, zonedTimeToUtc({ year: 2026, month: 11, day: 30, hour: 0, minute: 0 }, chicago));
  assert.equal(later - october, 60 * 86_400_000 + 3_600_000);
  assert.equal(addLocalDays(later, -60, chicago), october, 'and back');
  // Seconds and milliseconds ride along.
  assert.equal(
    addLocalDays(Date.UTC(2026, 0, 1, 12, 0, 7, 250), 1, 'UTC'),
    Date.UTC(2026, 0, 2, 12, 0, 7, 250),
  );
  // 23:30 in Auckland on 1 December is 10:30 UTC the same day; 00:30 on the 2nd is 11:30 UTC on the 1st.
  const lateEvening = Date.UTC(2026, 11, 1, 10, 30);
  const pastMidnight = Date.UTC(2026, 11, 1, 11, 30);
  assert.equal(localDaysBetween(lateEvening, pastMidnight, 'Pacific/Auckland'), 1);
  assert.equal(localDaysBetween(lateEvening, pastMidnight, 'UTC'), 0);
  assert.equal(localDaysBetween(later, october, chicago), -60);
});
