/**
 * What the engine works out before it runs the rules: the rules that apply to the reporting device, the
 * metrics to evaluate (their readings that are not late, after one watermark upsert for all of them) and
 * the change over a rate rule's window (its stored readings come with the report's other state, in one
 * select: engine-repository.ts).
 */
import type { Trx } from '../../db/schema.ts';
import { farmLeakRule, WATER_LEAK_RULE } from '../../domain/built-in-rules.ts';
import { farmRules } from '../../domain/rules.ts';
import { type EngineRule, findFarmRules, toEngineRule } from '../rules/repository.ts';
import type { IngestedReport } from './engine.ts';
import { advanceWatermarks, type RateWindow } from './engine-repository.ts';

type Reading = IngestedReport['readings'][number];

/** A metric of the report with rules to run: its readings in time order, none older than its watermark. */
export interface MetricPlan {
  metric: string;
  rules: EngineRule[];
  readings: Reading[];
}

/**
 * The defaults with the farm's overrides, then its enabled custom rules that apply to the reporting
 * device (type and id; group scope needs the animal, so it is checked per metric). The custom rules come
 * with the report when ingest read them already (PostgreSQL, in its first statement), else in one query.
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
  const custom = (report.customRules ?? (await findFarmRules(trx, report.farm.id, true)))
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
 * lowest. `stored` holds the device's readings of the metric from the first reading's window start to
 * the last reading (this report's included: ingest stores them first).
 */
export function changesOverWindow(
  rule: EngineRule,
  readings: readonly Reading[],
  stored: ReadonlyArray<{ at: number; value: number }>,
): Reading[] {
  if (rule.window_s === null) return [];
  const windowMs = rule.window_s * 1000;
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

/** The report's finite readings of metrics some rule watches, by metric. */
export function readingsByMetric(
  readings: readonly Reading[],
  rules: readonly EngineRule[],
): Map<string, Reading[]> {
  const watched = new Set(rules.map((r) => r.metric));
  const byMetric = new Map<string, Reading[]>();
  for (const reading of readings) {
    if (!Number.isFinite(reading.value) || !watched.has(reading.metric)) continue;
    const list = byMetric.get(reading.metric) ?? [];
    list.push(reading);
    byMetric.set(reading.metric, list);
  }
  return byMetric;
}

/**
 * Locks and moves the watermarks of the metrics with rules in scope (in one statement, metrics in name
 * order, see advanceWatermarks), then keeps each metric's readings that are not late: a reading older
 * than one already evaluated for this device and metric is ignored.
 */
export async function planMetrics(
  trx: Trx,
  report: IngestedReport,
  byMetric: ReadonlyMap<string, Reading[]>,
  rules: readonly EngineRule[],
): Promise<MetricPlan[]> {
  const candidates = [...byMetric.keys()].sort().flatMap((metric) => {
    const metricRules = rules.filter((r) => r.metric === metric);
    return metricRules.length === 0
      ? []
      : [{ metric, rules: metricRules, readings: byMetric.get(metric) ?? [] }];
  });
  const watermarks = await advanceWatermarks(
    trx,
    { farmId: report.farm.id, deviceId: report.device.id },
    candidates.map((c) => ({
      metric: c.metric,
      at: c.readings.reduce((max, r) => Math.max(max, r.at), -Infinity),
    })),
  );
  return candidates.flatMap((c) => {
    const watermark = watermarks.get(c.metric) ?? null;
    const readings = c.readings
      .filter((r) => watermark === null || r.at >= watermark)
      .sort((a, b) => a.at - b.at);
    return readings.length === 0 ? [] : [{ ...c, readings }];
  });
}

/**
 * The stored readings the rate rules' windows reach back to: their metrics over one span, from the
 * earliest window start to the latest reading (one index range per metric; changesOverWindow keeps
 * each reading's own window). Null when no rate rule runs.
 */
export function rateWindow(plans: readonly MetricPlan[]): RateWindow | null {
  let window: RateWindow | null = null;
  for (const { metric, rules, readings } of plans) {
    const windowS = Math.max(0, ...rules.map((r) => r.window_s ?? 0));
    const first = readings[0];
    const last = readings.at(-1);
    if (windowS === 0 || !first || !last) continue;
    const from = first.at - windowS * 1000;
    window = window
      ? {
          metrics: [...window.metrics, metric],
          from: Math.min(window.from, from),
          to: Math.max(window.to, last.at),
        }
      : { metrics: [metric], from, to: last.at };
  }
  return window;
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
