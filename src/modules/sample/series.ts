/**
 * The sample farm's last 24 hours of device data, generated: temperatures with a day/night cycle,
 * feed bins emptying between fills, water tanks drawn down and refilled, batteries charging by day.
 * Values come from a seeded PRNG per device, so the farm is the same every time except for where
 * "now" falls in the day. Pure: no clock, no I/O.
 */
import { DOOR_NUMBERS } from '../../domain/house-state.ts';
import { zoneOffsetMs } from '../../lib/local-time.ts';
import { darknessAt, solarElevation } from '../../lib/solar.ts';
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

/** mulberry32: a tiny, fast, well-mixed 32-bit PRNG. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function seedOf(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** Roughly normal noise of the given spread (sum of three uniforms). */
function noiseSource(key: string): (spread: number) => number {
  const next = mulberry32(seedOf(key));
  return (spread) => (next() + next() + next() - 1.5) * spread;
}

const round = (value: number, places = 1): number => {
  const f = 10 ** places;
  return Math.round(value * f) / f;
};

const clamp = (value: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, value));

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
    return solarElevation(at, this.lat, this.lon) > -0.833;
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

const QUARTER = 15 * MINUTE_MS;
const HALF = 30 * MINUTE_MS;

function attachEvents(ticks: Tick[], events: SeriesEvent[]): Tick[] {
  for (const event of events) {
    // The first tick at or after the event carries it; an event after the last tick gets its own.
    const tick = ticks.find((t) => t.at >= event.at);
    if (tick) tick.events.push(event);
    else ticks.push({ at: event.at, readings: [], events: [event] });
  }
  return ticks;
}

/** Shared by both houses: power, water and climate follow the same physics. */
function houseTicks(
  clock: SampleClock,
  key: string,
  options: {
    birds: number;
    waterStart: number;
    targetC: number;
    tempGain: number;
    feed: (at: number) => { binPct: number; dispensedKg: number };
    nh3: (at: number, night: boolean) => number;
    co2: (at: number, night: boolean) => number;
    inside: (at: number, sunUp: boolean) => number;
    moveM: (at: number) => number;
  },
): Tick[] {
  const noise = noiseSource(key);
  let water = options.waterStart;
  let battery = 64;
  return tickTimes(clock.now, QUARTER).map((at) => {
    const sunUp = clock.sunUp(at);
    const out = clock.outsideTemp(at);
    const temp = options.targetC + options.tempGain * (out - 15) + noise(0.6);
    const feed = options.feed(at);
    // Birds drink by day; the header tank refills from the water trailer when it falls below 40%.
    const drawn = (sunUp ? 0.55 : 0.12) * (options.birds / 280);
    water -= drawn;
    if (water < 40) water = 95;
    const moved = options.moveM(at);
    const solar = Math.max(0, 1400 * clock.sunStrength(at) * (0.92 + noise(0.1)));
    const load =
      45 +
      (temp > options.targetC + 1 ? 120 : 0) +
      20 * feed.dispensedKg +
      (moved > 0 ? 200 : 0) +
      (!sunUp ? 30 : 0);
    battery = clamp(battery + ((solar - load) * 0.25 * 100) / 6000, 35, 100);
    const night = !sunUp;
    return {
      at,
      events: [],
      readings: [
        { metric: 'feed.bin_pct', value: round(feed.binPct + noise(0.3)) },
        { metric: 'feed.dispensed_kg', value: round(feed.dispensedKg) },
        { metric: 'water.tank_pct', value: round(water) },
        { metric: 'water.used_l', value: round(drawn * 2) },
        { metric: 'climate.temp_c', value: round(temp) },
        { metric: 'climate.humidity_pct', value: round(clamp(60 + 0.8 * (15 - out) + noise(3), 20, 100)) },
        { metric: 'climate.nh3_ppm', value: round(Math.max(0, options.nh3(at, night) + noise(0.3))) },
        { metric: 'climate.co2_ppm', value: Math.round(options.co2(at, night) + noise(60)) },
        { metric: 'power.battery_pct', value: round(battery) },
        { metric: 'power.solar_w', value: Math.round(solar) },
        { metric: 'power.load_w', value: Math.round(load + noise(8)) },
        { metric: 'move.distance_m', value: round(moved, 2) },
        { metric: 'birds.inside', value: Math.max(0, Math.round(options.inside(at, sunUp) + noise(10))) },
      ],
    };
  });
}

