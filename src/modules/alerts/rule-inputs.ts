/**
 * What the engine reads besides the report: the rules that apply to the reporting device and the change
 * over a rate rule's window (the queries live in repository.ts, with the sustained breach's).
 */
import type { Trx } from '../../db/schema.ts';
import { farmLeakRule, WATER_LEAK_RULE } from '../../domain/built-in-rules.ts';
import { farmRules } from '../../domain/rules.ts';
import { type EngineRule, findFarmRules, toEngineRule } from '../rules/repository.ts';
import type { IngestedReport } from './engine.ts';
import { findWindowReadings } from './repository.ts';

type Reading = IngestedReport['readings'][number];

/**
 * The defaults with the farm's overrides, then its enabled custom rules that apply to the reporting
 * device (type and id; group scope needs the animal, so it is checked per metric). One query per
 * report loads the custom rules.
 */
export async function loadRules(trx: Trx, report: IngestedReport): Promise<EngineRule[]> {
  // Overrides were validated when saved; farmRules ignores anything malformed.
  const defaults: EngineRule[] = farmRules(report.farm.settings).map((rule) => ({
    ...rule,
    scope: null,
    window_s: null,
  }));
  const leak = leakRule(report.farm.settings, report.device.type);
  if (leak) defaults.push(leak);
  const custom = (await findFarmRules(trx, report.farm.id, true))
    .map(toEngineRule)
    .filter(
      ({ scope }) =>
        (scope?.device_type == null || scope.device_type === report.device.type) &&
        (scope?.device_id == null || scope.device_id === report.device.id),
    );
  return [...defaults, ...custom];
}

/**
 * A rate rule judges each reading by how far the metric moved within the window before it: for a
 * falling rule the reading minus the highest stored reading in the window, for a rising one minus the
 * lowest. The stored readings (this report's included: ingest stores them first) come in one query.
 */
export async function changesOverWindow(
  trx: Trx,
  deviceId: string,
  rule: EngineRule,
  readings: readonly Reading[],
): Promise<Reading[]> {
  const first = readings[0];
  const last = readings.at(-1);
  if (!first || !last || rule.window_s === null) return [];
  const windowMs = rule.window_s * 1000;
  const stored = await findWindowReadings(trx, deviceId, rule.metric, first.at - windowMs, last.at);
  const falling = rule.direction === 'low';
  return readings.map((reading) => {
    let extreme = reading.value;
    for (const s of stored) {
      if (s.at < reading.at - windowMs || s.at > reading.at) continue;
      extreme = falling ? Math.max(extreme, s.value) : Math.min(extreme, s.value);
    }
    return { ...reading, value: reading.value - extreme };
  });
}

export function inGroupScope(rule: EngineRule, groups: ReadonlySet<string>): boolean {
  return rule.scope?.group_id == null || groups.has(rule.scope.group_id);
}

/**
 * water.leak as the engine runs it on a water device or a house: a rate rule like a custom one, its
 * lines derived from the change (watch at it, clear at half of it).
 */
export function leakRule(settingsText: string, deviceType: string): EngineRule | null {
  if (!(WATER_LEAK_RULE.device_types as readonly string[]).includes(deviceType)) return null;
  const leak = farmLeakRule(settingsText);
  if (!leak.enabled) return null;
  return {
    name: WATER_LEAK_RULE.name,
    title: WATER_LEAK_RULE.title,
    measure: WATER_LEAK_RULE.measure,
    metric: WATER_LEAK_RULE.metric,
    description: WATER_LEAK_RULE.description,
    direction: 'low',
    watch: leak.change,
    urgent: null,
    clear: leak.change / 2,
    for_s: leak.for_s,
    window_s: leak.window_s,
    scope: null,
  };
}
