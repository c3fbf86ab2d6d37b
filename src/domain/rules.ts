/**
 * Default alert rules and the per-farm overrides kept in `settings.rules`.
 *
 * A high-side rule fires when a reading rises to its line (`>=`), a low-side rule when it falls to
 * it (`<=`). The clear value sits on the safe side of the watch line so that an alert does not flap
 * open and shut while a reading hovers around one number.
 */

import { isPlainObject, parseJson } from '../lib/json.ts';
import { type DeviceType, isDeviceType } from './devices.ts';
import type { MetricName } from './metrics.ts';

export type RuleDirection = 'high' | 'low';

export type RuleThresholds = {
  watch: number;
  /** `null` means the rule has no urgent line and only ever opens `watch` alerts. */
  urgent: number | null;
  clear: number;
  /** Seconds the condition must hold (by reading time) before an alert opens; null or absent: at once. */
  for_s?: number | null;
};

/** The longest sustain a rule may ask for: a week of readings is as far back as a window reaches. */
export const MAX_FOR_S = 7 * 86_400;

/** A valid `for_s`: a whole number of seconds from 1 to MAX_FOR_S. */
export function isForSeconds(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_FOR_S;
}

/** How a default rule is declared; `AlertRule` is the same with the names checked. */
interface AlertRuleSpec {
  readonly name: string;
  /** Names the rule in alert titles: "High ammonia in House 2". */
  readonly title: string;
  /** Names the measurement in alert reasons: "Ammonia 26 ppm in House 2 — …". */
  readonly measure: string;
  readonly metric: MetricName;
  readonly direction: RuleDirection;
  readonly watch: number;
  readonly urgent: number | null;
  readonly clear: number;
  readonly description: string;
}

export interface AlertRule {
  name: RuleName;
  title: string;
  measure: string;
  metric: MetricName;
  direction: RuleDirection;
  watch: number;
  urgent: number | null;
  clear: number;
  description: string;
}

const RULE_SPECS = [
  {
    name: 'house.ammonia',
    title: 'High ammonia',
    measure: 'Ammonia',
    metric: 'climate.nh3_ppm',
    direction: 'high',
    watch: 20,
    urgent: 25,
    clear: 15,
    description: 'Ammonia at bird height in a house is too high.',
  },
  {
    name: 'house.heat',
    title: 'High temperature',
    measure: 'Temperature',
    metric: 'climate.temp_c',
    direction: 'high',
    watch: 32,
    urgent: 35,
    clear: 30,
    description: 'Air temperature at bird height in a house is too high.',
  },
  {
    name: 'house.feed',
    title: 'Feed running low',
    measure: 'Feed bin',
    metric: 'feed.bin_pct',
    direction: 'low',
    watch: 15,
    urgent: 5,
    clear: 25,
    description: 'The feed bin of a house is running low.',
  },
  {
    name: 'water.level',
    title: 'Water running low',
    measure: 'Water level',
    metric: 'water.tank_pct',
    direction: 'low',
    watch: 20,
    urgent: 5,
    clear: 30,
    description: 'A header tank or trough is running low.',
  },
  {
    name: 'house.battery',
    title: 'House battery low',
    measure: 'House battery',
    metric: 'power.battery_pct',
    direction: 'low',
    watch: 20,
    urgent: 8,
    clear: 30,
    description: 'The battery of a house is running low.',
  },
  {
    name: 'animal.fever',
    title: 'Raised temperature',
    measure: 'Body temperature',
    metric: 'body.temp_c',
    direction: 'high',
    watch: 40,
    urgent: 40.6,
    clear: 39.6,
    description: 'An animal has a raised body or rumen temperature.',
  },
  {
    name: 'device.battery',
    title: 'Device battery low',
    measure: 'Battery',
    metric: 'device.battery_pct',
    direction: 'low',
    watch: 15,
    urgent: null,
    clear: 25,
    description: 'A tracker or sensor battery is running low.',
  },
] as const satisfies readonly AlertRuleSpec[];

