/**
 * The built-in rules of the kinds beyond thresholds: water.leak (rate), device.quiet (silence) and
 * group.intake_drop (roll-up), with how a farm's settings adjust them. The threshold defaults are in
 * rules.ts; validation of a farm's `settings.rules` in rule-overrides.ts.
 */
import { isPlainObject, parseJson } from '../lib/json.ts';
import type { DeviceType } from './devices.ts';
import type { MetricName } from './metrics.ts';
import { isForSeconds, MAX_FOR_S, RULE_NAMES, type RuleName } from './rules.ts';

/**
 * The default rate rule: a header tank or trough whose level falls fast is a burst line, a stuck float
 * valve or a tipped trough, even while the level is still above water.level's 20 % line. A fall of 30
 * points within an hour: a trough of cattle drinking at their peak, or a flock's header tank through
 * a hot afternoon, falls roughly 5–15 points an hour and refills as it goes; 30 in an hour is twice the
 * busiest normal draw, soon enough to save the rest of the tank. Clears (like every rate rule) once
 * the fall over the last hour is back under half of that.
 */
export const WATER_LEAK_RULE = Object.freeze({
  name: 'water.leak',
  kind: 'rate',
  title: 'Water dropping fast',
  measure: 'Water level',
  metric: 'water.tank_pct',
  change: -30,
  window_s: 3600,
  device_types: ['water', 'house'],
  description:
    'A header tank or trough level fell 30 points or more within an hour (a burst line or stuck valve), even while above its low line. Water tanks and houses.',
} as const satisfies { metric: MetricName; device_types: readonly DeviceType[]; [k: string]: unknown });

/**
 * The silent-device rule. A device is quiet after max(3 × its usual report interval, 15 min) without a
 * report (a farm may set its own floor per device type, `quiet_after_s`); a house or a guardian quiet
 * for 6 h is urgent: birds shut in or out, a flock unguarded.
 */
export const DEVICE_QUIET_RULE = Object.freeze({
  name: 'device.quiet',
  kind: 'silence',
  title: 'Device quiet',
  factor: 3,
  quiet_after_s: 900,
  /** A device with too few reports to know its interval counts as quiet after this (as in the brief). */
  unknown_after_s: 6 * 3600,
  urgent_after_s: 6 * 3600,
  urgent_device_types: ['house', 'guardian'],
  description:
    'A device sent no report for 3 times its usual interval (at least 15 minutes): a flat battery, out of range, or an animal through a fence. Urgent after 6 hours for houses and guardians. Resolves on its next report.',
} as const satisfies { urgent_device_types: readonly DeviceType[]; [k: string]: unknown });

/**
 * The device-clock rule: a report whose readings or events are dated further ahead of the server's clock
 * than the tolerance (FARMSTEAD_MAX_CLOCK_SKEW_S, 5 minutes by default) has them refused, and the device
 * gets one watch alert about its clock (a device whose clock was never set reports 2030, and a reading
 * from the future would otherwise stand as its latest for years). The device's next report with sane
 * times resolves it.
 */
export const DEVICE_CLOCK_RULE = Object.freeze({
  name: 'device.clock',
  kind: 'clock',
  title: 'Clock ahead',
  severity: 'watch',
  description:
    "A device dated readings or events more than the server's tolerance (5 minutes by default) ahead of the server's clock: they were not stored. Set the device's clock (NTP, or leave `at` out and the time of receipt is used). Resolves on the device's next report whose times are all within the tolerance.",
} as const);

/** The shortest and longest silence a farm may set as `quiet_after_s`. */
export const MIN_QUIET_AFTER_S = 900;
export const MAX_QUIET_AFTER_S = MAX_FOR_S;

/**
 * The per-head roll-up: a group's daily water and feed per head against its own trailing 7-day median.
 * A fall of more than 25 % in water (or 20 % in feed) is the first sign of disease or heat stress in
 * poultry; the alert resolves when a later day is back within 10 % of the median.
 */
export const INTAKE_DROP_RULE = Object.freeze({
  name: 'group.intake_drop',
  kind: 'rollup',
  title: 'Intake dropped',
  trailing_days: 7,
  recover_pct: 10,
  metrics: [
    { metric: 'water.used_l', drop_pct: 25, measure: 'Water per head' },
    { metric: 'feed.dispensed_kg', drop_pct: 20, measure: 'Feed per head' },
  ],
  description:
    'A group with a head count drank (more than 25 % less) or ate (more than 20 % less) per head yesterday than its own trailing 7-day median, from its house or water devices. Resolves when a day is back within 10 %.',
} as const satisfies {
  metrics: ReadonlyArray<{ metric: MetricName; drop_pct: number; measure: string }>;
  [k: string]: unknown;
});

/** Every kind of built-in rule, as the catalog lists them. */
export const BUILT_IN_RULE_KINDS = ['threshold', 'rate', 'silence', 'rollup', 'clock'] as const;
export type BuiltInRuleKind = (typeof BUILT_IN_RULE_KINDS)[number];

