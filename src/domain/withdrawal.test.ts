import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  computeWithdrawal,
  lastDoseAt,
  type MedicineLabel,
  validateWithdrawalSettings,
  WITHDRAWAL_PRESETS,
  withdrawalRulesOf,
} from './withdrawal.ts';

const DAY = 86_400_000;
const AT = Date.parse('2026-11-01T08:00:00Z');
const UK = WITHDRAWAL_PRESETS.uk;

function days(label: MedicineLabel, species: string, options: { organic?: boolean; rules?: typeof UK } = {}) {
  const result = computeWithdrawal({
    label,
    species,
    rules: options.rules ?? UK,
    organic: options.organic ?? false,
    lastDoseAt: AT,
  });
  return {
    meat: result.meat && { days: result.meat.days, rule: result.meat.rule, until: result.meat.until },
    milk: result.milk && { days: result.milk.days, rule: result.milk.rule },
    eggs: result.eggs && { days: result.eggs.days, rule: result.eggs.rule },
  };
}

test('a licensed use takes the label’s period; a missing member is no withdrawal, a zero is recorded as zero', () => {
  const got = days({ withdrawal: { meat_days: 28, milk_days: 0 } }, 'cattle');
  assert.deepEqual(got.meat, { days: 28, rule: 'label', until: AT + 28 * DAY });
  assert.deepEqual(got.milk, { days: 0, rule: 'label' }, 'zero withdrawal is kept as zero, not as none');
  assert.equal(got.eggs, null, 'the label gives none for eggs');
});

test('a species’ own label period is used where the label differs by species', () => {
  const label = { withdrawal: { meat_days: 28 }, species_withdrawal: { Sheep: { meat_days: 18 } } };
  assert.equal(days(label, 'sheep').meat?.days, 18);
  assert.equal(days(label, 'cattle').meat?.days, 28);
});

test('whole days are rounded up: a 1.5-day label period is 2 days', () => {
  assert.equal(days({ withdrawal: { milk_days: 1.5 } }, 'cattle').milk?.days, 2);
});

test('a course counts from its last dose: n doses every h hours end at at + (n−1)·h', () => {
  assert.equal(lastDoseAt(AT, { doses: 3, every_hours: 24 }), AT + 2 * DAY);
  assert.equal(lastDoseAt(AT, null), AT);
  const result = computeWithdrawal({
    label: { withdrawal: { meat_days: 10 } },
    species: 'cattle',
    rules: UK,
    organic: false,
    lastDoseAt: lastDoseAt(AT, { doses: 3, every_hours: 24 }),
  });
  assert.equal(result.meat?.until, AT + 12 * DAY);
});

test('off-label with a label period: the label’s longest for that food across species × 1.5', () => {
  const label = {
    withdrawal: { meat_days: 10, milk_days: 3 },
    species_withdrawal: { pig: { meat_days: 14 } },
    licensed_species: ['cattle', 'pig'],
  };
  const got = days(label, 'goat');
  assert.deepEqual(got.meat, { days: 21, rule: 'cascade', until: AT + 21 * DAY }, '14 (the pig’s) × 1.5');
  assert.deepEqual(got.milk, { days: 5, rule: 'cascade' }, '3 × 1.5 = 4.5, rounded up');
  assert.equal(got.eggs, null, 'a goat gives no eggs');
  const yak = days(label, 'yak');
  assert.deepEqual(
    yak.eggs,
    { days: 14, rule: 'cascade_minimum' },
    'UK eggs minimum for a species not known',
  );
});

test('only the foods a species gives have a withdrawal: no eggs from a ewe, no milk from a hen or a pig', () => {
  const label = { withdrawal: {}, licensed_species: ['cattle'] };
  const foods = (species: string) =>
    Object.entries(days(label, species))
      .filter(([, f]) => f !== null)
      .map(([food]) => food);
  assert.deepEqual(foods('Ewes'), ['meat', 'milk']);
  assert.deepEqual(foods('hen'), ['meat', 'eggs']);
  assert.deepEqual(foods('swine'), ['meat']);
  assert.deepEqual(foods('dog'), [], 'a working dog is not a food-producing animal');
  assert.deepEqual(foods('water buffalo'), ['meat', 'milk', 'eggs'], 'a species not known: every food');
});

