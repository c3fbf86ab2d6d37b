/**
 * Validation of a farm's `settings.rules`: overrides of the threshold defaults (rules.ts) and the settings
 * of the other built-in kinds (built-in-rules.ts), checked when they are saved.
 */
import { isPlainObject } from '../lib/json.ts';
import {
  BUILT_IN_RULE_NAMES,
  INTAKE_METRICS,
  isBuiltInRuleName,
  isDropPct,
  isQuietAfterSeconds,
  isWindowSeconds,
  MAX_DROP_PCT,
  MAX_QUIET_AFTER_S,
  MAX_WINDOW_S,
  MIN_DROP_PCT,
  MIN_QUIET_AFTER_S,
  MIN_WINDOW_S,
} from './built-in-rules.ts';
import { isDeviceType } from './devices.ts';
import { type AlertRule, isForSeconds, MAX_FOR_S, RULE_BY_NAME, type RuleThresholds } from './rules.ts';
import { THRESHOLD_MEMBERS, type ThresholdMember, thresholdOrderProblem } from './threshold-order.ts';

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
  'group.intake_drop': ['drop_pct', 'enabled'],
  'device.clock': ['enabled'],
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
    if (member === 'window_s' && !isWindowSeconds(raw))
      return fail(`whole seconds from ${MIN_WINDOW_S} to ${MAX_WINDOW_S}`);
    if (member === 'for_s' && raw !== null && !isForSeconds(raw))
      return fail(`whole seconds from 1 to ${MAX_FOR_S}, or null`);
    if (member === 'quiet_after_s') {
      const error = checkByKey(ruleName, param, raw, {
        keys: 'device type',
        isKey: isDeviceType,
        range: `whole seconds from ${MIN_QUIET_AFTER_S} to ${MAX_QUIET_AFTER_S}`,
        isValue: isQuietAfterSeconds,
      });
      if (error) return error;
    }
    if (member === 'drop_pct') {
      const error = checkByKey(ruleName, param, raw, {
        keys: `metric (${INTAKE_METRICS.join(', ')})`,
        isKey: (key) => INTAKE_METRICS.includes(key),
        range: `a percentage above ${MIN_DROP_PCT} (the recovery band) and at most ${MAX_DROP_PCT}`,
        isValue: isDropPct,
      });
      if (error) return error;
    }
  }
  return null;
}

/** A member that is one value for everything or an object of values by key (device type, metric). */
function checkByKey(
  ruleName: string,
  param: string,
  raw: unknown,
  spec: { keys: string; isKey: (key: string) => boolean; range: string; isValue: (v: unknown) => boolean },
): { param: string; message: string } | null {
  const member = param.slice(param.lastIndexOf('.') + 1);
  if (!isPlainObject(raw)) {
    if (spec.isValue(raw)) return null;
    return {
      param,
      message: `Rule ${ruleName}: ${member} must be ${spec.range}, or an object of them by ${spec.keys}; got ${describe(raw)}.`,
    };
  }
  for (const [key, v] of Object.entries(raw)) {
    if (!spec.isKey(key)) {
      return { param: `${param}.${key}`, message: `Rule ${ruleName}: "${key}" is not a ${spec.keys}.` };
    }
    if (!spec.isValue(v)) {
      return {
        param: `${param}.${key}`,
        message: `Rule ${ruleName}: ${member}.${key} must be ${spec.range}; got ${describe(v)}.`,
      };
    }
  }
  return null;
}

/** The API's words for a problem of order, in the catalog's units (clients may say it their own way). */
function checkOrder(
  rule: AlertRule,
  t: RuleThresholds,
  given: ReadonlySet<ThresholdMember>,
): { member: ThresholdMember; message: string } | null {
  const problem = thresholdOrderProblem(rule.direction, t, given);
  if (!problem) return null;
  const high = rule.direction === 'high';
  const head = `Rule ${rule.name} (${high ? 'high-side' : 'low-side'}, ${rule.metric})`;
  const message =
    problem.member === 'clear' || problem.other === 'clear'
      ? `${head}: clear (${t.clear}) must be ${high ? 'below' : 'above'} watch (${t.watch}), ` +
        'otherwise an alert could never resolve.'
      : `${head}: urgent (${t.urgent}) must be ${high ? 'at or above' : 'at or below'} watch (${t.watch}).`;
  return { member: problem.member, message };
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'number') return String(value);
  return JSON.stringify(value) ?? typeof value;
}
