/**
 * The built-in rules as a farm has them, as API Rules: the seven threshold defaults with its overrides,
 * then water.leak, device.quiet, group.intake_drop and device.clock with their settings from `settings.rules`.
 * `GET /v1/farms/{farm}/rules`, MCP `list_rules` and the check of a settings change all read them here.
 */
import {
  DEVICE_CLOCK_RULE,
  DEVICE_QUIET_RULE,
  farmClockRule,
  farmIntakeRule,
  farmLeakRule,
  farmQuietRule,
  INTAKE_DROP_RULE,
  WATER_LEAK_RULE,
} from '../../domain/built-in-rules.ts';
import { DEVICE_TYPES } from '../../domain/devices.ts';
import { farmRules } from '../../domain/rules.ts';
import type { Rule } from './schemas.ts';

/** The members no built-in rule has (no id, scope or timestamps), and those only some kinds fill. */
function builtIn(farmId: string): Rule {
  return {
    id: null,
    farm_id: farmId,
    name: '',
    source: 'default',
    kind: 'threshold',
    metric: null,
    direction: null,
    watch: null,
    urgent: null,
    clear: null,
    device_type: null,
    device_id: null,
    group_id: null,
    for_s: null,
    change: null,
    window_s: null,
    quiet_after_s: null,
    drop_pct: null,
    enabled: true,
    description: null,
    created_at: null,
    updated_at: null,
  };
}

/** Every built-in rule of a farm with the farm's `settings` (its stored text) applied. */
export function builtInRules(farmId: string, settingsText: string): Rule[] {
  const base = builtIn(farmId);
  const thresholds: Rule[] = farmRules(settingsText).map((r) => ({
    ...base,
    name: r.name,
    metric: r.metric,
    direction: r.direction === 'high' ? 'above' : 'below',
    watch: r.watch,
    urgent: r.urgent,
    clear: r.clear,
    for_s: r.for_s,
    description: r.description,
  }));
  const leak = farmLeakRule(settingsText);
  const quiet = farmQuietRule(settingsText);
  const intake = farmIntakeRule(settingsText);
  return [
    ...thresholds,
    {
      ...base,
      name: WATER_LEAK_RULE.name,
      kind: WATER_LEAK_RULE.kind,
      metric: WATER_LEAK_RULE.metric,
      // The engine runs it on the change over the window: watch at the change, clear at half of it.
      direction: 'below',
      watch: leak.change,
      clear: leak.change / 2,
      for_s: leak.for_s,
      change: leak.change,
      window_s: leak.window_s,
      enabled: leak.enabled,
      description: WATER_LEAK_RULE.description,
    },
    {
      ...base,
      name: DEVICE_QUIET_RULE.name,
      kind: DEVICE_QUIET_RULE.kind,
      quiet_after_s: Object.fromEntries(DEVICE_TYPES.map((t) => [t, quiet.quietAfterS(t)])),
      enabled: quiet.enabled,
      description: DEVICE_QUIET_RULE.description,
    },
    {
      ...base,
      name: INTAKE_DROP_RULE.name,
      kind: INTAKE_DROP_RULE.kind,
      drop_pct: Object.fromEntries(intake.metrics.map((m) => [m.metric, m.drop_pct])),
      enabled: intake.enabled,
      description: INTAKE_DROP_RULE.description,
    },
    {
      ...base,
      name: DEVICE_CLOCK_RULE.name,
      kind: DEVICE_CLOCK_RULE.kind,
      enabled: farmClockRule(settingsText).enabled,
      description: DEVICE_CLOCK_RULE.description,
    },
  ];
}
