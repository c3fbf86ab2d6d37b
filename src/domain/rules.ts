/**
 * Default alert rules and the per-farm overrides kept in `settings.rules`.
 *
 * A high-side rule fires when a reading rises to its line (`>=`), a low-side rule when it falls to
 * it (`<=`). The clear value sits on the safe side of the watch line so that an alert does not flap
 * open and shut while a reading hovers around one number.
 */

import { isPlainObject, parseJson } from '../lib/json.ts';
import type { MetricName } from './metrics.ts';

export type RuleDirection = 'high' | 'low';

export type RuleThresholds = {
  watch: number;
  /** `null` means the rule has no urgent line and only ever opens `watch` alerts. */
  urgent: number | null;
  clear: number;
};

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
  | { ok: true; value: Record<string, RuleThresholds> }
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

  const value: Record<string, RuleThresholds> = {};
  for (const [ruleName, override] of Object.entries(input)) {
    const rule = RULE_BY_NAME.get(ruleName);
    const rulePath = `${root}.${ruleName}`;
    if (!rule) {
      return {
        ok: false,
        param: rulePath,
        message: `Unknown alert rule "${ruleName}". Valid rules: ${RULE_NAMES.join(', ')}.`,
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
      if (!(THRESHOLD_MEMBERS as readonly string[]).includes(member)) {
        return {
          ok: false,
          param: memberPath,
          message: `Rule ${ruleName} has no member "${member}"; its members are watch, urgent and clear.`,
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
export function effectiveRules(overrides: Readonly<Record<string, unknown>> | undefined | null): AlertRule[] {
  return DEFAULT_RULES.map((rule) => {
    const o = overrides?.[rule.name];
    if (!isPlainObject(o)) return { ...rule };
    return {
      ...rule,
      watch: finiteOr(o.watch, rule.watch),
      urgent: o.urgent === null ? null : finiteOr(o.urgent, rule.urgent),
      clear: finiteOr(o.clear, rule.clear),
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
export function farmRules(settingsText: string): AlertRule[] {
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
