/** The sample farm's other devices: boluses, trackers, the guardian, trough, weather station, reader, soil probe. */
import { HOUR_MS, MINUTE_MS } from '../../lib/time.ts';
import {
  attachEvents,
  clamp,
  type DeviceSeries,
  HALF,
  noiseSource,
  QUARTER,
  round,
  type SampleClock,
  type SeriesEvent,
  type SeriesReading,
  type Tick,
  tickTimes,
  WEATHER_SILENT_MS,
} from './series.ts';

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

/**
 * The trough sensor in Creek Bottom: the herd draws it down by day; the float valve refills it. In the
 * last three quarter hours a line has burst: the level falls 12 points a quarter (the sample's
 * water.leak alert, while the level is still well above the 20 % low line).
 */
export function troughSeries(clock: SampleClock): DeviceSeries {
  const noise = noiseSource('trough');
  const ticks = tickTimes(clock.now, QUARTER).map((at) => {
    const hour = clock.localHour(at);
    const drinking = Math.max(0, Math.sin((2 * Math.PI * (hour - 7)) / 24));
    const burst = Math.max(0, 3 - Math.floor((clock.now - at) / QUARTER));
    const level = clamp(90 - 16 * drinking - 12 * burst + noise(1.5), 0, 100);
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
