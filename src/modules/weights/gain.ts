/**
 * Gain arithmetic on an animal's weights, with no database: the gain since the weight before, the average
 * daily gain (ADG) over a period, the projection to today, a group's figures and a session's histogram.
 * Weights are epoch ms and kg; gains kg/day, rounded to 3 decimals (grams a day).
 */
import { MAX_PROJECTION_DAYS, MIN_GAIN_INTERVAL_DAYS } from '../../domain/weights.ts';
import { DAY_MS } from '../../lib/time.ts';

export interface Weighing {
  at: number;
  kg: number;
}

const round = (n: number, digits: number) => {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
};
export const roundGain = (n: number) => round(n, 3);
export const roundKg = (n: number) => round(n, 1);

/** kg/day from `before` to `after`, or null when they are less than a day apart (no meaningful gain). */
export function gainBetween(before: Weighing, after: Weighing): number | null {
  const days = (after.at - before.at) / DAY_MS;
  if (days < MIN_GAIN_INTERVAL_DAYS) return null;
  return roundGain((after.kg - before.kg) / days);
}

/** Each weight (oldest first) with its gain since the one before; the first's is null. */
export function withGains<T extends Weighing>(oldestFirst: readonly T[]): Array<T & { gain: number | null }> {
  return oldestFirst.map((w, i) => {
    const before = i > 0 ? oldestFirst[i - 1] : undefined;
    return { ...w, gain: before ? gainBetween(before, w) : null };
  });
}

/** ADG over the weights given (oldest first): from the first to the last; null with fewer than two a day apart. */
export function adgOver(oldestFirst: readonly Weighing[]): number | null {
  const first = oldestFirst[0];
  const last = oldestFirst[oldestFirst.length - 1];
  if (!first || !last || first === last) return null;
  return gainBetween(first, last);
}

/**
 * The weight projected to `now` from the latest weight and the latest gain, never further than 90 days past
 * the latest weight (issue 47): `at` is where the projection stops. Null without a gain.
 */
export function projection(
  latest: Weighing | undefined,
  latestGain: number | null,
  now: number,
): { kg: number; at: number } | null {
  if (!latest || latestGain === null) return null;
  const at = Math.min(Math.max(now, latest.at), latest.at + MAX_PROJECTION_DAYS * DAY_MS);
  return { kg: roundKg(latest.kg + (latestGain * (at - latest.at)) / DAY_MS), at };
}

export interface Spread {
  mean_kg: number | null;
  min_kg: number | null;
  max_kg: number | null;
  /** Population standard deviation of the weights. */
  sd_kg: number | null;
}

export function spreadOf(kgs: readonly number[]): Spread {
  if (kgs.length === 0) return { mean_kg: null, min_kg: null, max_kg: null, sd_kg: null };
  let sum = 0;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const kg of kgs) {
    sum += kg;
    if (kg < min) min = kg;
    if (kg > max) max = kg;
  }
  const mean = sum / kgs.length;
  let squares = 0;
  for (const kg of kgs) squares += (kg - mean) ** 2;
  return {
    mean_kg: roundKg(mean),
    min_kg: min,
    max_kg: max,
    sd_kg: roundKg(Math.sqrt(squares / kgs.length)),
  };
}

export function meanOf(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  return values.reduce((a, b) => a + b, 0) / values.length;
}

/** Bin widths a histogram may take, in kg: the smallest giving at most 12 bins. */
const BIN_WIDTHS = [1, 2, 5, 10, 20, 25, 50, 100, 200];
const MAX_BINS = 12;

export interface HistogramBin {
  from_kg: number;
  to_kg: number;
  count: number;
}

/** Weights counted in bins of a round width (`from_kg` inclusive, `to_kg` exclusive), low to high. */
export function histogramOf(kgs: readonly number[]): HistogramBin[] {
  if (kgs.length === 0) return [];
  const { min_kg: min, max_kg: max } = spreadOf(kgs) as { min_kg: number; max_kg: number };
  const width =
    BIN_WIDTHS.find((w) => Math.floor(max / w) - Math.floor(min / w) + 1 <= MAX_BINS) ??
    (BIN_WIDTHS[BIN_WIDTHS.length - 1] as number);
  const start = Math.floor(min / width) * width;
  const bins: HistogramBin[] = [];
  for (let from = start; from <= max; from += width)
    bins.push({ from_kg: from, to_kg: from + width, count: 0 });
  for (const kg of kgs) {
    const bin = bins[Math.floor((kg - start) / width)];
    if (bin) bin.count++;
  }
  return bins;
}
