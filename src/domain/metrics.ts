/**
 * The metrics the spec names. Devices may report any metric name and the service stores all of
 * them; these are the ones with a documented unit and meaning (and, for some, a default alert rule).
 */
import type { CatalogUnitName } from './units.ts';

export type Metric = {
  readonly name: string;
  /**
   * The unit the metric is stored and judged in; devices may report it in another the unit registry accepts
   * (units.ts), which is converted.
   */
  readonly unit: CatalogUnitName;
  readonly meaning: string;
  /**
   * The lowest value that can be a measurement at all, in `unit` (below absolute zero, a negative weight): a
   * reading below it is refused. Metrics a sensor's noise may take a little below zero (a tank level, a solar
   * input at night) have none.
   */
  readonly floor?: number;
};

/** Absolute zero in °C: no temperature is lower. */
const ABSOLUTE_ZERO_C = -273.15;

/**
 * The largest magnitude any reading may have, catalog metric or not: far beyond any farm measure or
 * counter, and small enough that sums and means of millions of readings stay finite on both engines.
 */
export const MAX_READING_MAGNITUDE = 1e15;

export const METRICS = Object.freeze([
  { name: 'feed.bin_pct', unit: '%', meaning: 'feed left in the bin' },
  { name: 'feed.dispensed_kg', unit: 'kg', meaning: 'feed delivered since last report' },
  { name: 'water.tank_pct', unit: '%', meaning: 'header tank or trough level' },
  { name: 'water.used_l', unit: 'L', meaning: 'water used since last report' },
  {
    name: 'climate.temp_c',
    unit: '°C',
    meaning: 'air temperature at bird height or at the station',
    floor: ABSOLUTE_ZERO_C,
  },
  { name: 'climate.humidity_pct', unit: '%', meaning: 'relative humidity' },
  { name: 'climate.nh3_ppm', unit: 'ppm', meaning: 'ammonia at bird height' },
  { name: 'climate.co2_ppm', unit: 'ppm', meaning: 'carbon dioxide at bird height' },
  { name: 'power.battery_pct', unit: '%', meaning: 'house battery state of charge' },
  { name: 'power.solar_w', unit: 'W', meaning: 'solar input' },
  { name: 'power.load_w', unit: 'W', meaning: 'total electrical load' },
  { name: 'move.distance_m', unit: 'm', meaning: 'distance moved since last report' },
  { name: 'birds.inside', unit: 'birds', meaning: 'birds counted inside' },
  { name: 'body.temp_c', unit: '°C', meaning: 'body or rumen temperature', floor: ABSOLUTE_ZERO_C },
  { name: 'rumination.min', unit: 'min', meaning: 'rumination minutes in the last report window' },
  {
    name: 'activity.index',
    unit: 'index',
    meaning: "activity relative to the animal's own baseline (100 = normal)",
  },
  {
    name: 'weight.kg',
    unit: 'kg',
    meaning: 'weight from a scale head, matched to the animal by EID',
    floor: 0,
  },
  { name: 'water.flow_lpm', unit: 'L/min', meaning: 'flow through line or pump' },
  { name: 'rain.mm', unit: 'mm', meaning: 'rain since last report' },
  { name: 'wind.kph', unit: 'km/h', meaning: 'wind speed' },
  { name: 'device.battery_pct', unit: '%', meaning: 'tracker or sensor battery' },
] as const satisfies readonly Metric[]);

/** A metric the spec names; a misspelt one fails to compile. Devices may still report any name. */
export type MetricName = (typeof METRICS)[number]['name'];

export const METRIC_BY_NAME: ReadonlyMap<string, Metric> = new Map(METRICS.map((m) => [m.name, m]));

/** The catalog unit of a metric the spec names; null for any other name. */
export function unitOf(metric: string): string | null {
  return METRIC_BY_NAME.get(metric)?.unit ?? null;
}

/**
 * Why a value (in the catalog's unit for a catalog metric) cannot be a measurement, or null: not finite, of a
 * magnitude beyond MAX_READING_MAGNITUDE, or below the metric's floor (below absolute zero, a negative weight).
 */
export function impossibleValue(metric: string, value: number, unit: string | null): string | null {
  const shown = unit ? ` ${unit}` : '';
  if (!Number.isFinite(value)) return `is out of range${unit ? ` in ${unit}` : ''}`;
  if (Math.abs(value) > MAX_READING_MAGNITUDE)
    return `${value}${shown} is beyond ±${MAX_READING_MAGNITUDE.toExponential()}, the largest a reading may be`;
  const floor = METRIC_BY_NAME.get(metric)?.floor;
  if (floor !== undefined && value < floor)
    return `${value}${shown} is below ${floor}${shown}, the lowest a ${metric} can be`;
  return null;
}