function doorsState(open: (door: number) => boolean): Record<string, 'open' | 'closed'> {
  return Object.fromEntries(DOOR_NUMBERS.map((d) => [d, open(Number(d)) ? 'open' : 'closed']));
}

/**
 * House 1, the layers: fed at 06:30 and 16:30, each feeding taking 11% of the bin, so the bin falls
 * from 35% to 13% over the day and opens a watch alert at the second feeding. Pop doors follow the
 * sun; the house steps 18 m a day to fresh grass.
 */
export function layerHouseSeries(clock: SampleClock): DeviceSeries {
  const feedTimes: Array<[number, number]> = [
    [6, 30],
    [16, 30],
  ];
  let fed = 0;
  const ticks = houseTicks(clock, 'house-1', {
    birds: 280,
    waterStart: 88,
    targetC: 21,
    tempGain: 0.3,
    feed: (at) => {
      const now = feedTimes.filter(([h, m]) => clock.covers(at, QUARTER, h, m)).length;
      fed += now;
      return { binPct: 35 - 11 * fed, dispensedKg: now * 16.5 };
    },
    nh3: (_at, night) => 6 + (night ? 2.5 : 0),
    co2: (_at, night) => 800 + (night ? 650 : 0),
    inside: (_at, sunUp) => (sunUp ? 45 : 280),
    // Ten steps of 1.8 m on the hour, 08:00 to 17:00.
    moveM: (at) => {
      const minutes = clock.localMinutes(at);
      return minutes % 60 === 0 && minutes >= 8 * 60 && minutes <= 17 * 60 ? 1.8 : 0;
    },
  });
  const daylight = clock.sunUp(clock.now);
  return {
    ticks,
    battery: ticks.at(-1)?.readings.find((r) => r.metric === 'power.battery_pct')?.value ?? null,
    position: { lat: 38.9496, lon: -92.3312 },
    state: {
      doors: doorsState(() => daylight),
      spines: { height_mm: 160, mode: 'auto' },
      floor: 'retracted',
    },
  };
}

/**
 * House 2, the broilers: ammonia has been climbing for 6 hours (watch about 2 h ago, urgent about
 * 30 min ago); the feed bin ran low yesterday (watch) until a delivery filled it 12.5 h ago (resolved);
 * door 9 jammed open at the last dusk (watch). The house stays parked.
 */
export function broilerHouseSeries(clock: SampleClock): DeviceSeries {
  const fillAt = clock.now - 12.5 * HOUR_MS;
  const start = clock.now - SERIES_SPAN_MS;
  const ammonia = (at: number): number => {
    const h = clock.hoursAgo(at);
    return 9 + (h < 6 ? ((6 - h) / 6) * 17.5 : 0);
  };
  const ticks = houseTicks(clock, 'house-2', {
    birds: 300,
    waterStart: 64,
    targetC: 24,
    tempGain: 0.25,
    feed: (at) => {
      const pct = at < fillAt ? 22 - (1.2 * (at - start)) / HOUR_MS : 92 - (1.2 * (at - fillAt)) / HOUR_MS;
      return { binPct: Math.max(0.5, pct), dispensedKg: round(1.2 * 4 * 0.25, 2) };
    },
    nh3: (at) => ammonia(at),
    co2: (at, night) => 1100 + (night ? 500 : 0) + Math.max(0, (6 - clock.hoursAgo(at)) * 180),
    inside: (_at, sunUp) => (sunUp ? 180 : 300),
    moveM: () => 0,
  });
  const jammedAt = clock.sunset - 2 * MINUTE_MS;
  attachEvents(ticks, [
    {
      type: 'door.jammed',
      at: jammedAt,
      data: { door: 9, stuck: 'open' },
    },
  ]);
  const daylight = clock.sunUp(clock.now);
  return {
    ticks,
    battery: ticks.at(-1)?.readings.find((r) => r.metric === 'power.battery_pct')?.value ?? null,
    position: null,
    state: {
      // By day doors 1-8 are open for the birds; door 9 is stuck open since dusk.
      doors: doorsState((d) => d === 9 || (daylight && d <= 8)),
      spines: { height_mm: 120, mode: 'auto' },
      floor: 'retracted',
    },
  };
}