/** A default rule's name; a misspelt one fails to compile. */
export type RuleName = (typeof RULE_SPECS)[number]['name'];

export const DEFAULT_RULES: readonly AlertRule[] = Object.freeze(RULE_SPECS);

export const RULE_NAMES: readonly RuleName[] = Object.freeze(DEFAULT_RULES.map((r) => r.name));

export const RULE_BY_NAME: ReadonlyMap<string, AlertRule> = new Map(DEFAULT_RULES.map((r) => [r.name, r]));

const THRESHOLD_MEMBERS = ['watch', 'urgent', 'clear'] as const;
type ThresholdMember = (typeof THRESHOLD_MEMBERS)[number];

export type RuleOverridesResult =
  | { ok: true; value: Record<string, RuleThresholds | Readonly<Record<string, unknown>>> }
  | { ok: false; param: string; message: string };

/**
 * Validates a farm's `settings.rules`. Members left out fall back to the default, so a farm can move
 * one line without restating the others; the check runs on the merged thresholds because a lone
 * `watch` can be fine or inverted depending on the defaults it lands beside.
 *
 * On success `value` holds the full merged thresholds for every rule the input names.
 */
export function validateRuleOverrides(input: unknown): RuleOverridesResult {
  const root = 'settings.rules';
  if (!isPlainObject(input)) {
    return { ok: false, param: root, message: 'settings.rules must be an object keyed by rule name.' };
  }

  const value: Record<string, RuleThresholds | Readonly<Record<string, unknown>>> = {};
  for (const [ruleName, override] of Object.entries(input)) {
    const rulePath = `${root}.${ruleName}`;
    if (isBuiltInRuleName(ruleName) && !RULE_BY_NAME.has(ruleName)) {
      const error = checkOtherKindOverride(ruleName, rulePath, override);
      if (error) return { ok: false, ...error };
      value[ruleName] = override as Record<string, unknown>;
      continue;
    }
    const rule = RULE_BY_NAME.get(ruleName);
    if (!rule) {
      return {
        ok: false,
        param: rulePath,
        message: `Unknown alert rule "${ruleName}". Valid rules: ${BUILT_IN_RULE_NAMES.join(', ')}.`,
      };
    }
    if (!isPlainObject(override)) {
      return {
        ok: false,
        param: rulePath,
        message: `Rule ${ruleName} must be an object with numeric members watch, urgent and clear.`,
      };
    }

    const merged: RuleThresholds = { watch: rule.watch, urgent: rule.urgent, clear: rule.clear };
    const given = new Set<ThresholdMember>();
    for (const [member, raw] of Object.entries(override)) {
      const memberPath = `${rulePath}.${member}`;
      if (member === 'for_s') {
        if (raw !== null && !isForSeconds(raw)) {
          return {
            ok: false,
            param: memberPath,
            message: `Rule ${ruleName}: for_s must be whole seconds from 1 to ${MAX_FOR_S}, or null; got ${describe(raw)}.`,
          };
        }
        merged.for_s = raw;
        continue;
      }
      if (!(THRESHOLD_MEMBERS as readonly string[]).includes(member)) {
        return {
          ok: false,
          param: memberPath,
          message: `Rule ${ruleName} has no member "${member}"; its members are watch, urgent, clear and for_s.`,
        };
      }
      const m = member as ThresholdMember;
      if (m === 'urgent' && raw === null) {
        merged.urgent = null;
      } else if (typeof raw === 'number' && Number.isFinite(raw)) {
        merged[m] = raw;
      } else {
        const allowed = m === 'urgent' ? 'a finite number, or null for no urgent line' : 'a finite number';
        return {
          ok: false,
          param: memberPath,
          message: `Rule ${ruleName}: ${m} must be ${allowed}; got ${describe(raw)}.`,
        };
      }
      given.add(m);
    }

    const orderError = checkOrder(rule, merged, given);
    if (orderError)
      return { ok: false, param: `${rulePath}.${orderError.member}`, message: orderError.message };
    value[ruleName] = merged;
  }
  return { ok: true, value };
}

