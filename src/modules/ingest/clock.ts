/**
 * Device clocks: a reading or event dated more than the tolerance ahead of the server's clock is not
 * stored. A device whose clock was never set reports 2030; stored, such a reading would stand as the
 * device's latest value and hold its alert watermark ahead of every real reading for years. The report's
 * other readings and events are stored, and the answer lists what was refused and why.
 */
import { DEFAULT_MAX_CLOCK_SKEW_S } from '../../config.ts';
import { toIso } from '../../lib/time.ts';
import type { PreparedReading } from '../readings/service.ts';

/** Why a reading or event was not stored: its time is too far ahead of the server's clock. */
export const CLOCK_AHEAD = 'clock_ahead';

/** The tolerance a caller that sets none gets (ingest's callers pass FARMSTEAD_MAX_CLOCK_SKEW_S). */
export const DEFAULT_MAX_CLOCK_SKEW_MS = DEFAULT_MAX_CLOCK_SKEW_S * 1000;

export interface RefusedReading {
  index: number;
  metric: string;
  at: string;
  reason: typeof CLOCK_AHEAD;
  message: string;
}

export interface RefusedEvent {
  index: number;
  type: string;
  at: string;
  reason: typeof CLOCK_AHEAD;
  message: string;
}

/** "2030-01-01T00:00:00.000Z is 3 years ahead of the server's clock (tolerance 300 s)". */
function aheadMessage(at: number, now: number, skewMs: number): string {
  return `${toIso(at)} is ${aheadBy(at - now)} ahead of the server's clock (${toIso(now)}; tolerance ${Math.round(skewMs / 1000)} s): not stored. Set the device's clock, or leave at out to use the time of receipt.`;
}

function aheadBy(ms: number): string {
  const units: Array<[number, string]> = [
    [365.25 * 86_400_000, 'year'],
    [86_400_000, 'day'],
    [3_600_000, 'hour'],
    [60_000, 'minute'],
  ];
  for (const [size, name] of units) {
    const n = Math.floor(ms / size);
    if (n >= 1) return `${n} ${name}${n === 1 ? '' : 's'}`;
  }
  return `${Math.round(ms / 1000)} seconds`;
}

/** The newest time a report may carry: the server's clock plus the tolerance. */
export function latestAllowed(now: number, skewMs: number): number {
  return now + skewMs;
}

/**
 * Splits a report's readings and events into those stored and those refused for a time too far ahead.
 * The common case (nothing ahead) returns the same arrays.
 */
export function refuseFutureTimes<E extends { type: string; at: number }>(
  readings: PreparedReading[],
  events: E[],
  now: number,
  skewMs: number,
): {
  readings: PreparedReading[];
  events: E[];
  refused: RefusedReading[];
  refusedEvents: RefusedEvent[];
  /** Per reading as sent: whether it is stored (absent when every one is). */
  kept: boolean[] | null;
  /** The furthest time refused (epoch ms), null when none was. */
  furthest: number | null;
} {
  const bound = latestAllowed(now, skewMs);
  let furthest: number | null = null;
  // The hot path (every report): two plain passes, nothing allocated when nothing is ahead.
  for (const r of readings) if (r.at > bound) furthest = Math.max(furthest ?? r.at, r.at);
  for (const e of events) if (e.at > bound) furthest = Math.max(furthest ?? e.at, e.at);
  if (furthest === null) return { readings, events, refused: [], refusedEvents: [], kept: null, furthest };
  const readingsAhead = readings.some((r) => r.at > bound);
  const refused: RefusedReading[] = [];
  const kept = readings.map((r, index) => {
    if (r.at <= bound) return true;
    refused.push({
      index,
      metric: r.metric,
      at: toIso(r.at),
      reason: CLOCK_AHEAD,
      message: aheadMessage(r.at, now, skewMs),
    });
    return false;
  });
  const refusedEvents: RefusedEvent[] = [];
  const storedEvents = events.filter((e, index) => {
    if (e.at <= bound) return true;
    refusedEvents.push({
      index,
      type: e.type,
      at: toIso(e.at),
      reason: CLOCK_AHEAD,
      message: aheadMessage(e.at, now, skewMs),
    });
    return false;
  });
  return {
    readings: readings.filter((_, i) => kept[i]),
    events: storedEvents,
    refused,
    refusedEvents,
    kept: readingsAhead ? kept : null,
    furthest,
  };
}
