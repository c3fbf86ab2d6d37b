/**
 * The house state object: the part of a house device's `state` that describes its doors, drive,
 * feed, climate gear and lights. A real house reports it through ingest; the sample farm derives it
 * by applying commands (see `applyHouseCommandToState`).
 */

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
