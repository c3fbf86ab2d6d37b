import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type AlertWord, renderAlertWord } from '../../domain/alert-words.ts';
import { WATER_LEAK_RULE } from '../../domain/built-in-rules.ts';
import { ALARM_EVENT_BY_TYPE, ALARM_EVENT_TYPES } from '../../domain/devices.ts';
import { localizeQuantities } from '../../domain/display-units.ts';
import { DEFAULT_RULES, RULE_BY_NAME } from '../../domain/rules.ts';
import { intakeWords } from '../alert-passes/intake.ts';
import { quietAlertWords } from '../alert-passes/quiet.ts';
import { clockAlertWords } from './clock.ts';
import {
  eventAlertReason,
  eventAlertTitle,
  eventAlertWords,
  formatValue,
  readingAlertReason,
  readingAlertTitle,
  readingAlertWords,
  type SubjectLabel,
  type WordedRule,
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

const cow: SubjectLabel = {
  type: 'animal',
  id: 'ani_1',
  name: 'Daisy (tag 114)',
  words: { key: 'animal.named', params: { name: 'Daisy', tag: '114' } },
  device: { name: 'Bolus 7', type: 'bolus' },
};
/** An animal known by its tag alone. */
const tagged: SubjectLabel = {
  type: 'animal',
  id: 'ani_2',
  name: 'tag 126',
  words: { key: 'animal.tag', params: { tag: '126' } },
  device: { name: 'Bolus 8', type: 'bolus' },
};

const english = (word: AlertWord) => renderAlertWord('en', word);

describe('alert words', () => {
  test('rendered in English they are the stored title and reason, for every rule, place, level and start', () => {
    const leak: WordedRule = { ...WATER_LEAK_RULE, direction: 'low', watch: 30, urgent: null };
    const custom: WordedRule = {
      ...(RULE_BY_NAME.get('house.heat') as WordedRule),
      name: 'my.heat',
      title: 'Hot!',
    };
    for (const rule of [...DEFAULT_RULES, leak, custom] as WordedRule[]) {
      for (const subject of [house, trough, cow, tagged]) {
        for (const severity of ['urgent', 'watch'] as const) {
          for (const since of [null, Date.UTC(2026, 4, 1, 4, 10)]) {
            for (const value of [26.25, -31]) {
              const reading = { value, unit: null };
              const words = readingAlertWords(rule, subject, reading, severity, since);
              assert.equal(english(words.title), readingAlertTitle(rule, subject));
              assert.equal(
                english(words.reason),
                readingAlertReason(rule, subject, reading, severity, since),
              );
            }
          }
        }
      }
    }
    for (const alarm of ALARM_EVENT_TYPES) {
      for (const data of [{}, { species: 'fox', seen_at: 'north door' }]) {
        const words = eventAlertWords(alarm, house, data);
        assert.equal(english(words.title), eventAlertTitle(alarm, house));
        assert.equal(english(words.reason), eventAlertReason(alarm, house, data));
      }
    }
    for (const refused of [1, 3]) {
      for (const furthest of [null, Date.UTC(2030, 0, 1)]) {
        const clock = { refused, furthest, stored: 0, toleranceMs: 300_000 };
        const made = clockAlertWords({ name: 'House 2' }, clock, Date.UTC(2026, 0, 1));
        assert.equal(english(made.words.title), made.title);
        assert.equal(english(made.words.reason), made.reason);
      }
    }
  });

  test('the silent-device and intake alerts too', () => {
    for (const gap of [null, 600_000]) {
      for (const level of ['watch', 'urgent'] as const) {
        const device = { type: 'house', name: 'House 2', last_seen_at: 0, report_gap_ms: gap };
        const made = quietAlertWords(device, 3 * 86_400_000 + 5, level);
        assert.equal(english(made.words.title), made.title);
        assert.equal(english(made.words.reason), made.reason);
      }
    }
    const verdict = { measure: 'Water per head', day: 0.21, belowPct: 30.5, median: 0.3, dropPct: 25 };
    const made = intakeWords({ group_name: 'Flock A' }, verdict as never, '2026-11-28', 'L');
    assert.equal(english(made.words.title), made.title);
    assert.equal(english(made.words.reason), made.reason);
    assert.equal(renderAlertWord('es', made.words.title), 'Bajó el consumo de agua por cabeza en Flock A');
  });

  test('in Spanish: the built-in rule’s words translated, a farmer’s title kept, units converted after', () => {
    const ammonia = RULE_BY_NAME.get('house.ammonia');
    const fever = RULE_BY_NAME.get('animal.fever');
    assert.ok(ammonia && fever);
    const words = readingAlertWords(ammonia, house, { value: 26, unit: 'ppm' }, 'urgent');
    assert.equal(renderAlertWord('es', words.title), 'Amoníaco alto en House 2');
    assert.equal(
      renderAlertWord('es', words.reason),
      'Amoníaco 26 ppm en House 2: igual o por encima del umbral urgente de 25 ppm',
    );
    const sick = readingAlertWords(fever, cow, { value: 40.7, unit: '°C' }, 'watch', Date.UTC(2026, 4, 1));
    const reason = renderAlertWord('es', sick.reason) ?? '';
    assert.equal(
      reason,
      'Temperatura corporal 40.7°C de Daisy (crotal 114) (Bolus 7): igual o por encima del umbral de atención de 40°C desde 2026-05-01T00:00:00.000Z',
    );
    assert.equal(
      localizeQuantities(reason, { units: 'us', locale: 'es' }),
      'Temperatura corporal 105,3 °F de Daisy (crotal 114) (Bolus 7): igual o por encima del umbral de atención de 104 °F desde 2026-05-01T00:00:00.000Z',
    );
    const mine = { ...(fever as WordedRule), name: 'my.fever', title: 'Fiebre de Daisy' };
    assert.equal(
      renderAlertWord('es', readingAlertWords(mine, cow, { value: 41, unit: '°C' }, 'watch').title),
      'Fiebre de Daisy: Daisy (crotal 114)',
    );
    // An animal known by its tag alone; the title, the reason and a rate rule's reason alike.
    const byTag = readingAlertWords(fever, tagged, { value: 40.7, unit: '°C' }, 'urgent');
    assert.equal(renderAlertWord('es', byTag.title), 'Temperatura elevada: crotal 126');
    assert.match(
      renderAlertWord('es', byTag.reason) ?? '',
      /^Temperatura corporal 40\.7°C de crotal 126 \(Bolus 8\)/,
    );
    // An alert stored before the animal's name had words of its own: its English name, as it was written.
    const { words: _words, ...before } = cow;
    const old = readingAlertWords(fever, before, { value: 40.7, unit: '°C' }, 'urgent');
    assert.equal(old.title.parts, undefined);
    assert.equal(renderAlertWord('es', old.title), 'Temperatura elevada: Daisy (tag 114)');
    // A device subject has no parts.
    assert.equal(
      readingAlertWords(ammonia, house, { value: 26, unit: 'ppm' }, 'urgent').title.parts,
      undefined,
    );
    const fox = eventAlertWords(ALARM_EVENT_BY_TYPE.get('predator.detected') as never, house, {
      species: 'fox',
    });
    assert.equal(renderAlertWord('es', fox.title), 'Depredador detectado: House 2');
    // The alarm said in words, not its event type; what the device sent as it sent it.
    assert.equal(renderAlertWord('es', fox.reason), 'House 2 informó un depredador: species fox.');
    assert.equal(renderAlertWord('en', fox.reason), 'House 2 reported predator.detected: species fox.');
    const jam = eventAlertWords(ALARM_EVENT_BY_TYPE.get('door.jammed') as never, house, {});
    assert.equal(
      renderAlertWord('es', jam.reason),
      'House 2 informó una trampilla atascada. Una trampilla no terminó de abrirse o cerrarse.',
    );
  });
});
