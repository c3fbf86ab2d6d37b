/**
 * The house state object: the part of a house device's `state` that describes its doors, drive,
 * feed, climate gear and lights. A real house reports it through ingest; the sample farm derives it
 * by applying commands (see `applyHouseCommandToState`).
 */

import { isPlainObject } from '../lib/json.ts';

export const DOOR_COUNT = 14;
export const HEATER_PANEL_COUNT = 6;
/** One house length a day: the pace at which a house moves when no rate is given. */
export const DEFAULT_MOVE_RATE_M_PER_DAY = 18;

export type DoorNumber =
  | '1'
  | '2'
  | '3'
  | '4'
  | '5'
  | '6'
  | '7'
  | '8'
  | '9'
  | '10'
  | '11'
  | '12'
  | '13'
  | '14';
export type PanelNumber = '1' | '2' | '3' | '4' | '5' | '6';
export type OnOffAuto = 'on' | 'off' | 'auto';
/** `HH:MM`, or the words `dawn` (open) and `dusk` (close) that follow the farm's sun times. */
export type DoorTime = string;

export interface HouseState {
  doors: Record<DoorNumber, 'open' | 'closed'>;
  door_schedule: { open: DoorTime; close: DoorTime };
  move: {
    status: 'stepping' | 'stopped';
    meters_per_day: number;
    /** Compass heading in degrees; null when none was set or a paddock route chooses it. */
    heading_deg: number | null;
    target_paddock_id: string | null;
  };
  spines: {
    /** Height above the floor; null until one is set or reported. */
    height_mm: number | null;
    /** `auto` follows flock age; `manual` holds `height_mm`. */
    mode: 'auto' | 'manual';
  };
  climate: { mode: 'auto' | 'summer' | 'winter'; target_temp_c: number };
  awnings: 'open' | 'closed' | 'auto';
  fans: { tunnel: OnOffAuto; ridge: OnOffAuto };
  heaters: {
    /** The setting shared by all six panels, or `mixed` when they differ. */
    mode: OnOffAuto | 'mixed';
    panels: Record<PanelNumber, OnOffAuto>;
  };
  floor: 'deployed' | 'retracted';
  lights: OnOffAuto;
  feed: {
    /** Daily feeding times, HH:MM, sorted. */
    schedule: string[];
    last_dispensed_kg: number | null;
  };
}

export const DOOR_NUMBERS: readonly DoorNumber[] = Object.freeze(
  Array.from({ length: DOOR_COUNT }, (_, i) => String(i + 1) as DoorNumber),
);
export const PANEL_NUMBERS: readonly PanelNumber[] = Object.freeze(
  Array.from({ length: HEATER_PANEL_COUNT }, (_, i) => String(i + 1) as PanelNumber),
);

function allKeys<K extends string, V>(keys: readonly K[], value: V): Record<K, V> {
  return Object.fromEntries(keys.map((k) => [k, value])) as Record<K, V>;
}

/**
 * A newly installed house: doors shut, parked, every controller on automatic, floor rolled back.
 * A fresh object each call, so callers may change it freely.
 */
export function defaultHouseState(): HouseState {
  return {
    doors: allKeys(DOOR_NUMBERS, 'closed'),
    door_schedule: { open: 'dawn', close: 'dusk' },
    move: {
      status: 'stopped',
      meters_per_day: DEFAULT_MOVE_RATE_M_PER_DAY,
      heading_deg: null,
      target_paddock_id: null,
    },
    spines: { height_mm: null, mode: 'auto' },
    climate: { mode: 'auto', target_temp_c: 21 },
    awnings: 'auto',
    fans: { tunnel: 'auto', ridge: 'auto' },
    heaters: { mode: 'auto', panels: allKeys(PANEL_NUMBERS, 'auto') },
    floor: 'retracted',
    lights: 'auto',
    feed: { schedule: [], last_dispensed_kg: null },
  };
}

type Stored = Record<string, unknown>;

function part(value: unknown): Stored {
  return isPlainObject(value) ? value : {};
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], fallback: T): T {
  return allowed.find((a) => a === value) ?? fallback;
}

