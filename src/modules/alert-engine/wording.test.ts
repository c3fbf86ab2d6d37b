import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ALARM_EVENT_BY_TYPE } from '../../domain/devices.ts';
import { RULE_BY_NAME } from '../../domain/rules.ts';
import {
  eventAlertReason,
  eventAlertTitle,
  formatValue,
  readingAlertReason,
  readingAlertTitle,
  type SubjectLabel,
} from './wording.ts';

const house: SubjectLabel = {
  type: 'device',
  id: 'dev_1',
  name: 'House 2',
  device: { name: 'House 2', type: 'house' },
};
const trough: SubjectLabel = {
  type: 'device',
  id: 'dev_2',
  name: 'North trough',
  device: { name: 'North trough', type: 'water' },
};

describe('alert wording', () => {
  test('values carry their unit the way people write it, trimmed to two decimals', () => {
    assert.equal(formatValue(26, 'ppm'), '26 ppm');
    assert.equal(formatValue(12, '%'), '12%');
    assert.equal(formatValue(40.6666, '°C'), '40.67°C');
    assert.equal(formatValue(3.5, null), '3.5');
  });

  test('reading alerts name the place, the measure, the value and the line crossed', () => {
    const ammonia = RULE_BY_NAME.get('house.ammonia');
    const water = RULE_BY_NAME.get('water.level');
    assert.ok(ammonia && water);
    assert.equal(readingAlertTitle(ammonia, house), 'High ammonia in House 2');
    assert.equal(
      readingAlertReason(ammonia, house, { value: 26, unit: 'ppm' }, 'urgent'),
      'Ammonia 26 ppm in House 2 — at or above the urgent line of 25 ppm',
    );
    assert.equal(
      readingAlertReason(water, trough, { value: 18, unit: null }, 'watch'),
      'Water level 18% at North trough — at or below the watch line of 20%',
      'the metric’s catalog unit when the device sent none',
    );
  });

  test('device alarms carry the event data in the reason, and the description when there is none', () => {
    const predator = ALARM_EVENT_BY_TYPE.get('predator.detected');
    assert.ok(predator);
    assert.equal(eventAlertTitle(predator, house), 'Predator detected: House 2');
    assert.equal(
      eventAlertReason(predator, house, { species: 'fox', seen_at: 'north door', extra: null }),
      'House 2 reported predator.detected: species fox, seen at north door.',
    );
    assert.match(
      eventAlertReason(predator, house, {}),
      /^House 2 reported predator\.detected\. A vision pod/,
    );
    const long = eventAlertReason(predator, house, { note: 'x'.repeat(5000) });
    assert.ok(long.length < 500, 'large data is shortened; the event log keeps all of it');
  });
});
