import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RULE_BY_NAME } from '../../domain/rules.ts';
import { zonedTimeToUtc } from '../../lib/local-time.ts';
import { HOUR_MS, MINUTE_MS } from '../../lib/time.ts';
import {
  doorTimes,
  houseConditions,
  isShut,
  type Place,
  quietAfter,
  quietVerdict,
  usualInterval,
} from './attention.ts';

/** True between the doors' close time (dusk) and their open time (dawn) on the farm's clock. */
function isAfterDusk(now: number, schedule: { open: string; close: string }, place: Place): boolean {
  return isShut(now, doorTimes(now, schedule, place));
}

const place = { timezone: 'America/Chicago', lat: 38.9517, lon: -92.3341 };
const at = (month: number, day: number, hour: number, minute = 0) =>
  zonedTimeToUtc({ year: 2026, month, day, hour, minute }, place.timezone);
const sun = { open: 'dawn', close: 'dusk' };

test('usual interval: the mean gap of the last readings, unknown below three', () => {
  assert.equal(usualInterval({ n: 10, oldest: 0, newest: 9 * 15 * MINUTE_MS }), 15 * MINUTE_MS);
  assert.equal(usualInterval({ n: 2, oldest: 0, newest: MINUTE_MS }), null);
  assert.equal(usualInterval({ n: 5, oldest: 1000, newest: 1000 }), null, 'readings all at one time');
  assert.equal(usualInterval(undefined), null);
});

test('quiet after 3× the usual interval, at least 30 minutes, or 6 hours when unknown', () => {
  assert.equal(quietAfter(15 * MINUTE_MS), 45 * MINUTE_MS);
  assert.equal(quietAfter(MINUTE_MS), 30 * MINUTE_MS);
  assert.equal(quietAfter(null), 6 * HOUR_MS);
  const now = Date.UTC(2026, 4, 1, 12);
  assert.equal(
    quietVerdict({ last_seen_at: now - 46 * MINUTE_MS, created_at: 0 }, 15 * MINUTE_MS, now).quiet,
    true,
  );
  assert.equal(
    quietVerdict({ last_seen_at: now - 44 * MINUTE_MS, created_at: 0 }, 15 * MINUTE_MS, now).quiet,
    false,
  );
  const never = quietVerdict({ last_seen_at: null, created_at: now - 7 * HOUR_MS }, null, now);
  assert.deepEqual([never.quiet, never.neverReported], [true, true]);
});

test('after dusk: between sunset and sunrise at the farm, by its clock', () => {
  // Midsummer in central Missouri: sunset about 20:35, sunrise about 05:40 CDT.
  assert.equal(isAfterDusk(at(6, 21, 21, 30), sun, place), true);
  assert.equal(isAfterDusk(at(6, 21, 20, 0), sun, place), false);
  assert.equal(isAfterDusk(at(6, 21, 12, 0), sun, place), false);
  assert.equal(isAfterDusk(at(6, 21, 4, 0), sun, place), true);
  // Midwinter: dark by 17:00.
  assert.equal(isAfterDusk(at(12, 21, 17, 30), sun, place), true);
  assert.equal(isAfterDusk(at(12, 21, 16, 30), sun, place), false);
});

test('after dusk with clock times, and without coordinates (20:00 to 06:00)', () => {
  const schedule = { open: '07:15', close: '19:45' };
  assert.equal(isAfterDusk(at(6, 21, 19, 50), schedule, place), true);
  assert.equal(isAfterDusk(at(6, 21, 7, 10), schedule, place), true);
  assert.equal(isAfterDusk(at(6, 21, 7, 20), schedule, place), false);
  const nowhere = { timezone: place.timezone, lat: null, lon: null };
  assert.equal(isAfterDusk(at(6, 21, 19, 59), sun, nowhere), false);
  assert.equal(isAfterDusk(at(6, 21, 20, 1), sun, nowhere), true);
  assert.equal(isAfterDusk(at(6, 21, 5, 59), sun, nowhere), true);
  // A schedule shut only from 02:00 to 06:00.
  const shortNight = { open: '06:00', close: '02:00' };
  assert.equal(isAfterDusk(at(6, 21, 3, 0), shortNight, place), true);
  assert.equal(isAfterDusk(at(6, 21, 1, 0), shortNight, place), false);
});

test('house conditions by the alert lines and the climate target', () => {
  const rules = new Map(RULE_BY_NAME);
  const base = { feed: 50, water: 50, temp: 21, nh3: 5, target: 21 };
  assert.deepEqual(houseConditions(base, rules), []);
  const low = houseConditions({ ...base, feed: 12, water: 4 }, rules);
  assert.deepEqual(
    low.map((c) => [c.rule, c.severity, c.phrase]),
    [
      ['house.feed', 'watch', 'feed bin 12%'],
      ['water.level', 'urgent', 'water 4%'],
    ],
  );
  assert.deepEqual(
    houseConditions({ ...base, temp: 14.96 }, rules).map((c) => [c.rule, c.phrase]),
    [[null, '15 °C (target 21 °C)']],
  );
  assert.deepEqual(houseConditions({ ...base, temp: 16 }, rules), [], 'within 5 °C of the target');
  assert.deepEqual(
    houseConditions({ ...base, temp: 33, nh3: 26 }, rules).map((c) => [c.rule, c.severity]),
    [
      ['house.ammonia', 'urgent'],
      ['house.heat', 'watch'],
    ],
  );
});