function numberOr<T extends number | null>(value: unknown, fallback: T): number | T {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

function stringOr<T extends string | null>(value: unknown, fallback: T): string | T {
  return typeof value === 'string' ? value : fallback;
}

function keyed<K extends string, V extends string>(
  stored: unknown,
  keys: readonly K[],
  allowed: readonly V[],
  fallback: Record<K, V>,
): Record<K, V> {
  const given = part(stored);
  return Object.fromEntries(keys.map((k) => [k, oneOf(given[k], allowed, fallback[k])])) as Record<K, V>;
}

const ON_OFF_AUTO_VALUES: readonly OnOffAuto[] = ['on', 'off', 'auto'];

/**
 * A house's stored `state` read as a `HouseState`: every part the house reported with the right type
 * is kept, every part missing or malformed takes its default (a house reports what it likes). Parts
 * the spec does not describe are kept as they are, so writing the result back loses nothing.
 */
export function readHouseState(stored: unknown): HouseState {
  const s = part(stored);
  const d = defaultHouseState();
  const schedule = part(s.door_schedule);
  const move = part(s.move);
  const spines = part(s.spines);
  const climate = part(s.climate);
  const fans = part(s.fans);
  const heaters = part(s.heaters);
  const feed = part(s.feed);
  return {
    ...s,
    doors: keyed(s.doors, DOOR_NUMBERS, ['open', 'closed'], d.doors),
    door_schedule: {
      ...schedule,
      open: stringOr(schedule.open, d.door_schedule.open),
      close: stringOr(schedule.close, d.door_schedule.close),
    },
    move: {
      ...move,
      status: oneOf(move.status, ['stepping', 'stopped'], d.move.status),
      meters_per_day: numberOr(move.meters_per_day, d.move.meters_per_day),
      heading_deg: numberOr(move.heading_deg, null),
      target_paddock_id: stringOr(move.target_paddock_id, null),
    },
    spines: {
      ...spines,
      height_mm: numberOr(spines.height_mm, null),
      mode: oneOf(spines.mode, ['auto', 'manual'], d.spines.mode),
    },
    climate: {
      ...climate,
      mode: oneOf(climate.mode, ['auto', 'summer', 'winter'], d.climate.mode),
      target_temp_c: numberOr(climate.target_temp_c, d.climate.target_temp_c),
    },
    awnings: oneOf(s.awnings, ['open', 'closed', 'auto'], d.awnings),
    fans: {
      ...fans,
      tunnel: oneOf(fans.tunnel, ON_OFF_AUTO_VALUES, d.fans.tunnel),
      ridge: oneOf(fans.ridge, ON_OFF_AUTO_VALUES, d.fans.ridge),
    },
    heaters: {
      ...heaters,
      mode: oneOf(heaters.mode, [...ON_OFF_AUTO_VALUES, 'mixed'], d.heaters.mode),
      panels: keyed(heaters.panels, PANEL_NUMBERS, ON_OFF_AUTO_VALUES, d.heaters.panels),
    },
    floor: oneOf(s.floor, ['deployed', 'retracted'], d.floor),
    lights: oneOf(s.lights, ON_OFF_AUTO_VALUES, d.lights),
    feed: {
      ...feed,
      schedule: Array.isArray(feed.schedule)
        ? feed.schedule.filter((t): t is string => typeof t === 'string')
        : d.feed.schedule,
      last_dispensed_kg: numberOr(feed.last_dispensed_kg, null),
    },
  };
}

const ON_OFF_AUTO = { type: 'string', enum: ['on', 'off', 'auto'] };
const DOOR_TIME = {
  type: 'string',
  description: 'HH:MM, or dawn / dusk',
  pattern: '^(([01][0-9]|2[0-3]):[0-5][0-9]|dawn|dusk)$',
};

function keyedObject(keys: readonly string[], valueSchema: object, description: string): object {
  return {
    type: 'object',
    description,
    properties: Object.fromEntries(keys.map((k) => [k, valueSchema])),
    required: [...keys],
    additionalProperties: false,
  };
}

/** JSON Schema of `HouseState`, for the OpenAPI document and the catalog. */
export const HOUSE_STATE_JSON_SCHEMA = {
  type: 'object',
  description: 'State of a mobile poultry house (part of Device.state for a device of type house).',
  properties: {
    doors: keyedObject(
      DOOR_NUMBERS,
      { type: 'string', enum: ['open', 'closed'] },
      'Pop doors keyed "1" to "14".',
    ),
    door_schedule: {
      type: 'object',
      properties: { open: DOOR_TIME, close: DOOR_TIME },
      required: ['open', 'close'],
      additionalProperties: false,
    },
    move: {
      type: 'object',
      properties: {
        status: { type: 'string', enum: ['stepping', 'stopped'] },
        meters_per_day: { type: 'number', exclusiveMinimum: 0 },
        heading_deg: { type: ['number', 'null'], minimum: 0, exclusiveMaximum: 360 },
        target_paddock_id: { type: ['string', 'null'] },
      },
      required: ['status', 'meters_per_day', 'heading_deg', 'target_paddock_id'],
      additionalProperties: false,
    },
    spines: {
      type: 'object',
      properties: {
        height_mm: { type: ['number', 'null'], description: 'feed and water spine height above the floor' },
        mode: { type: 'string', enum: ['auto', 'manual'], description: 'auto follows flock age' },
      },
      required: ['height_mm', 'mode'],
      additionalProperties: false,
    },
    climate: {
      type: 'object',
      properties: {
        mode: { type: 'string', enum: ['auto', 'summer', 'winter'] },
        target_temp_c: { type: 'number', description: 'target air temperature at bird height' },
      },
      required: ['mode', 'target_temp_c'],
      additionalProperties: false,
    },
    awnings: { type: 'string', enum: ['open', 'closed', 'auto'] },
    fans: {
      type: 'object',
      properties: { tunnel: ON_OFF_AUTO, ridge: ON_OFF_AUTO },
      required: ['tunnel', 'ridge'],
      additionalProperties: false,
    },
    heaters: {
      type: 'object',
      properties: {
        mode: {
          type: 'string',
          enum: ['on', 'off', 'auto', 'mixed'],
          description: 'the setting shared by all panels, or mixed',
        },
        panels: keyedObject(PANEL_NUMBERS, ON_OFF_AUTO, 'Radiant brooder panels keyed "1" to "6".'),
      },
      required: ['mode', 'panels'],
      additionalProperties: false,
    },
    floor: { type: 'string', enum: ['deployed', 'retracted'], description: 'the winter floor' },
    lights: ON_OFF_AUTO,
    feed: {
      type: 'object',
      properties: {
        schedule: {
          type: 'array',
          items: { type: 'string', pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$' },
          description: 'daily feeding times',
        },
        last_dispensed_kg: { type: ['number', 'null'] },
      },
      required: ['schedule', 'last_dispensed_kg'],
      additionalProperties: false,
    },
  },
  required: [
    'doors',
    'door_schedule',
    'move',
    'spines',
    'climate',
    'awnings',
    'fans',
    'heaters',
    'floor',
    'lights',
    'feed',
  ],
  // A real house may report more than the spec describes; ingest merges it in.
  additionalProperties: true,
} as const;
