import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { METRIC_BY_NAME, METRICS } from './metrics.ts';
import { validateRuleOverrides } from './rule-overrides.ts';
import { classifyReading, DEFAULT_RULES, effectiveRules, RULE_BY_NAME, rulesForMetric } from './rules.ts';
import { thresholdOrderProblem } from './threshold-order.ts';

function rule(name: string) {
  const r = RULE_BY_NAME.get(name);
  assert.ok(r, `rule ${name} exists`);
  return r;
}

describe('metrics', () => {
  test('the spec lists 21 metrics, each with a unit and meaning', () => {
    assert.equal(METRICS.length, 21);
    assert.equal(new Set(METRICS.map((m) => m.name)).size, 21);
    assert.deepEqual(METRIC_BY_NAME.get('wind.kph'), {
      name: 'wind.kph',
      unit: 'km/h',
      meaning: 'wind speed',
    });
    assert.equal(METRIC_BY_NAME.get('climate.temp_c')?.unit, '°C');
  });

  test('every default rule watches a documented metric', () => {
    for (const r of DEFAULT_RULES) assert.ok(METRIC_BY_NAME.has(r.metric), r.metric);
  });
});

describe('default rules', () => {
  test('match the spec table', () => {
    const table = DEFAULT_RULES.map((r) => [r.name, r.metric, r.direction, r.watch, r.urgent, r.clear]);
    assert.deepEqual(table, [
      ['house.ammonia', 'climate.nh3_ppm', 'high', 20, 25, 15],
      ['house.heat', 'climate.temp_c', 'high', 32, 35, 30],
      ['house.feed', 'feed.bin_pct', 'low', 15, 5, 25],
      ['water.level', 'water.tank_pct', 'low', 20, 5, 30],
      ['house.battery', 'power.battery_pct', 'low', 20, 8, 30],
      ['animal.fever', 'body.temp_c', 'high', 40, 40.6, 39.6],
      ['device.battery', 'device.battery_pct', 'low', 15, null, 25],
    ]);
  });
});

describe('classifyReading', () => {
  // Just inside a line means a hair on the side of the line that does not trigger it.
  const EPS = 0.01;

  for (const r of DEFAULT_RULES) {
    const toward = r.direction === 'high' ? 1 : -1;

    test(`${r.name}: exactly at and just short of each line`, () => {
      if (r.urgent !== null) {
        assert.equal(classifyReading(r, r.urgent), 'urgent', 'at urgent');
        assert.equal(classifyReading(r, r.urgent + toward * 5), 'urgent', 'beyond urgent');
        assert.equal(classifyReading(r, r.urgent - toward * EPS), 'watch', 'just short of urgent');
      }
      assert.equal(classifyReading(r, r.watch), 'watch', 'at watch');
      assert.equal(classifyReading(r, r.watch - toward * EPS), 'between', 'just short of watch');
      assert.equal(classifyReading(r, r.clear), 'clear', 'at clear');
      assert.equal(classifyReading(r, r.clear + toward * EPS), 'between', 'just short of clear');
      assert.equal(classifyReading(r, r.clear - toward * 5), 'clear', 'well past clear');
    });
  }

  test('a rule without an urgent line never classifies urgent', () => {
    const r = rule('device.battery');
    assert.equal(classifyReading(r, 0), 'watch');
    assert.equal(classifyReading(r, -50), 'watch');
  });

  test('an urgent line equal to watch classifies urgent at that line', () => {
    assert.equal(classifyReading({ direction: 'high', watch: 30, urgent: 30, clear: 20 }, 30), 'urgent');
  });
});

describe('effectiveRules and rulesForMetric', () => {
  test('without overrides they equal the defaults', () => {
    const unsustained = DEFAULT_RULES.map((r) => ({ ...r, for_s: null }));
    assert.deepEqual(effectiveRules(undefined), unsustained);
    assert.deepEqual(effectiveRules(null), unsustained);
  });

  test('partial overrides merge with the defaults, and null removes the urgent line', () => {
    const rules = effectiveRules({ 'house.heat': { watch: 33 }, 'house.feed': { urgent: null } });
    const heat = rules.find((r) => r.name === 'house.heat');
    const feed = rules.find((r) => r.name === 'house.feed');
    assert.deepEqual([heat?.watch, heat?.urgent, heat?.clear], [33, 35, 30]);
    assert.deepEqual([feed?.watch, feed?.urgent, feed?.clear], [15, null, 25]);
  });

  test('overrides do not change the shared defaults', () => {
    effectiveRules({ 'house.heat': { watch: 33 } });
    assert.equal(rule('house.heat').watch, 32);
  });

  test('rulesForMetric picks the rules on one metric', () => {
    assert.deepEqual(
      rulesForMetric(DEFAULT_RULES, 'climate.temp_c').map((r) => r.name),
      ['house.heat'],
    );
    assert.deepEqual(rulesForMetric(DEFAULT_RULES, 'rain.mm'), []);
  });
});

