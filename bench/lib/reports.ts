/**
 * The device reports the ingest benchmarks send, and the same rows as the raw-insert reference stores
 * them. A house reports ten metrics once a minute; a 100-reading report is ten minutes of them. Five
 * of the ten metrics have alert rules, so the alert engine evaluates every report; values stay in the
 * normal band except for an ammonia excursion every 40th report (opens an alert, the next clears it).
 * The water tank falls 10 points over 40 minutes and refills (15 points an hour, the busiest normal draw
 * water.leak allows for); until 2026-12-01 it fell 40 points in 40 minutes, a leak by the rule added after
 * this load was written, so water.leak opened and cleared an alert every fourth report (BENCHMARKS.md).
 */
import { METRIC_BY_NAME } from '../../src/domain/metrics.ts';

const METRICS: ReadonlyArray<readonly [string, (step: number) => number]> = [
  ['climate.temp_c', (s) => 20 + (s % 40) / 10],
  ['climate.nh3_ppm', (s) => 6 + (s % 30) / 10],
  ['climate.humidity_pct', (s) => 55 + (s % 20)],
  ['climate.co2_ppm', (s) => 900 + (s % 200)],
  ['feed.bin_pct', (s) => 90 - (s % 50)],
  ['water.tank_pct', (s) => 80 - (s % 40) / 4],
  ['power.battery_pct', (s) => 70 + (s % 25)],
  ['power.solar_w', (s) => 200 + (s % 300)],
  ['power.load_w', (s) => 80 + (s % 40)],
  ['birds.inside', (s) => 400 + (s % 50)],
];

export interface BenchReading {
  metric: string;
  value: number;
  unit: string | null;
  at: number;
}

/**
 * Report `seq` of a device: `size` readings (10 metrics × size/10 minutes), times continuing where
 * the previous report ended, from `origin`.
 */
export function reportReadings(origin: number, seq: number, size: number): BenchReading[] {
  const out: BenchReading[] = [];
  const minutes = Math.max(1, Math.ceil(size / METRICS.length));
  for (let m = 0; m < minutes; m++) {
    const step = seq * minutes + m;
    const at = origin + step * 60_000;
    for (const [metric, value] of METRICS) {
      if (out.length === size) break;
      let v = value(step);
      if (metric === 'climate.nh3_ppm' && seq % 40 === 39) v = 26;
      out.push({ metric, value: v, unit: METRIC_BY_NAME.get(metric)?.unit ?? null, at });
    }
  }
  return out;
}

/** The JSON body of that report, as a device sends it (ISO times, units left to the catalog). */
export function reportBody(origin: number, seq: number, size: number): string {
  const readings = reportReadings(origin, seq, size).map((r) => ({
    metric: r.metric,
    value: r.value,
    at: new Date(r.at).toISOString(),
  }));
  return JSON.stringify({ readings });
}

/**
 * Where a run's readings start: a year back. Each load's readings run forward from its origin (a
 * 100-reading report covers 10 minutes of a device's time, and phases start 30 days apart), and the ingest
 * service refuses readings dated more than FARMSTEAD_MAX_CLOCK_SKEW_S ahead of the server's clock: a load
 * starting at now would soon be measuring refusals, not stored readings.
 */
export function pastOrigin(): number {
  return Date.now() - 365 * 86_400_000;
}
