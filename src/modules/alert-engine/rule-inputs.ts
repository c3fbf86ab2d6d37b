/**
 * What the engine works out before it runs the rules: the rules that apply to the reporting device, the
 * metrics to evaluate (their readings that are not late, given the watermarks the report's state read
 * moved: engine-repository.ts) and the change over a rate rule's window (its stored readings come with
 * the report's other state).
 */
import type { Trx } from '../../db/schema.ts';
import type { EngineRule } from '../rules/repository.ts';
import { inTimeOrder, type ReportReadings, rememberReadings } from './recent-readings.ts';
import type { IngestedReport } from './report.ts';
import type { RateWindow, ReadingSpan } from './repository.ts';
import { farmEngineRules, leakApplies } from './rule-cache.ts';

type Reading = IngestedReport['readings'][number];

/** A metric of the report with rules to run: its readings in time order, none older than its watermark. */
export interface MetricPlan {
  metric: string;
  rules: EngineRule[];
  readings: Reading[];
}

/**
 * The defaults with the farm's overrides, water.leak on a water device or a house, then the farm's enabled
 * custom rules that apply to the reporting device (type and id; group scope needs the animal, so it is
 * checked per metric). Parsed once per farm and rules version (rule-cache.ts).
 */
export async function loadRules(trx: Trx, report: IngestedReport): Promise<EngineRule[]> {
  const farm = await farmEngineRules(trx, report.farm);
  const rules = [...farm.defaults];
  if (farm.leak && leakApplies(report.device.type)) rules.push(farm.leak);
  for (const rule of farm.custom) {
    const scope = rule.scope;
    if (scope?.device_type != null && scope.device_type !== report.device.type) continue;
    if (scope?.device_id != null && scope.device_id !== report.device.id) continue;
    rules.push(rule);
  }
  return rules;
}

/**
 * A rate rule judges each reading by how far the metric moved within the window before it: for a
 * falling rule the reading minus the highest stored reading in the window, for a rising one minus the
 * lowest. `extremes` maps each reading time to that extreme over the device's stored readings (this
 * report's included: ingest stores them first; see windowExtremes).
 */
export function changesOverWindow(
  readings: readonly Reading[],
  extremes: ReadonlyMap<number, number>,
): Reading[] {
  return readings.map((reading) => ({
    ...reading,
    value: reading.value - (extremes.get(reading.at) ?? reading.value),
  }));
}

