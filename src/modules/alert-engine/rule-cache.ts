/**
 * A farm's rules as the alert engine runs them, kept per process: the defaults with the farm's overrides,
 * water.leak's settings and the enabled custom rules, parsed once instead of on every report. An entry is
 * used only while the farm row the report read (in the report's transaction) shows the same rules version
 * and settings text: every change to a farm's custom rules bumps `farms.rules_version` in its own
 * transaction (rules/repository.ts), and overrides live in the settings text, so a change is seen by the
 * next report in every process. The map holds at most MAX_FARMS farms, forgetting the longest unused.
 */
import type { Trx } from '../../db/schema.ts';
import { farmLeakRule, WATER_LEAK_RULE } from '../../domain/built-in-rules.ts';
import { farmRules } from '../../domain/rules.ts';
import type { FarmRow } from '../farms/access.ts';
import { type EngineRule, findFarmRules, toEngineRule } from '../rules/repository.ts';

export interface FarmEngineRules {
  /** The threshold defaults with the farm's overrides. */
  defaults: readonly EngineRule[];
  /** water.leak as the engine runs it (null: turned off); it applies to water devices and houses only. */
  leak: EngineRule | null;
  /** The farm's enabled custom rules, in creation order, whatever their scope. */
  custom: readonly EngineRule[];
}

/** What the engine reads of a report's farm: its id, settings (threshold overrides) and rules version. */
export type EngineFarm = Pick<FarmRow, 'id' | 'settings' | 'rules_version'>;

const MAX_FARMS = 10_000;
const cache = new Map<string, { version: number; settings: string; rules: FarmEngineRules }>();

/** The farm's rules for a report: as cached, or (a new farm for this process, or a newer version) read now. */
export async function farmEngineRules(trx: Trx, farm: EngineFarm): Promise<FarmEngineRules> {
  const version = Number(farm.rules_version);
  const entry = cache.get(farm.id);
  if (entry && entry.version === version && entry.settings === farm.settings) {
    // Most recently used last, so the first key is the one to forget.
    cache.delete(farm.id);
    cache.set(farm.id, entry);
    return entry.rules;
  }
  const custom = (await findFarmRules(trx, farm.id, true)).map(toEngineRule);
  const rules = { defaults: defaultRules(farm.settings), leak: leakRule(farm.settings), custom };
  cache.delete(farm.id);
  if (cache.size >= MAX_FARMS) cache.delete(cache.keys().next().value ?? '');
  cache.set(farm.id, { version, settings: farm.settings, rules });
  return rules;
}

function defaultRules(settingsText: string): EngineRule[] {
  // Overrides were validated when saved; farmRules ignores anything malformed.
  return farmRules(settingsText).map((rule) => ({ ...rule, scope: null, window_s: null }));
}

/**
 * water.leak as the engine runs it: a rate rule like a custom one, its lines derived from the change
 * (watch at it, clear at half of it). Null when the farm turned it off.
 */
function leakRule(settingsText: string): EngineRule | null {
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

/** Whether water.leak runs on a device of this type. */
export function leakApplies(deviceType: string): boolean {
  return (WATER_LEAK_RULE.device_types as readonly string[]).includes(deviceType);
}