/** Every built-in rule name: the threshold defaults, then the newer kinds. Custom rules may not take one. */
export type BuiltInRuleName =
  | RuleName
  | typeof WATER_LEAK_RULE.name
  | typeof DEVICE_QUIET_RULE.name
  | typeof INTAKE_DROP_RULE.name
  | typeof DEVICE_CLOCK_RULE.name;

export const BUILT_IN_RULE_NAMES: readonly BuiltInRuleName[] = Object.freeze([
  ...RULE_NAMES,
  WATER_LEAK_RULE.name,
  DEVICE_QUIET_RULE.name,
  INTAKE_DROP_RULE.name,
  DEVICE_CLOCK_RULE.name,
]);

export function isBuiltInRuleName(name: string): name is BuiltInRuleName {
  return (BUILT_IN_RULE_NAMES as readonly string[]).includes(name);
}

/** water.leak as a farm has it: its own change and window (`settings.rules['water.leak']`) or the defaults. */
export function farmLeakRule(settingsText: string): {
  change: number;
  window_s: number;
  for_s: number | null;
  enabled: boolean;
} {
  const o = settingsRule(settingsText, WATER_LEAK_RULE.name);
  return {
    change:
      typeof o?.change === 'number' && Number.isFinite(o.change) && o.change < 0
        ? o.change
        : WATER_LEAK_RULE.change,
    window_s: isWindowSeconds(o?.window_s) ? o.window_s : WATER_LEAK_RULE.window_s,
    for_s: isForSeconds(o?.for_s) ? o.for_s : null,
    enabled: o?.enabled !== false,
  };
}

/**
 * device.quiet as a farm has it: the floor in seconds for a device type (`quiet_after_s`, a number for
 * every type or an object by type), and whether the rule is on.
 */
export function farmQuietRule(settingsText: string): {
  enabled: boolean;
  quietAfterS: (type: string) => number;
} {
  const rule = settingsRule(settingsText, DEVICE_QUIET_RULE.name);
  const given = rule?.quiet_after_s;
  return {
    enabled: rule?.enabled !== false,
    quietAfterS: (type) => {
      const v = isPlainObject(given) ? given[type] : given;
      return isQuietAfterSeconds(v) ? v : DEVICE_QUIET_RULE.quiet_after_s;
    },
  };
}

/** device.clock as a farm has it: on unless `settings.rules['device.clock'].enabled` is false. */
export function farmClockRule(settingsText: string): { enabled: boolean } {
  return { enabled: settingsRule(settingsText, DEVICE_CLOCK_RULE.name)?.enabled !== false };
}

function settingsRule(settingsText: string, name: string): Record<string, unknown> | null {
  const settings = parseJson<{ rules?: unknown }>(settingsText, {});
  const o = isPlainObject(settings.rules) ? settings.rules[name] : null;
  return isPlainObject(o) ? o : null;
}

/** A rate window's bounds in seconds: a minute to a day. */
export const MIN_WINDOW_S = 60;
export const MAX_WINDOW_S = 86_400;

export function isWindowSeconds(value: unknown): value is number {
  return (
    typeof value === 'number' && Number.isInteger(value) && value >= MIN_WINDOW_S && value <= MAX_WINDOW_S
  );
}

export function isQuietAfterSeconds(value: unknown): value is number {
  return (
    typeof value === 'number' &&
    Number.isInteger(value) &&
    value >= MIN_QUIET_AFTER_S &&
    value <= MAX_QUIET_AFTER_S
  );
}

/** The least and most a farm may set as a `drop_pct` of group.intake_drop: above the recovery band, at most all of it. */
export const MIN_DROP_PCT = INTAKE_DROP_RULE.recover_pct;
export const MAX_DROP_PCT = 100;

/** A valid `drop_pct`: more than the 10 % recovery band (so an alert can both open and resolve), at most 100. */
export function isDropPct(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > MIN_DROP_PCT && value <= MAX_DROP_PCT;
}

/** The metrics group.intake_drop judges, the names a `drop_pct` object may use. */
export const INTAKE_METRICS: readonly string[] = Object.freeze(INTAKE_DROP_RULE.metrics.map((m) => m.metric));

/**
 * group.intake_drop as a farm has it: whether it is on (`enabled`, default on) and the drop that opens
 * an alert per metric (`drop_pct`, a number for both or an object by metric; the registry's otherwise).
 */
export function farmIntakeRule(settingsText: string): {
  enabled: boolean;
  metrics: Array<{ metric: MetricName; drop_pct: number; measure: string }>;
} {
  const rule = settingsRule(settingsText, INTAKE_DROP_RULE.name);
  const given = rule?.drop_pct;
  return {
    enabled: rule?.enabled !== false,
    metrics: INTAKE_DROP_RULE.metrics.map((m) => {
      const v = isPlainObject(given) ? given[m.metric] : given;
      return { ...m, drop_pct: isDropPct(v) ? v : m.drop_pct };
    }),
  };
}