/** The members the newer built-in rules take in settings.rules, each checked; null when all is well. */
const OTHER_KIND_MEMBERS: Readonly<Record<string, readonly string[]>> = {
  'water.leak': ['change', 'window_s', 'for_s', 'enabled'],
  'device.quiet': ['quiet_after_s', 'enabled'],
  'group.intake_drop': ['enabled'],
};

function checkOtherKindOverride(
  ruleName: string,
  rulePath: string,
  override: unknown,
): { param: string; message: string } | null {
  const members = OTHER_KIND_MEMBERS[ruleName] ?? [];
  if (!isPlainObject(override)) {
    return {
      param: rulePath,
      message: `Rule ${ruleName} must be an object with members ${members.join(', ')}.`,
    };
  }
  for (const [member, raw] of Object.entries(override)) {
    const param = `${rulePath}.${member}`;
    if (!members.includes(member)) {
      return {
        param,
        message: `Rule ${ruleName} has no member "${member}"; its members are ${members.join(', ')}.`,
      };
    }
    const fail = (what: string) => ({
      param,
      message: `Rule ${ruleName}: ${member} must be ${what}; got ${describe(raw)}.`,
    });
    if (member === 'enabled' && typeof raw !== 'boolean') return fail('true or false');
    if (member === 'change' && !(typeof raw === 'number' && Number.isFinite(raw) && raw < 0)) {
      return fail('a negative number (the fall, in percentage points, that opens the alert)');
    }
    if (member === 'window_s' && !isWindowSeconds(raw)) return fail('whole seconds from 60 to 86400');
    if (member === 'for_s' && raw !== null && !isForSeconds(raw))
      return fail(`whole seconds from 1 to ${MAX_FOR_S}, or null`);
    if (member === 'quiet_after_s') {
      const range = `whole seconds from ${MIN_QUIET_AFTER_S} to ${MAX_QUIET_AFTER_S}`;
      if (isPlainObject(raw)) {
        for (const [type, v] of Object.entries(raw)) {
          if (!isDeviceType(type)) {
            return {
              param: `${param}.${type}`,
              message: `Rule ${ruleName}: "${type}" is not a device type.`,
            };
          }
          if (!isQuietAfterSeconds(v)) {
            return {
              param: `${param}.${type}`,
              message: `Rule ${ruleName}: quiet_after_s.${type} must be ${range}; got ${describe(v)}.`,
            };
          }
        }
      } else if (!isQuietAfterSeconds(raw)) {
        return fail(`${range}, or an object of them by device type`);
      }
    }
  }
  return null;
}

/**
 * Checks that the lines are in an order that can both fire and clear. Blames a member the caller
 * actually sent, so the error points at something they can change.
 */
function checkOrder(
  rule: AlertRule,
  t: RuleThresholds,
  given: ReadonlySet<ThresholdMember>,
): { member: ThresholdMember; message: string } | null {
  const high = rule.direction === 'high';
  const side = high ? 'high-side' : 'low-side';
  const pick = (preferred: ThresholdMember, other: ThresholdMember): ThresholdMember =>
    given.has(preferred) || !given.has(other) ? preferred : other;

  const clearOk = high ? t.clear < t.watch : t.clear > t.watch;
  if (!clearOk) {
    return {
      member: pick('clear', 'watch'),
      message:
        `Rule ${rule.name} (${side}, ${rule.metric}): clear (${t.clear}) must be ${high ? 'below' : 'above'} ` +
        `watch (${t.watch}), otherwise an alert could never resolve.`,
    };
  }
  if (t.urgent !== null) {
    const urgentOk = high ? t.watch <= t.urgent : t.watch >= t.urgent;
    if (!urgentOk) {
      return {
        member: pick('urgent', 'watch'),
        message:
          `Rule ${rule.name} (${side}, ${rule.metric}): urgent (${t.urgent}) must be ` +
          `${high ? 'at or above' : 'at or below'} watch (${t.watch}).`,
      };
    }
  }
  return null;
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'number') return String(value);
  return JSON.stringify(value) ?? typeof value;
}

