/** Units as a person reads them: conversions both ways, Intl formatting in both languages, prose, locales. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  displayUnit,
  formatArea,
  formatLength,
  formatQuantity,
  fromDisplay,
  languageForLocale,
  localeFor,
  localizeQuantities,
  parseTypedNumber,
  toDisplay,
  unitsForLocale,
} from './display-units.ts';

const US = { units: 'us', locale: 'en-US' } as const;
const METRIC_ES = { units: 'metric', locale: 'es' } as const;

test('each catalog unit converts to US customary and back to the same value', () => {
  for (const [unit, value, shown] of [
    ['kg', 412, 908.3],
    ['°C', 3, 37.4],
    ['ha', 10, 24.71],
    ['L', 100, 26.42],
    ['km', 10, 6.21],
    ['mm', 25.4, 1],
    ['km/h', 100, 62.14],
    ['L/min', 10, 2.64],
  ] as const) {
    assert.equal(Math.round(toDisplay(value, unit, 'us') * 100) / 100, Math.round(shown * 100) / 100, unit);
    assert.ok(Math.abs(fromDisplay(toDisplay(value, unit, 'us'), unit, 'us') - value) < 1e-9, unit);
    assert.equal(toDisplay(value, unit, 'metric'), value);
  }
  // A unit with no US form (ppm) is left alone.
  assert.equal(toDisplay(25, 'ppm', 'us'), 25);
});

test('formatting follows the person’s units and locale', () => {
  assert.equal(formatQuantity(412, 'kg', US), '908 lb');
  assert.equal(formatQuantity(3, '°C', US), '37.4°F');
  assert.equal(formatQuantity(1234.5, 'kg', METRIC_ES), '1234,5 kg');
  assert.equal(formatQuantity(12345.5, 'L', { units: 'metric', locale: 'en' }), '12,345.5 L');
  assert.equal(formatQuantity(32, 'ppm', US), '32 ppm');
  assert.equal(formatQuantity(4, null, US), '4');
});

test('units that are words are said in the reader’s language and number; symbols stay symbols', () => {
  assert.equal(formatQuantity(120, 'birds', METRIC_ES), '120 aves');
  assert.equal(formatQuantity(1, 'birds', METRIC_ES), '1 ave');
  assert.equal(formatQuantity(1, 'birds', US), '1 bird');
  assert.equal(formatQuantity(120, 'birds', US), '120 birds');
  assert.equal(formatQuantity(0.8, 'index', METRIC_ES), '0,8 índice');
  assert.equal(displayUnit('birds', 'metric', 'es'), 'aves');
  assert.equal(displayUnit('index', 'us', 'es'), 'índice');
  assert.equal(displayUnit('index', 'us', 'en'), 'index');
  assert.equal(formatQuantity(45, 'min', METRIC_ES), '45 min');
  for (const symbol of ['ppm', 'W', '%'])
    assert.equal(displayUnit(symbol, 'us', 'es'), symbol, `${symbol} stays a symbol`);
  assert.equal(formatQuantity(900, 'W', METRIC_ES), '900 W');
  // A rate's label (a field's, a column's) says "a day" in the reader's language.
  assert.equal(displayUnit('m/day', 'metric', 'es'), 'm/día');
  assert.equal(displayUnit('m/day', 'us', 'es'), 'ft/día');
  assert.equal(displayUnit('kg/day', 'us', 'es'), 'lb/día');
  assert.equal(displayUnit('kg/day', 'metric', 'en'), 'kg/day');
});

test('a percentage and ppm in a sentence are written in the reader’s locale, not converted', () => {
  assert.equal(
    localizeQuantities('tolva de pienso 12.9%; amoníaco 26.5 ppm', { units: 'us', locale: 'es' }),
    'tolva de pienso 12,9%; amoníaco 26,5 ppm',
  );
  assert.equal(localizeQuantities('feed bin 12.9%', { units: 'us', locale: 'en-US' }), 'feed bin 12.9%');
});

test('a sentence written in catalog units reads in the person’s', () => {
  assert.equal(
    localizeQuantities('Water temperature 3 °C at Tank 1 — at or below the watch line of 4.5 °C', US),
    'Water temperature 37.4°F at Tank 1 — at or below the watch line of 40.1°F',
  );
  assert.equal(localizeQuantities('Wind 30 km/h, 412 kg, 2 kgs', US), 'Wind 18.6 mph, 908 lb, 2 kgs');
  assert.equal(localizeQuantities('Ammonia 32 ppm', US), 'Ammonia 32 ppm');
});

test('the browser’s locale proposes units and language; a tag Intl refuses breaks nothing', () => {
  assert.equal(unitsForLocale('en-US'), 'us');
  assert.equal(unitsForLocale('es-US'), 'us');
  assert.equal(unitsForLocale('en-GB'), 'metric');
  assert.equal(unitsForLocale('en-US@posix'), 'us');
  assert.equal(unitsForLocale('not a locale!'), 'metric');
  assert.equal(unitsForLocale(undefined), 'metric');
  assert.equal(languageForLocale('es-MX'), 'es');
  assert.equal(languageForLocale('de-DE'), 'en');
  assert.equal(languageForLocale('%%'), 'en');
  assert.equal(localeFor('es', 'es-MX'), 'es-MX');
  assert.equal(localeFor('es', 'en-US'), 'es');
  assert.equal(localeFor('en', 'bad tag!'), 'en');
});

test('a small amount never reads as none: below 1, two significant digits; a daily gain to two decimals', () => {
  const METRIC = { units: 'metric', locale: 'en' } as const;
  // The intake alert's water per head (a hen drinks a fraction of a litre a day), as the server writes it.
  const intake = 'Water per head on 2033-03-14: 0.03 L, 40% below its 7-day median of 0.05 L';
  assert.equal(
    localizeQuantities(intake, METRIC),
    'Water per head on 2033-03-14: 0.03 L, 40% below its 7-day median of 0.05 L',
  );
  assert.equal(
    localizeQuantities(intake, US),
    'Water per head on 2033-03-14: 0.0079 gal, 40% below its 7-day median of 0.013 gal',
  );
  assert.equal(formatQuantity(0.15, 'L', METRIC_ES), '0,15 l');
  assert.equal(formatQuantity(0.19, 'L', US), '0.05 gal');
  assert.equal(formatQuantity(0.3, 'L', US), '0.079 gal', 'not the same 0.1 gal as 0.19 L');
  // Whole pounds above one; less than a pound is not "0 lb"; none is none; at or above 1 as before.
  assert.equal(formatQuantity(0.2, 'kg', US), '0.44 lb');
  assert.equal(formatQuantity(0, 'L', US), '0 gal');
  assert.equal(formatQuantity(412.34, 'kg', METRIC), '412.3 kg');
  assert.equal(formatQuantity(2.4, 'kg', US), '5 lb');
  assert.equal(formatQuantity(0.004, 'ppm', METRIC), '0.004 ppm');
  assert.equal(formatQuantity(-0.02, '°C', METRIC), '-0.02°C');
  // A gain in the brief's words: two decimals (0.05 kg/day is not "0.1"), in kg or lb a day.
  assert.equal(localizeQuantities('0.05 kg/day; 1.214 kg/day', METRIC), '0.05 kg/d; 1.21 kg/d');
  assert.equal(localizeQuantities('0.121 kg/day', US), '0.27 lb/d');
  assert.equal(localizeQuantities('-0.004 kg/day', METRIC_ES), '-0,004 kg/d', 'a loss is not "-0"');
});

test('a length and an area measured on the map read in the person’s units: metres and hectares, or feet and acres', () => {
  const METRIC = { units: 'metric', locale: 'en' } as const;
  assert.equal(formatLength(320.4, METRIC), '320 m');
  assert.equal(formatLength(1250, METRIC), '1.25 km');
  assert.equal(formatLength(320, US), '1,050 ft');
  // Past a kilometre but short of a mile: still feet.
  assert.equal(formatLength(1500, US), '4,921 ft');
  assert.equal(formatLength(2011.68, US), '1.25 mi');
  assert.equal(formatLength(1250, METRIC_ES), '1,25 km');
  assert.equal(formatArea(12_300, METRIC), '1.23 ha');
  assert.equal(formatArea(12_300, US), '3.04 ac');
  assert.equal(formatArea(12_300, METRIC_ES), '1,23 ha');
});

test('a typed number is read in the reader’s locale: a decimal comma in Spanish, never a silent tenfold', () => {
  assert.equal(parseTypedNumber('20,5', 'es'), 20.5);
  assert.equal(parseTypedNumber('563,5', 'es-ES'), 563.5);
  assert.equal(parseTypedNumber('1.250,5', 'es'), 1250.5);
  assert.equal(parseTypedNumber('20.5', 'es'), 20.5, 'a keypad’s point is a decimal point');
  assert.equal(parseTypedNumber('1.250', 'es'), 1250, 'a thousands point, as Spanish writes it');
  assert.equal(parseTypedNumber(' 20.5 ', 'en-GB'), 20.5);
  assert.equal(parseTypedNumber('1,250.5', 'en-US'), 1250.5);
  assert.equal(parseTypedNumber('1,250', 'en-US'), 1250);
  assert.ok(Number.isNaN(parseTypedNumber('20,5', 'en-US')), 'not 205: not guessed at');
  assert.ok(Number.isNaN(parseTypedNumber('12 kg', 'en')));
  assert.ok(Number.isNaN(parseTypedNumber('', 'en')));
  assert.equal(parseTypedNumber('-3,25', 'es'), -3.25);
});