describe('validateRuleOverrides', () => {
  function rejects(input: unknown, param: string, messagePart: RegExp) {
    const result = validateRuleOverrides(input);
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.equal(result.param, param);
    assert.match(result.message, messagePart);
  }

  test('accepts partial overrides and returns the merged thresholds', () => {
    const result = validateRuleOverrides({
      'house.heat': { watch: 31 },
      'device.battery': { urgent: 5 },
      'house.feed': { urgent: null },
    });
    assert.deepEqual(result, {
      ok: true,
      value: {
        'house.heat': { watch: 31, urgent: 35, clear: 30 },
        'device.battery': { watch: 15, urgent: 5, clear: 25 },
        'house.feed': { watch: 15, urgent: null, clear: 25 },
      },
    });
  });

  test('accepts an empty object', () => {
    assert.deepEqual(validateRuleOverrides({}), { ok: true, value: {} });
  });

  test('rejects a non-object', () => {
    rejects([], 'settings.rules', /must be an object/);
    rejects(null, 'settings.rules', /must be an object/);
  });

  test('rejects an unknown rule and lists the valid ones', () => {
    rejects(
      { 'house.cold': { watch: 5 } },
      'settings.rules.house.cold',
      /Unknown alert rule.*house\.heat.*device\.battery/,
    );
  });

  test('rejects a rule value that is not an object', () => {
    rejects({ 'house.heat': 33 }, 'settings.rules.house.heat', /must be an object/);
  });

  test('rejects an unknown member', () => {
    rejects({ 'house.heat': { warn: 33 } }, 'settings.rules.house.heat.warn', /no member "warn"/);
  });

  test('rejects a non-number', () => {
    rejects(
      { 'house.heat': { watch: '33' } },
      'settings.rules.house.heat.watch',
      /watch must be a finite number/,
    );
    rejects(
      { 'house.heat': { clear: null } },
      'settings.rules.house.heat.clear',
      /clear must be a finite number/,
    );
    rejects(
      { 'house.heat': { urgent: Number.POSITIVE_INFINITY } },
      'settings.rules.house.heat.urgent',
      /urgent/,
    );
  });

  test('rejects a high-side clear at or above watch', () => {
    rejects(
      { 'house.heat': { clear: 32 } },
      'settings.rules.house.heat.clear',
      /clear \(32\) must be below watch \(32\)/,
    );
  });

  test('blames watch when only watch moved past the default clear', () => {
    rejects({ 'house.heat': { watch: 29 } }, 'settings.rules.house.heat.watch', /must be below watch/);
  });

  test('rejects a high-side urgent below watch', () => {
    rejects({ 'house.ammonia': { urgent: 18 } }, 'settings.rules.house.ammonia.urgent', /at or above watch/);
    rejects({ 'animal.fever': { watch: 41 } }, 'settings.rules.animal.fever.watch', /at or above watch/);
  });

  test('rejects inverted low-side lines', () => {
    rejects(
      { 'house.feed': { clear: 10 } },
      'settings.rules.house.feed.clear',
      /clear \(10\) must be above watch/,
    );
    rejects({ 'water.level': { urgent: 25 } }, 'settings.rules.water.level.urgent', /at or below watch/);
  });

  test('allows urgent equal to watch', () => {
    assert.equal(validateRuleOverrides({ 'house.battery': { urgent: 20 } }).ok, true);
  });

  test('the order problem names the line to change, how it must stand, and against which line', () => {
    const given = (...m: Array<'watch' | 'urgent' | 'clear'>) => new Set(m);
    // High side: the line the caller moved is blamed, said from its side.
    assert.deepEqual(thresholdOrderProblem('high', { watch: 36, urgent: 35, clear: 30 }, given('watch')), {
      member: 'watch',
      relation: 'at_or_below',
      other: 'urgent',
    });
    assert.deepEqual(thresholdOrderProblem('high', { watch: 32, urgent: 31, clear: 30 }, given('urgent')), {
      member: 'urgent',
      relation: 'at_or_above',
      other: 'watch',
    });
    assert.deepEqual(thresholdOrderProblem('high', { watch: 29, urgent: 35, clear: 30 }, given('watch')), {
      member: 'watch',
      relation: 'above',
      other: 'clear',
    });
    // Low side, both moved: clear is blamed against watch.
    assert.deepEqual(
      thresholdOrderProblem('low', { watch: 15, urgent: 5, clear: 10 }, given('watch', 'clear')),
      { member: 'clear', relation: 'above', other: 'watch' },
    );
    assert.equal(thresholdOrderProblem('low', { watch: 15, urgent: null, clear: 25 }, given('urgent')), null);
  });
});