/**
 * The default rules with a farm's overrides applied. Unknown rule names and non-numeric members are
 * ignored here: overrides are validated when they are saved, and the alert engine must keep running
 * on whatever is stored.
 */
export function effectiveRules(
  overrides: Readonly<Record<string, unknown>> | undefined | null,
): Array<AlertRule & { for_s: number | null }> {
  return DEFAULT_RULES.map((rule) => {
    const o = overrides?.[rule.name];
    if (!isPlainObject(o)) return { ...rule, for_s: null };
    return {
      ...rule,
      watch: finiteOr(o.watch, rule.watch),
      urgent: o.urgent === null ? null : finiteOr(o.urgent, rule.urgent),
      clear: finiteOr(o.clear, rule.clear),
      for_s: isForSeconds(o.for_s) ? o.for_s : null,
    };
  });
}

function finiteOr<T extends number | null>(value: unknown, fallback: T): number | T {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

/**
 * The rules in force on a farm: the defaults with the overrides in its stored `settings` text. Anything
 * malformed is ignored (see `effectiveRules`), so a bad row never stops alerts or the brief.
 */
export function farmRules(settingsText: string): Array<AlertRule & { for_s: number | null }> {
  const settings = parseJson<{ rules?: unknown }>(settingsText, {});
  return effectiveRules(isPlainObject(settings.rules) ? settings.rules : null);
}

export function rulesForMetric(rules: readonly AlertRule[], metric: string): AlertRule[] {
  return rules.filter((r) => r.metric === metric);
}

export type ReadingClass = 'urgent' | 'watch' | 'clear' | 'between';

/**
 * Where a reading falls against a rule. Every comparison is inclusive at the line. 'between' is the
 * hysteresis band (past the clear value but short of watch): an open alert stays open and no new one
 * opens.
 */
export function classifyReading(
  rule: RuleThresholds & { direction: RuleDirection },
  value: number,
): ReadingClass {
  // Mirroring low-side rules onto the high side keeps one set of comparisons.
  const s = rule.direction === 'high' ? 1 : -1;
  const v = s * value;
  if (rule.urgent !== null && v >= s * rule.urgent) return 'urgent';
  if (v >= s * rule.watch) return 'watch';
  if (v <= s * rule.clear) return 'clear';
  return 'between';
}

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
export const BUILT_IN_RULE_KINDS = ['threshold', 'rate', 'silence', 'rollup'] as const;
export type BuiltInRuleKind = (typeof BUILT_IN_RULE_KINDS)[number];

/** Every built-in rule name: the threshold defaults, then the newer kinds. Custom rules may not take one. */
export type BuiltInRuleName =
  | RuleName
  | typeof WATER_LEAK_RULE.name
  | typeof DEVICE_QUIET_RULE.name
  | typeof INTAKE_DROP_RULE.name;

export const BUILT_IN_RULE_NAMES: readonly BuiltInRuleName[] = Object.freeze([
  ...RULE_NAMES,
  WATER_LEAK_RULE.name,
  DEVICE_QUIET_RULE.name,
  INTAKE_DROP_RULE.name,
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

function settingsRule(settingsText: string, name: string): Record<string, unknown> | null {
  const settings = parseJson<{ rules?: unknown }>(settingsText, {});
  const o = isPlainObject(settings.rules) ? settings.rules[name] : null;
  return isPlainObject(o) ? o : null;
}

export function isWindowSeconds(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 60 && value <= 86_400;
}

export function isQuietAfterSeconds(value: unknown): value is number {
  return (
    typeof value === 'number' &&
    Number.isInteger(value) &&
    value >= MIN_QUIET_AFTER_S &&
    value <= MAX_QUIET_AFTER_S
  );
}

/** Whether a farm has group.intake_drop on (`settings.rules['group.intake_drop'].enabled`, default on). */
export function farmIntakeRuleEnabled(settingsText: string): boolean {
  return settingsRule(settingsText, INTAKE_DROP_RULE.name)?.enabled !== false;
}
