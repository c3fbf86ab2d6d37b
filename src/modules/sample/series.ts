import { zoneOffsetMs } from '../../lib/local-time.ts';
import { mulberry32 } from '../../lib/random.ts';
import { darknessAt, isDark, solarElevation } from '../../lib/solar.ts';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../lib/time.ts';

export interface SeriesReading {
  metric: string;
  value: number;
  unit?: string;
}

export interface SeriesEvent {
  type: string;
  data: Record<string, unknown>;
  at: number;
}

/** One moment a device measured something (and possibly saw an event). */
export interface Tick {
  at: number;
  readings: SeriesReading[];
  events: SeriesEvent[];
}

export interface DeviceSeries {
  ticks: Tick[];
  /** Sent as the `battery` member with the last report. */
  battery: number | null;
  /** Sent with the last report (trackers and a moving house report where they are). */
  position: { lat: number; lon: number } | null;
  /** Merged into the device state with the last report. */
  state: Record<string, unknown> | null;
}

export interface SeriesContext {
  now: number;
  timezone: string;
  lat: number;
  lon: number;
}

/** How far back the sample's readings go. */
export const SERIES_SPAN_MS = DAY_MS;
/** The weather station stopped reporting this long ago (the sample's quiet device). */
export const WEATHER_SILENT_MS = 7 * HOUR_MS;

function seedOf(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** Roughly normal noise of the given spread (sum of three uniforms). */
export function noiseSource(key: string): (spread: number) => number {
  const next = mulberry32(seedOf(key));
  return (spread) => (next() + next() + next() - 1.5) * spread;
}

export const round = (value: number, places = 1): number => {
  const f = 10 ** places;
  return Math.round(value * f) / f;
};

export const clamp = (value: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, value));

/** Tick times every `cadence` ms on the clock grid, oldest first, within the last 24 h (up to `until`). */
export function tickTimes(now: number, cadence: number, until: number = now): number[] {
  const last = Math.floor(until / cadence) * cadence;
  const out: number[] = [];
  for (let at = last; at > now - SERIES_SPAN_MS; at -= cadence) out.push(at);
  return out.reverse();
}

/** Helpers bound to the farm's place and the moment of seeding. */
export class SampleClock {
  readonly now: number;
  readonly lat: number;
  readonly lon: number;
  private readonly offset: number;
  private readonly lastSunset: number;

  constructor(ctx: SeriesContext) {
    this.now = ctx.now;
    this.lat = ctx.lat;
    this.lon = ctx.lon;
    // One offset for the whole day: a DST change inside the sample's 24 h shifts a few readings by an hour.
    this.offset = zoneOffsetMs(ctx.now, ctx.timezone);
    this.lastSunset =
      darknessAt(ctx.now, ctx.lat, ctx.lon, ctx.timezone).lastSunset ?? ctx.now - 12 * HOUR_MS;
  }

  /** Minutes since local midnight. */
  localMinutes(at: number): number {
    return ((((at + this.offset) % DAY_MS) + DAY_MS) % DAY_MS) / MINUTE_MS;
  }

  localHour(at: number): number {
    return this.localMinutes(at) / 60;
  }

  hoursAgo(at: number): number {
    return (this.now - at) / HOUR_MS;
  }

  sunUp(at: number): boolean {
    return !isDark(at, this.lat, this.lon);
  }

  /** Sine of the sun's elevation, 0 at night: how strongly the sun shines on a panel. */
  sunStrength(at: number): number {
    return Math.max(0, Math.sin((solarElevation(at, this.lat, this.lon) * Math.PI) / 180));
  }

  /** Outside air: 8 °C before dawn, 22 °C mid-afternoon. */
  outsideTemp(at: number): number {
    return 15 + 7 * Math.sin((2 * Math.PI * (this.localHour(at) - 9)) / 24);
  }

  /** The most recent moment before now that the local clock showed `hh:mm`. */
  lastLocal(hh: number, mm: number): number {
    const target = (hh * 60 + mm) * MINUTE_MS;
    const today = this.now - this.localMinutes(this.now) * MINUTE_MS + target;
    return today <= this.now ? today : today - DAY_MS;
  }

  /** Whether a local `hh:mm` falls in the `cadence` ms ending at `at`. */
  covers(at: number, cadence: number, hh: number, mm: number): boolean {
    const end = this.localMinutes(at);
    const start = end - cadence / MINUTE_MS;
    const t = hh * 60 + mm;
    return (t > start && t <= end) || (t - 1440 > start && t - 1440 <= end);
  }

  get sunset(): number {
    return this.lastSunset;
  }
}

export const QUARTER = 15 * MINUTE_MS;
export const HALF = 30 * MINUTE_MS;

export function attachEvents(ticks: Tick[], events: SeriesEvent[]): Tick[] {
  for (const event of events) {
    // The first tick at or after the event carries it; an event after the last tick gets its own.
    const tick = ticks.find((t) => t.at >= event.at);
    if (tick) tick.events.push(event);
    else ticks.push({ at: event.at, readings: [], events: [event] });
  }
  return ticks;
}