/** The readings in time order: themselves when already so, else a sorted copy. */
function timeOrdered(readings: Reading[]): Reading[] {
  return inTimeOrder(readings, (r) => r.at) ? readings : [...readings].sort((a, b) => a.at - b.at);
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
 * The report's metrics with rules in scope, in name order (the order their watermarks are locked in), each
 * with its readings in time order.
 */
export function metricCandidates(
  byMetric: ReadonlyMap<string, Reading[]>,
  rules: readonly EngineRule[],
): MetricPlan[] {
  return [...byMetric.keys()].sort().flatMap((metric) => {
    const metricRules = rules.filter((r) => r.metric === metric);
    return metricRules.length === 0
      ? []
      : [
          {
            metric,
            rules: metricRules,
            readings: timeOrdered(byMetric.get(metric) ?? []),
          },
        ];
  });
}

/** Where each candidate metric's watermark moves: its latest reading of the report (the last, in time order). */
export function watermarkMoves(candidates: readonly MetricPlan[]): Array<{ metric: string; at: number }> {
  return candidates.map((c) => ({ metric: c.metric, at: c.readings.at(-1)?.at ?? -Infinity }));
}

/**
 * Each metric's readings that are not late, given the watermarks as they were before this report moved
 * them: a reading older than one already evaluated for this device and metric is ignored.
 */
export function plansAfterWatermarks(
  candidates: readonly MetricPlan[],
  watermarks: ReadonlyMap<string, number | null>,
): MetricPlan[] {
  return candidates.flatMap((c) => {
    const watermark = watermarks.get(c.metric) ?? null;
    const readings = c.readings.filter((r) => watermark === null || r.at >= watermark);
    return readings.length === 0 ? [] : [{ ...c, readings }];
  });
}

/**
 * The rate windows the rules need, one per metric, window length and direction (two rules alike share
 * one, keyed by windowOf), each over the metric's readings of this report, from its first to its last.
 */
export function rateWindows(plans: readonly MetricPlan[]): Map<string, RateWindow> {
  const windows = new Map<string, RateWindow>();
  for (const { metric, rules, readings } of plans) {
    const first = readings[0];
    const last = readings.at(-1);
    if (!first || !last) continue;
    for (const rule of rules) {
      if (rule.window_s === null) continue;
      const window = windowOf(metric, rule);
      windows.set(window, {
        metric,
        window_ms: rule.window_s * 1000,
        falling: rule.direction === 'low',
        first: first.at,
        last: last.at,
      });
    }
  }
  return windows;
}

/** A metric's span of stored readings, and its longest window (how far back its windows reach). */
export interface MetricSpan extends ReadingSpan {
  keepMs: number;
}

/** The stored readings the windows need, one span per metric (its longest window's worth before its first). */
export function readingSpans(windows: Iterable<RateWindow>): MetricSpan[] {
  const spans = new Map<string, MetricSpan>();
  for (const w of windows) {
    const span = spans.get(w.metric);
    const from = w.first - w.window_ms;
    if (!span) {
      spans.set(w.metric, { metric: w.metric, from, keepMs: w.window_ms });
    } else {
      span.from = Math.min(span.from, from);
      span.keepMs = Math.max(span.keepMs, w.window_ms);
    }
  }
  return [...spans.values()];
}

/**
 * A window's extremes from its metric's stored readings ([at, value] in time order, at least the
 * window's span): for each reading time from `first` to `last`, the highest (falling) or lowest value at
 * a time in [that time - window_ms, that time], both ends included. One pass with a monotonic queue of
 * candidates: each reading enters and leaves it once.
 */
export function windowExtremes(
  stored: ReadonlyArray<readonly [number, number]>,
  w: RateWindow,
): Map<number, number> {
  const ats = stored.map((r) => r[0]);
  const values = stored.map((r) => r[1]);
  const better = w.falling ? (a: number, b: number) => a >= b : (a: number, b: number) => a <= b;
  // Indexes of the readings that can still be a later window's extreme, oldest first, each one's value
  // worse than the one before it; the head is the current window's extreme.
  const queue: number[] = [];
  let head = 0;
  let entered = 0;
  const out = new Map<number, number>();
  for (const at of ats) {
    if (at < w.first || at > w.last || out.has(at)) continue;
    for (; entered < ats.length && (ats[entered] as number) <= at; entered++) {
      const value = values[entered] as number;
      while (queue.length > head && better(value, values[queue.at(-1) as number] as number)) queue.pop();
      queue.push(entered);
    }
    while ((ats[queue[head] as number] as number) < at - w.window_ms) head++;
    out.set(at, values[queue[head] as number] as number);
  }
  return out;
}

/**
 * Each rate window's extremes, from its metric's stored readings: those this process knew (`known`, per
 * span) or else the next of those read (`read`, in span order). What was used is kept for the device's
 * next report.
 */
export function rateExtremes(
  windows: ReadonlyMap<string, RateWindow>,
  spans: readonly MetricSpan[],
  known: ReadonlyArray<Array<[number, number]> | null>,
  read: ReadonlyArray<Array<[number, number]>>,
  recent: ReportReadings | null,
): Map<string, Map<number, number>> {
  let next = 0;
  const stored = spans.map((span, i) => ({ span, rows: known[i] ?? read[next++] ?? [] }));
  if (recent) rememberReadings(recent, stored);
  // One span a metric: its windows (of several lengths or sides) all read from it.
  const rows = new Map(stored.map((s) => [s.span.metric, s.rows]));
  return new Map([...windows].map(([key, w]) => [key, windowExtremes(rows.get(w.metric) ?? [], w)]));
}

/** The key of a rule's rate window: the rules sharing one read it once. */
export function windowOf(metric: string, rule: EngineRule): string {
  return `${metric} ${rule.window_s} ${rule.direction}`;
}

export function inGroupScope(rule: EngineRule, groups: ReadonlySet<string>): boolean {
  return rule.scope?.group_id == null || groups.has(rule.scope.group_id);
}