/** A rumen bolus every 30 min: body temperature, rumination, activity; battery every 2 h. */
export function bolusSeries(
  clock: SampleClock,
  key: string,
  options: { battery: number; fever: boolean },
): DeviceSeries {
  const noise = noiseSource(key);
  const ticks = tickTimes(clock.now, HALF).map((at, i) => {
    const h = clock.hoursAgo(at);
    const hour = clock.localHour(at);
    // A fever building over the last 9 hours: 38.75 °C rising to 40.25 °C (watch line 40).
    const fever = options.fever ? clamp((9 - h) / 9, 0, 1) : 0;
    const temp = options.fever
      ? 38.75 + 1.5 * fever + noise(0.06)
      : 38.8 + 0.2 * Math.sin((2 * Math.PI * (hour - 17)) / 24) + noise(0.08);
    const night = hour < 6 || hour >= 21;
    const readings: SeriesReading[] = [
      { metric: 'body.temp_c', value: round(temp, 2) },
      {
        metric: 'rumination.min',
        value: round(Math.max(0, (13 + (night ? 4 : 0)) * (1 - 0.7 * fever) + noise(1.5))),
      },
      {
        metric: 'activity.index',
        value: Math.round(
          (100 + 20 * Math.sin((2 * Math.PI * (hour - 10)) / 24)) * (1 - 0.35 * fever) + noise(8),
        ),
      },
    ];
    if (i % 4 === 3)
      readings.push({ metric: 'device.battery_pct', value: round(options.battery - h * 0.01) });
    return { at, readings, events: [] };
  });
  return { ticks, battery: options.battery, position: null, state: null };
}

/** An ear tag (or a band) every hour: activity and battery, and where it is. */
export function trackerSeries(
  clock: SampleClock,
  key: string,
  options: {
    batteryFrom: number;
    batteryTo: number;
    nightActive?: boolean;
    at: { lat: number; lon: number };
  },
): DeviceSeries {
  const noise = noiseSource(key);
  const times = tickTimes(clock.now, HOUR_MS);
  const ticks = times.map((at, i) => {
    const hour = clock.localHour(at);
    const night = hour < 6 || hour >= 20;
    const base = options.nightActive
      ? 95 + (night ? 35 : 0)
      : 100 + 25 * Math.sin((2 * Math.PI * (hour - 10)) / 24);
    const battery =
      options.batteryFrom + ((options.batteryTo - options.batteryFrom) * i) / Math.max(1, times.length - 1);
    return {
      at,
      events: [],
      readings: [
        { metric: 'activity.index', value: Math.round(base + noise(10)) },
        { metric: 'device.battery_pct', value: round(battery) },
      ],
    };
  });
  return {
    ticks,
    battery: round(options.batteryTo),
    position: {
      lat: round(options.at.lat + noise(0.0006), 6),
      lon: round(options.at.lon + noise(0.0006), 6),
    },
    state: null,
  };
}

/** The guardian near the broilers: battery hourly (solar), and a fox it drove off at 03:10. */
export function guardianSeries(clock: SampleClock): DeviceSeries {
  const noise = noiseSource('guardian');
  const ticks = tickTimes(clock.now, HOUR_MS).map((at) => ({
    at,
    events: [] as SeriesEvent[],
    readings: [
      {
        metric: 'device.battery_pct',
        value: round(clamp(82 + 12 * clock.sunStrength(at) + noise(1), 0, 100)),
      },
    ],
  }));
  attachEvents(ticks, [
    {
      type: 'predator.deterred',
      at: clock.lastLocal(3, 10),
      data: { species: 'fox', distance_m: 22, alarm_s: 30 },
    },
  ]);
  return { ticks, battery: 91, position: null, state: { alarm: 'armed', vision: 'on' } };
}