test('off-label without a label period: the fixed minimums, 28/7/14 in the UK and 28/7/10 in the EU', () => {
  const label = { withdrawal: {}, licensed_species: ['dog'] };
  const uk = days(label, 'yak');
  assert.deepEqual([uk.meat?.days, uk.milk?.days, uk.eggs?.days], [28, 7, 14]);
  assert.ok([uk.meat, uk.milk, uk.eggs].every((f) => f?.rule === 'cascade_minimum'));
  const eu = days(label, 'yak', { rules: WITHDRAWAL_PRESETS.eu });
  assert.deepEqual([eu.meat?.days, eu.milk?.days, eu.eggs?.days], [28, 7, 10]);
});

test('off-label, a zero milk period on the label is 1 day (UK and EU)', () => {
  const got = days({ withdrawal: { meat_days: 0, milk_days: 0 }, licensed_species: ['cattle'] }, 'sheep');
  assert.deepEqual(got.milk, { days: 1, rule: 'cascade_minimum' });
  assert.equal(got.meat?.days, 0, 'meat has no zero rule here: 0 × 1.5');
});

test('organic doubles every period (farm or animal), after the cascade', () => {
  assert.equal(days({ withdrawal: { meat_days: 7 } }, 'cattle', { organic: true }).meat?.days, 14);
  assert.equal(days({ withdrawal: {}, licensed_species: [] }, 'cattle', { organic: true }).meat?.days, 56);
  assert.equal(
    days({ withdrawal: { milk_days: 5 }, licensed_species: ['pig'] }, 'cattle', { organic: true }).milk?.days,
    15,
  );
});

test('organic is at least 48 hours, even after a zero-day label (EU 2018/848 annex II 1.5.2.5)', () => {
  const zero = days({ withdrawal: { meat_days: 0, milk_days: 0 } }, 'cattle', { organic: true });
  assert.deepEqual([zero.meat?.days, zero.milk?.days], [2, 2]);
  assert.equal(
    days({ withdrawal: { meat_days: 0 } }, 'cattle').meat?.days,
    0,
    'not organic: zero stays zero',
  );
});

test('licensed_species absent is licensed for all; species match in any case', () => {
  assert.equal(days({ withdrawal: { meat_days: 5 } }, 'alpaca').meat?.rule, 'label');
  assert.equal(
    days({ withdrawal: { meat_days: 5 }, licensed_species: ['Cattle'] }, 'cattle').meat?.rule,
    'label',
  );
});

test('a farm’s settings: default uk; custom numbers over the preset; us and au take the EU numbers', () => {
  assert.equal(withdrawalRulesOf({}).rules.eggs_days, 14);
  assert.equal(withdrawalRulesOf({ withdrawal: { jurisdiction: 'us' } }).rules.eggs_days, 10);
  assert.equal(withdrawalRulesOf({ withdrawal: { jurisdiction: 'au' } }).rules.meat_days, 28);
  const custom = withdrawalRulesOf({
    withdrawal: {
      jurisdiction: 'custom',
      organic: true,
      cascade: { factor: 2, meat_days: 35, milk_days: 10, eggs_days: 12 },
    },
  });
  assert.deepEqual([custom.rules.factor, custom.rules.meat_days, custom.organic], [2, 35, true]);
});

test('settings.withdrawal is validated: jurisdiction, organic, cascade numbers, custom needs all four', () => {
  assert.equal(validateWithdrawalSettings({ jurisdiction: 'eu', organic: true }).ok, true);
  const bad = (input: unknown) => {
    const r = validateWithdrawalSettings(input);
    assert.equal(r.ok, false);
    return r.ok ? '' : r.param;
  };
  assert.equal(bad({ jurisdiction: 'mars' }), 'settings.withdrawal.jurisdiction');
  assert.equal(bad({ organic: 'yes' }), 'settings.withdrawal.organic');
  assert.equal(bad({ cascade: { factor: 0.5 } }), 'settings.withdrawal.cascade.factor');
  assert.equal(bad({ cascade: { meat_days: -1 } }), 'settings.withdrawal.cascade.meat_days');
  assert.equal(
    bad({ jurisdiction: 'custom', cascade: { factor: 1.5 } }),
    'settings.withdrawal.cascade.meat_days',
  );
  assert.equal(bad({ other: 1 }), 'settings.withdrawal.other');
});
