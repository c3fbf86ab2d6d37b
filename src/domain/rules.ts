/**
 * The default threshold rules and how a farm's `settings.rules` adjusts them (validated when saved in
 * rule-overrides.ts; the rate, silence and roll-up rules are in built-in-rules.ts).
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
