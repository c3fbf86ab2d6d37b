/**
 * What simulated devices measure: small physical models stepped in simulated time. Pure functions of the
 * device's own model state, the simulated time and a seeded random source, so a run can be repeated.
 */
import { applyHouseCommandToState } from '../../domain/house-commands.ts';
import { defaultHouseState, type HouseState } from '../../domain/house-state.ts';
import { distanceM, offsetM } from '../../lib/geo.ts';

export interface Reading {
  metric: string;
  value: number;
  at: string;
}
export interface DeviceEvent {
  type: string;
  data: Record<string, unknown>;
  at: string;
}
export interface Report {
  readings: Reading[];
  events: DeviceEvent[];
  battery?: number;
  state?: Record<string, unknown>;
  lat?: number;
  lon?: number;
}

/** A place as GeoJSON writes it: [longitude, latitude]. */
export type Place = [number, number];

/** The devices that carry a GPS and report where they are: houses, and the ear tags and bands on animals. */
export const MOBILE_TYPES: ReadonlySet<string> = new Set(['house', 'tag', 'band']);

/** How far an animal's tracker wanders from where it started, in metres. */
const WANDER_M = 80;

/** The model state one simulated device carries between reports. */
export interface Model {
  type: string;
  battery: number;
  feed: number;
  water: number;
  nh3: number;
  house: HouseState | null;
  /** Set when a command changed the house: the next report carries the whole new state. */
  stateChanged: boolean;
  /** Where a mobile device stands (null: the farm has no place to start from, so no position is sent). */
  place: Place | null;
  /** Where it started: an animal's tracker wanders around it. */
  home: Place | null;
  /** A point inside the paddock a house is moving to, once the run has looked the paddock up. */
  target: Place | null;
}

export function newModel(type: string, random: () => number): Model {
  return {
    type,
    battery: 70 + random() * 25,
    feed: 60 + random() * 35,
    water: 60 + random() * 35,
    nh3: 8 + random() * 6,
    house: type === 'house' ? defaultHouseState() : null,
    stateChanged: false,
    place: null,
    home: null,
    target: null,
  };
}

/**
 * A house on the move steps at its rate (metres a day): towards the paddock it is moving to, arriving (and
 * stopping, its state reported) when the step would pass it; else along its heading (east without one).
 * A move to a paddock the run has not placed yet (no outline) waits.
 */
function moveHouse(m: Model, hours: number): void {
  const move = m.house?.move;
  if (!m.house || !move || move.status !== 'stepping' || !m.place) return;
  const metres = (move.meters_per_day * hours) / 24;
  if (move.target_paddock_id === null) {
    const heading = ((move.heading_deg ?? 90) * Math.PI) / 180;
    m.place = offsetM(m.place, metres * Math.sin(heading), metres * Math.cos(heading));
    return;
  }
  if (!m.target) return;
  const left = distanceM(m.place, m.target);
  if (left <= metres) {
    m.place = m.target;
    m.target = null;
    m.house = { ...m.house, move: { ...move, status: 'stopped', target_paddock_id: null } };
    m.stateChanged = true;
    return;
  }
  const f = metres / left;
  m.place = [m.place[0] + (m.target[0] - m.place[0]) * f, m.place[1] + (m.target[1] - m.place[1]) * f];
}

/** An animal's tracker wanders a few metres each step, never more than WANDER_M from where it started. */
function wander(m: Model, hours: number, random: () => number): void {
  if (!m.place || !m.home) return;
  const step = 15 * Math.sqrt(Math.max(hours, 0.01));
  let next = offsetM(m.place, (random() - 0.5) * step, (random() - 0.5) * step);
  const away = distanceM(m.home, next);
  if (away > WANDER_M) {
    const back = WANDER_M / away;
    next = [m.home[0] + (next[0] - m.home[0]) * back, m.home[1] + (next[1] - m.home[1]) * back];
  }
  m.place = next;
}

const round = (value: number, places = 1): number => Math.round(value * 10 ** places) / 10 ** places;
const clamp = (value: number, low: number, high: number): number => Math.min(high, Math.max(low, value));

/** Hour of the day, 0–24, and whether the sun is up (a plain 6:00–18:00 day; good enough to simulate). */
function dayPart(at: number): { hour: number; daylight: boolean } {
  const hour = (at % 86_400_000) / 3_600_000;
  return { hour, daylight: hour >= 6 && hour < 18 };
}

function doorsOpen(house: HouseState | null): boolean {
  return house ? Object.values(house.doors).some((d) => d === 'open') : false;
}

