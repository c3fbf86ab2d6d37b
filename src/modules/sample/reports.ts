/**
 * A device's generated day cut into ingest reports. As few reports as possible (each carries up to
 * 1,000 readings with their own times), but a report ends at every reading that moves a metric to
 * another alert level and at every device event, so each alert opens, escalates and resolves at the
 * time its reading was taken (the alert engine times alerts by the report).
 */
import { type AlertRule, classifyReading, DEFAULT_RULES, rulesForMetric } from '../../domain/rules.ts';
import { toIso } from '../../lib/time.ts';
import type { IngestInput } from '../ingest/schemas.ts';
import { MAX_READINGS_PER_REPORT } from '../readings/service.ts';
import type { DeviceSeries, Tick } from './series.ts';

export interface PlannedReport {
  /** When the device sent it: the time of its last reading or event. */
  at: number;
  body: IngestInput;
}

/** Groups ticks into reports; see the module comment for where reports end. */
export function planReports(
  series: DeviceSeries,
  rules: readonly AlertRule[] = DEFAULT_RULES,
): PlannedReport[] {
  const ticks = [...series.ticks].sort((a, b) => a.at - b.at);
  const groups: Tick[][] = [];
  let current: Tick[] = [];
  let size = 0;
  const levels = new Map<string, string>();
  for (const tick of ticks) {
    if (size + tick.readings.length > MAX_READINGS_PER_REPORT && current.length > 0) {
      groups.push(current);
      current = [];
      size = 0;
    }
    current.push(tick);
    size += tick.readings.length;
    let boundary = tick.events.length > 0;
    for (const reading of tick.readings) {
      for (const rule of rulesForMetric(rules, reading.metric)) {
        const level = classifyReading(rule, reading.value);
        if (level === 'between') continue;
        const key = `${rule.name} ${reading.metric}`;
        const previous = levels.get(key) ?? 'clear';
        if (level !== previous) boundary = true;
        levels.set(key, level);
      }
    }
    if (boundary) {
      groups.push(current);
      current = [];
      size = 0;
    }
  }
  if (current.length > 0) groups.push(current);

  return groups.map((group, i) => {
    const last = i === groups.length - 1;
    const readings = group.flatMap((t) =>
      t.readings.map((r) => ({
        metric: r.metric,
        value: r.value,
        ...(r.unit ? { unit: r.unit } : {}),
        at: toIso(t.at),
      })),
    );
    const events = group.flatMap((t) =>
      t.events.map((e) => ({ type: e.type, data: e.data, at: toIso(e.at) })),
    );
    const body: IngestInput = {
      ...(readings.length > 0 ? { readings } : {}),
      ...(events.length > 0 ? { events } : {}),
      // Battery, position and state come with the device's latest report.
      ...(last && series.battery !== null ? { battery: series.battery } : {}),
      ...(last && series.position ? { lat: series.position.lat, lon: series.position.lon } : {}),
      ...(last && series.state ? { state: series.state } : {}),
    };
    return { at: Math.max(...group.map((t) => t.at)), body };
  });
}
