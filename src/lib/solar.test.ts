import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { addDays, darknessAt, isDark, localClock, localDate, sunTimes } from './solar.ts';

/** Sunrise and sunset as local HH:MM, for comparing with published almanac times. */
function localTimes(date: string, lat: number, lon: number, tz: string): [string, string] {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const times = sunTimes({ year, month, day }, lat, lon);
  assert.equal(times.kind, 'normal');
  if (times.kind !== 'normal') throw new Error('unreachable');
  return [localClock(times.sunrise, tz), localClock(times.sunset, tz)];
}

function minutes(hhmm: string): number {
  const [h, m] = hhmm.split(':').map(Number) as [number, number];
  return h * 60 + m;
}

/**
 * Within two minutes of the NOAA calculator's published time: the almanac rounds to the minute, and
 * its refraction model and suncalc's differ by a little less than a minute at these latitudes.
 */
function near(actual: string, expected: string): void {
  assert.ok(
    Math.abs(minutes(actual) - minutes(expected)) <= 2,
    `${actual} is not within 2 min of ${expected}`,
  );
}

describe('sunrise and sunset', () => {
  test('match the almanac in both hemispheres, both solstices and at the equator', () => {
    const cases: [string, number, number, string, string, string][] = [
      ['2024-12-21', 51.5074, -0.1278, 'Europe/London', '08:04', '15:53'],
      ['2024-06-21', 51.5074, -0.1278, 'Europe/London', '04:43', '21:21'],
      ['2024-06-21', 40.015, -105.2705, 'America/Denver', '05:32', '20:33'],
      ['2024-12-21', -33.8688, 151.2093, 'Australia/Sydney', '05:41', '20:05'],
      ['2024-03-20', 0, 0, 'UTC', '06:04', '18:10'],
    ];
    for (const [date, lat, lon, tz, sunrise, sunset] of cases) {
      const [rise, set] = localTimes(date, lat, lon, tz);
      near(rise, sunrise);
      near(set, sunset);
    }
  });

  test('it is dark from the minute of sunset to the minute of sunrise, as sunTimes gives them', () => {
    const [lat, lon] = [38.9517, -92.3341];
    const times = sunTimes({ year: 2024, month: 9, day: 1 }, lat, lon);
    assert.equal(times.kind, 'normal');
    if (times.kind !== 'normal') return;
    assert.equal(isDark(times.sunrise - 60_000, lat, lon), true, 'a minute before sunrise');
    assert.equal(isDark(times.sunrise + 60_000, lat, lon), false, 'a minute after sunrise');
    assert.equal(isDark(times.sunset - 60_000, lat, lon), false, 'a minute before sunset');
    assert.equal(isDark(times.sunset + 60_000, lat, lon), true, 'a minute after sunset');
  });

  test('polar night and midnight sun have no sunrise or sunset', () => {
    assert.equal(sunTimes({ year: 2024, month: 12, day: 21 }, 69.65, 18.96).kind, 'polar_night');
    assert.equal(sunTimes({ year: 2024, month: 6, day: 21 }, 69.65, 18.96).kind, 'midnight_sun');
    assert.equal(isDark(Date.UTC(2024, 11, 21, 11, 0), 69.65, 18.96), true, 'Tromsø at noon in December');
    assert.equal(isDark(Date.UTC(2024, 5, 21, 23, 0), 69.65, 18.96), false, 'Tromsø at midnight in June');
  });
});

describe('darkness at the farm', () => {
  test('it is dark between sunset and sunrise, light between sunrise and sunset', () => {
    // Columbia, Missouri (the sample farm) on 1 September 2024: sunrise 06:39, sunset 19:39 CDT.
    const [lat, lon, tz] = [38.9517, -92.3341, 'America/Chicago'];
    assert.equal(isDark(Date.UTC(2024, 8, 1, 17, 0), lat, lon), false, 'noon CDT');
    assert.equal(isDark(Date.UTC(2024, 8, 2, 3, 0), lat, lon), true, '22:00 CDT');
    assert.equal(isDark(Date.UTC(2024, 8, 1, 11, 30), lat, lon), true, '06:30 CDT, before sunrise');
    assert.equal(isDark(Date.UTC(2024, 8, 1, 11, 50), lat, lon), false, '06:50 CDT, after sunrise');
    const night = darknessAt(Date.UTC(2024, 8, 2, 3, 0), lat, lon, tz);
    assert.equal(night.dark, true);
    assert.ok(night.lastSunset !== null && night.nextSunrise !== null);
    near(localClock(night.lastSunset, tz), '19:39');
    near(localClock(night.nextSunrise, tz), '06:40');
    const day = darknessAt(Date.UTC(2024, 8, 1, 17, 0), lat, lon, tz);
    assert.equal(day.dark, false);
  });

  test('local dates follow the farm time zone', () => {
    const at = Date.UTC(2024, 8, 2, 3, 0); // 22:00 on 1 September in Chicago
    assert.deepEqual(localDate(at, 'America/Chicago'), { year: 2024, month: 9, day: 1 });
    assert.deepEqual(localDate(at, 'UTC'), { year: 2024, month: 9, day: 2 });
    assert.deepEqual(addDays({ year: 2024, month: 12, day: 31 }, 1), { year: 2025, month: 1, day: 1 });
    assert.deepEqual(addDays({ year: 2024, month: 3, day: 1 }, -1), { year: 2024, month: 2, day: 29 });
  });
});