/** Houses: day/night temperature, ammonia rising with stocking and falling with ventilation, feed, water, solar. */
function stepHouse(m: Model, at: number, hours: number, random: () => number, iso: string): Report {
  const { hour, daylight } = dayPart(at);
  const birds = daylight ? 180 : 300;
  const ventilated = doorsOpen(m.house) || m.house?.fans.tunnel === 'on';
  m.nh3 = clamp(m.nh3 + hours * (birds / 300) * (ventilated ? -3 : 2.6), 2, 60);
  m.feed -= hours * (birds / 300) * 3.5;
  const events: DeviceEvent[] = [];
  if (m.feed < 8) {
    m.feed = 100;
    events.push({ type: 'feed.refilled', data: { to_pct: 100 }, at: iso });
  }
  const waterUsed = hours * birds * 0.02;
  m.water -= waterUsed / 4;
  if (m.water < 12) m.water = 100;
  const solar = daylight ? Math.max(0, Math.sin(((hour - 6) / 12) * Math.PI)) * 900 : 0;
  m.battery = clamp(m.battery + hours * (solar / 900) * 9 - hours * 3, 0, 100);
  if (random() < 0.01 * hours) events.push({ type: 'predator.detected', data: { species: 'fox' }, at: iso });
  if (random() < 0.004 * hours)
    events.push({ type: 'door.jammed', data: { door: 1 + Math.floor(random() * 14) }, at: iso });
  const temp = 18 + 7 * Math.sin(((hour - 9) / 24) * 2 * Math.PI) + (random() - 0.5);
  const report: Report = {
    readings: [
      { metric: 'climate.temp_c', value: round(temp), at: iso },
      { metric: 'climate.nh3_ppm', value: round(m.nh3), at: iso },
      { metric: 'climate.humidity_pct', value: round(60 + 15 * random()), at: iso },
      { metric: 'feed.bin_pct', value: round(m.feed), at: iso },
      { metric: 'water.tank_pct', value: round(m.water), at: iso },
      { metric: 'water.used_l', value: round(waterUsed), at: iso },
      { metric: 'power.solar_w', value: round(solar, 0), at: iso },
      { metric: 'power.battery_pct', value: round(m.battery), at: iso },
      { metric: 'birds.inside', value: birds, at: iso },
    ],
    events,
  };
  if (m.stateChanged && m.house) {
    report.state = m.house as unknown as Record<string, unknown>;
    m.stateChanged = false;
  }
  return report;
}

/** Cattle trackers and boluses: body temperature with a daily swing, rumination, activity. */
function stepAnimal(m: Model, at: number, hours: number, random: () => number, iso: string): Report {
  const { hour, daylight } = dayPart(at);
  m.battery = clamp(m.battery - hours * 0.05, 0, 100);
  return {
    readings: [
      {
        metric: 'body.temp_c',
        value: round(38.6 + 0.3 * Math.sin(((hour - 15) / 24) * 2 * Math.PI) + 0.2 * (random() - 0.5), 2),
        at: iso,
      },
      {
        metric: 'rumination.min',
        value: round(hours * (daylight ? 18 : 32) * (0.8 + 0.4 * random()), 0),
        at: iso,
      },
      { metric: 'activity.index', value: round((daylight ? 115 : 70) * (0.85 + 0.3 * random()), 0), at: iso },
      { metric: 'device.battery_pct', value: round(m.battery), at: iso },
    ],
    events: [],
    battery: round(m.battery),
  };
}

function stepOther(m: Model, at: number, hours: number, random: () => number, iso: string): Report {
  const { hour, daylight } = dayPart(at);
  m.battery = clamp(m.battery - hours * 0.1, 0, 100);
  const readings: Reading[] = [{ metric: 'device.battery_pct', value: round(m.battery), at: iso }];
  const events: DeviceEvent[] = [];
  if (m.type === 'water') {
    m.water -= hours * (daylight ? 6 : 1.5);
    if (m.water < 15) m.water = 100;
    readings.push(
      { metric: 'water.tank_pct', value: round(m.water), at: iso },
      { metric: 'water.flow_lpm', value: round(daylight ? 4 + 3 * random() : 1 * random()), at: iso },
    );
  } else if (m.type === 'weather') {
    const rain = random() < 0.1 ? round(random() * 3) : 0;
    readings.push(
      {
        metric: 'climate.temp_c',
        value: round(14 + 8 * Math.sin(((hour - 9) / 24) * 2 * Math.PI) + random()),
        at: iso,
      },
      { metric: 'climate.humidity_pct', value: round(55 + 30 * random()), at: iso },
      { metric: 'wind.kph', value: round(5 + 20 * random()), at: iso },
      { metric: 'rain.mm', value: rain, at: iso },
    );
  } else if (m.type === 'guardian' && random() < 0.02 * hours) {
    events.push({ type: 'predator.detected', data: { species: random() < 0.5 ? 'fox' : 'coyote' }, at: iso });
  }
  return { readings, events, battery: round(m.battery) };
}

/** One report of a device, `hours` of simulated time after its previous one; a mobile one says where it is. */
export function stepDevice(m: Model, at: number, hours: number, random: () => number): Report {
  const iso = new Date(at).toISOString();
  if (m.type === 'house') moveHouse(m, hours);
  else if (MOBILE_TYPES.has(m.type)) wander(m, hours, random);
  const report =
    m.type === 'house'
      ? stepHouse(m, at, hours, random, iso)
      : m.type === 'bolus' || m.type === 'tag' || m.type === 'band'
        ? stepAnimal(m, at, hours, random, iso)
        : stepOther(m, at, hours, random, iso);
  if (m.place) {
    report.lon = Number(m.place[0].toFixed(6));
    report.lat = Number(m.place[1].toFixed(6));
  }
  return report;
}

/** A simulated device carries a command out: a house's state changes as the command says. */
export function carryOut(
  m: Model,
  command: string,
  params: Record<string, unknown>,
): Record<string, unknown> {
  if (!m.house) return { simulated: true };
  m.house = applyHouseCommandToState(m.house, command, params);
  m.stateChanged = true;
  return { simulated: true, applied: command };
}
