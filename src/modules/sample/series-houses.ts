/** The two sample houses' day: layers in House 1, broilers in House 2 (see series.ts for the tools). */
import { DOOR_NUMBERS } from '../../domain/house-state.ts';
import { HOUR_MS, MINUTE_MS } from '../../lib/time.ts';
import {
  attachEvents,
  clamp,
  type DeviceSeries,
  noiseSource,
  QUARTER,
  round,
  type SampleClock,
  SERIES_SPAN_MS,
  type Tick,
  tickTimes,
} from './series.ts';

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
