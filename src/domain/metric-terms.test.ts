import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LANGUAGES } from './display-units.ts';
import { METRIC_TERMS, metricTerm } from './metric-terms.ts';
import { METRICS } from './metrics.ts';

test('every metric of the table has a name in every language, and none is its code', () => {
  assert.deepEqual(Object.keys(METRIC_TERMS).sort(), METRICS.map((m) => m.name).sort());
  for (const { name } of METRICS) {
    for (const language of LANGUAGES) {
      const term = metricTerm(language, name);
      assert.ok(term.trim().length > 0, `${name} in ${language}`);
      assert.notEqual(term, name, `${name} in ${language} is its code`);
    }
  }
  // The languages say it in their own words.
  assert.equal(metricTerm('en', 'body.temp_c'), 'Body temperature');
  assert.equal(metricTerm('es', 'body.temp_c'), 'Temperatura corporal');
  assert.equal(metricTerm('es', 'feed.bin_pct'), 'Tolva de pienso');
});

test('a metric the product does not know is named by its code', () => {
  assert.equal(metricTerm('es', 'soil.moisture_pct'), 'soil.moisture_pct');
  assert.equal(metricTerm('en', 'gps.lat'), 'gps.lat');
  // Not an inherited member of the table either.
  assert.equal(metricTerm('en', 'constructor'), 'constructor');
  assert.equal(metricTerm('en', 'toString'), 'toString');
});