/** The trough sensor in Creek Bottom: the herd draws it down by day; the float valve refills it. */
export function troughSeries(clock: SampleClock): DeviceSeries {
  const noise = noiseSource('trough');
  const ticks = tickTimes(clock.now, QUARTER).map((at) => {
    const hour = clock.localHour(at);
    const drinking = Math.max(0, Math.sin((2 * Math.PI * (hour - 7)) / 24));
    const level = clamp(90 - 16 * drinking + noise(1.5), 0, 100);
    const readings: SeriesReading[] = [
      { metric: 'water.tank_pct', value: round(level) },
      { metric: 'water.flow_lpm', value: round(Math.max(0, (95 - level) * 0.4 + noise(0.4))) },
    ];
    if (clock.localMinutes(at) % 60 === 0) readings.push({ metric: 'device.battery_pct', value: 92 });
    return { at, readings, events: [] };
  });
  return { ticks, battery: 92, position: null, state: null };
}

/** The weather station: every 15 min until it went quiet 7 hours ago; a shower 14-16 hours ago. */
export function weatherSeries(clock: SampleClock): DeviceSeries {
  const noise = noiseSource('weather');
  const ticks = tickTimes(clock.now, QUARTER, clock.now - WEATHER_SILENT_MS).map((at) => {
    const out = clock.outsideTemp(at);
    const h = clock.hoursAgo(at);
    const readings: SeriesReading[] = [
      { metric: 'climate.temp_c', value: round(out + noise(0.3)) },
      { metric: 'climate.humidity_pct', value: round(clamp(88 - 2.6 * (out - 8) + noise(2), 20, 100)) },
      {
        metric: 'wind.kph',
        value: round(
          Math.max(0, 9 + 7 * Math.sin((2 * Math.PI * (clock.localHour(at) - 10)) / 24) + noise(2.5)),
        ),
      },
      {
        metric: 'rain.mm',
        value: h >= 14 && h < 16 ? round(0.3 + 1.6 * Math.sin(((16 - h) / 2) * Math.PI) ** 2) : 0,
      },
    ];
    if (clock.localMinutes(at) % 60 === 0) readings.push({ metric: 'device.battery_pct', value: 47 });
    return { at, readings, events: [] };
  });
  return { ticks, battery: 47, position: null, state: null };
}

/** The EID reader at the chute: a weighing session 20 hours ago, and a status report every 6 hours. */
export function readerSeries(clock: SampleClock, weights: ReadonlyArray<{ kg: number }>): DeviceSeries {
  const session = Math.floor((clock.now - 20 * HOUR_MS) / QUARTER) * QUARTER;
  const ticks: Tick[] = tickTimes(clock.now, 6 * HOUR_MS).map((at) => ({
    at,
    events: [],
    readings: [{ metric: 'device.battery_pct', value: 55 }],
  }));
  weights.forEach((w, i) => {
    ticks.push({
      at: session + i * 2 * MINUTE_MS,
      events: [],
      readings: [{ metric: 'weight.kg', value: w.kg }],
    });
  });
  ticks.sort((a, b) => a.at - b.at);
  return { ticks, battery: 55, position: null, state: null };
}

/** When the reader's weighing session was. */
export function weighingAt(clock: SampleClock, index: number): number {
  return Math.floor((clock.now - 20 * HOUR_MS) / QUARTER) * QUARTER + index * 2 * MINUTE_MS;
}

/** A soil probe (type other) reporting metrics the catalog does not list: moisture rose with the shower. */
export function soilProbeSeries(clock: SampleClock): DeviceSeries {
  const noise = noiseSource('soil');
  const ticks = tickTimes(clock.now, HOUR_MS).map((at) => {
    const h = clock.hoursAgo(at);
    const wetting = h < 14 ? 7 * (1 - Math.exp(-(14 - h) / 2)) : 0;
    const readings: SeriesReading[] = [
      { metric: 'soil.moisture_pct', unit: '%', value: round(31 + wetting - (24 - h) * 0.05 + noise(0.2)) },
      {
        metric: 'soil.temp_c',
        unit: '°C',
        value: round(13 + 2.5 * Math.sin((2 * Math.PI * (clock.localHour(at) - 14)) / 24) + noise(0.2)),
      },
    ];
    if (clock.localMinutes(at) % 360 === 0) readings.push({ metric: 'device.battery_pct', value: 71 });
    return { at, readings, events: [] };
  });
  return { ticks, battery: 71, position: null, state: null };
}
