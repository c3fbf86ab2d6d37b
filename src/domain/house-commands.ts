/**
 * The house commands of the spec, as data, with their validation and their simulated effect on the
 * house state (the sample farm applies commands at once instead of queueing them).
 */

import {
  type CommandSpec,
  type CommandValidation,
  type ParamsOf,
  paramsJsonSchema,
  validateCommandFrom,
} from './command-params.ts';
import {
  DEFAULT_MOVE_RATE_M_PER_DAY,
  DOOR_COUNT,
  DOOR_NUMBERS,
  type DoorNumber,
  HEATER_PANEL_COUNT,
  type HouseState,
  type OnOffAuto,
  PANEL_NUMBERS,
  type PanelNumber,
} from './house-state.ts';

export { DEFAULT_MOVE_RATE_M_PER_DAY, DOOR_COUNT, HEATER_PANEL_COUNT, paramsJsonSchema };

const AFTER_DARK_CAUTION = 'Confirm with the farmer before opening doors after dark.';
const MOVE_CAUTION = 'Confirm with the farmer before moving a house.';

const DOORS_PARAM = {
  name: 'doors',
  type: 'integers',
  required: true,
  description: `"all", or a list of pop door numbers 1-${DOOR_COUNT}.`,
  min: 1,
  max: DOOR_COUNT,
  all: true,
  item: 'door',
} as const;

const ON_OFF_AUTO: readonly OnOffAuto[] = ['on', 'off', 'auto'];

const HOUSE_COMMAND_SPECS = [
  {
    name: 'doors.open',
    description: 'Opens pop doors; the vision pods still close a door on any predator.',
    params: [DOORS_PARAM],
    caution: AFTER_DARK_CAUTION,
    confirm: 'after_dark',
  },
  {
    name: 'doors.close',
    description: 'Closes pop doors.',
    params: [DOORS_PARAM],
  },
  {
    name: 'doors.schedule',
    description: 'Sets the door open and close times; doors close at dusk unless set.',
    params: [
      {
        name: 'open',
        type: 'time',
        required: false,
        description: 'Opening time, HH:MM or "dawn".',
        keywords: ['dawn'],
      },
      {
        name: 'close',
        type: 'time',
        required: false,
        description: 'Closing time, HH:MM or "dusk".',
        keywords: ['dusk'],
      },
    ],
    atLeastOneOf: ['open', 'close'],
  },
  {
    name: 'move.start',
    description: 'Starts moving to fresh grass in small steps through the day.',
    params: [
      {
        name: 'meters_per_day',
        type: 'number',
        unit: 'm/day',
        required: false,
        description: `Metres to move per day; default ${DEFAULT_MOVE_RATE_M_PER_DAY}, one house length.`,
        exclusiveMin: 0,
        default: DEFAULT_MOVE_RATE_M_PER_DAY,
      },
      {
        name: 'heading_deg',
        type: 'number',
        unit: '°',
        required: false,
        description: 'Compass heading in degrees, 0 (north) up to but not including 360.',
        min: 0,
        exclusiveMax: 360,
      },
    ],
    caution: MOVE_CAUTION,
    confirm: 'always',
  },
  { name: 'move.stop', description: 'Stops the drive.', params: [] },
  {
    name: 'move.to_paddock',
    description: 'Plans a route to the paddock and moves there at the set rate.',
    params: [{ name: 'paddock_id', type: 'id', required: true, description: 'Id of a paddock on the farm.' }],
    caution: MOVE_CAUTION,
    confirm: 'always',
  },
  {
    name: 'feed.dispense',
    description: 'Runs the augers to fill the pans.',
    params: [
      {
        name: 'kg',
        type: 'number',
        unit: 'kg',
        required: true,
        description: 'Feed to dispense, in kg.',
        exclusiveMin: 0,
      },
    ],
  },
  {
    name: 'feed.schedule',
    description: 'Sets feeding times.',
    params: [{ name: 'times', type: 'times', required: true, description: 'Daily feeding times, HH:MM.' }],
  },
  {
    name: 'spines.set_height',
    description: 'Sets feed and water spine height: give mm, or mode "auto" to follow flock age.',
    params: [
      {
        name: 'mm',
        type: 'number',
        unit: 'mm',
        required: false,
        description: 'Height above the floor in millimetres.',
        exclusiveMin: 0,
      },
      {
        name: 'mode',
        type: 'enum',
        required: false,
        description: '"auto" follows flock age.',
        enum: ['auto'],
      },
    ],
    atLeastOneOf: ['mm', 'mode'],
    atMostOneOf: ['mm', 'mode'],
  },
  {
    name: 'climate.set_mode',
    description: 'Sets the ventilation mode.',
    params: [
      {
        name: 'mode',
        type: 'enum',
        required: true,
        description: 'Ventilation mode.',
        enum: ['auto', 'summer', 'winter'],
      },
    ],
  },
  {
    name: 'climate.set_target',
    description: 'Sets the target inside air temperature at bird height.',
    params: [
      {
        name: 'temp_c',
        type: 'number',
        unit: '°C',
        required: true,
        description: 'Target temperature, °C (0-45).',
        min: 0,
        max: 45,
      },
    ],
  },
  {
    name: 'awnings.set',
    description: 'Sets the awning panes.',
    params: [
      {
        name: 'position',
        type: 'enum',
        required: true,
        description: 'Awning position.',
        enum: ['open', 'closed', 'auto'],
      },
    ],
  },
  {
    name: 'fans.set',
    description: 'Sets the tunnel and ridge fans; give either or both.',
    params: [
      { name: 'tunnel', type: 'enum', required: false, description: 'Tunnel fans.', enum: ON_OFF_AUTO },
      { name: 'ridge', type: 'enum', required: false, description: 'Ridge fans.', enum: ON_OFF_AUTO },
    ],
    atLeastOneOf: ['tunnel', 'ridge'],
  },
  {
    name: 'heaters.set',
    description: 'Sets the radiant brooder panels.',
    params: [
      { name: 'mode', type: 'enum', required: true, description: 'Heater setting.', enum: ON_OFF_AUTO },
      {
        name: 'panels',
        type: 'integers',
        required: false,
        description: `Panel numbers 1-${HEATER_PANEL_COUNT}; all panels when left out.`,
        min: 1,
        max: HEATER_PANEL_COUNT,
        item: 'panel',
      },
    ],
  },
  { name: 'floor.deploy', description: 'Rolls out the winter floor.', params: [] },
  { name: 'floor.retract', description: 'Rolls the winter floor back.', params: [] },
  {
    name: 'lights.set',
    description: 'Sets the interior lights and spine hairline.',
    params: [
      { name: 'mode', type: 'enum', required: true, description: 'Light setting.', enum: ON_OFF_AUTO },
    ],
  },
] as const satisfies readonly CommandSpec[];

export const HOUSE_COMMANDS: readonly CommandSpec[] = Object.freeze(HOUSE_COMMAND_SPECS);

type HouseCommandSpec = (typeof HOUSE_COMMAND_SPECS)[number];

/** A house command's name; a misspelt one fails to compile. */
export type HouseCommandName = HouseCommandSpec['name'];

/** The params of one house command after `validateHouseCommand`, typed from its declaration. */
export type HouseCommandParams<N extends HouseCommandName> = ParamsOf<Extract<HouseCommandSpec, { name: N }>>;

/** A validated house command: its name and params, narrowed together by `command`. */
export type HouseCommand = {
  [N in HouseCommandName]: { command: N; params: HouseCommandParams<N> };
}[HouseCommandName];

export const HOUSE_COMMAND_NAMES: readonly HouseCommandName[] = Object.freeze(
  HOUSE_COMMAND_SPECS.map((c) => c.name),
);

export function isHouseCommandName(value: unknown): value is HouseCommandName {
  return typeof value === 'string' && (HOUSE_COMMAND_NAMES as readonly string[]).includes(value);
}

/**
 * Validates a house command and its params. On success `params` is what should be stored: only the
 * declared parameters, with defaults filled in (`move.start` always carries `meters_per_day`).
 */
export function validateHouseCommand(command: string, params: unknown): CommandValidation {
  return validateCommandFrom(HOUSE_COMMANDS, 'house', command, params);
}

function selectedDoors(doors: readonly number[] | 'all'): DoorNumber[] {
  if (doors === 'all') return [...DOOR_NUMBERS];
  return DOOR_NUMBERS.filter((door) => doors.includes(Number(door)));
}

function selectedPanels(panels: readonly number[] | undefined): PanelNumber[] {
  return panels ? PANEL_NUMBERS.filter((panel) => panels.includes(Number(panel))) : [...PANEL_NUMBERS];
}

function sharedSetting(panels: Record<PanelNumber, OnOffAuto>): OnOffAuto | 'mixed' {
  const values = new Set(Object.values(panels));
  const [only] = values;
  return values.size === 1 && only !== undefined ? only : 'mixed';
}

/**
 * The state a house would be in after carrying out a command. `params` must have passed
 * `validateHouseCommand`; the input state is not changed.
 */
export function applyHouseCommandToState(
  state: HouseState,
  command: string,
  params: Record<string, unknown>,
): HouseState {
  // Reaching here with another name means a caller skipped validation: a bug, not bad input.
  if (!isHouseCommandName(command))
    throw new Error(`applyHouseCommandToState: unknown house command ${command}`);
  // Validation lets through only the declared parameters with their declared types.
  return applyHouseCommand(state, { command, params } as HouseCommand);
}

function applyHouseCommand(state: HouseState, { command, params }: HouseCommand): HouseState {
  const next = structuredClone(state);
  switch (command) {
    case 'doors.open':
    case 'doors.close': {
      const position = command === 'doors.open' ? 'open' : 'closed';
      for (const door of selectedDoors(params.doors)) next.doors[door] = position;
      break;
    }
    case 'doors.schedule':
      if (params.open !== undefined) next.door_schedule.open = params.open;
      if (params.close !== undefined) next.door_schedule.close = params.close;
      break;
    case 'move.start':
      next.move = {
        status: 'stepping',
        meters_per_day: params.meters_per_day ?? DEFAULT_MOVE_RATE_M_PER_DAY,
        heading_deg: params.heading_deg ?? null,
        target_paddock_id: null,
      };
      break;
    case 'move.stop':
      // Rate and heading stay so a later move.start without params resumes at the same pace.
      next.move.status = 'stopped';
      next.move.target_paddock_id = null;
      break;
    case 'move.to_paddock':
      // The planned route sets the heading, so a heading from an earlier move.start no longer holds.
      next.move = {
        ...next.move,
        status: 'stepping',
        heading_deg: null,
        target_paddock_id: params.paddock_id,
      };
      break;
    case 'feed.dispense':
      next.feed.last_dispensed_kg = params.kg;
      break;
    case 'feed.schedule':
      next.feed.schedule = [...params.times].sort();
      break;
    case 'spines.set_height':
      // With mode auto the last height stays as the best known value until the house reports one.
      if (params.mm !== undefined) next.spines = { height_mm: params.mm, mode: 'manual' };
      else next.spines.mode = 'auto';
      break;
    case 'climate.set_mode':
      next.climate.mode = params.mode;
      break;
    case 'climate.set_target':
      next.climate.target_temp_c = params.temp_c;
      break;
    case 'awnings.set':
      next.awnings = params.position;
      break;
    case 'fans.set':
      if (params.tunnel !== undefined) next.fans.tunnel = params.tunnel;
      if (params.ridge !== undefined) next.fans.ridge = params.ridge;
      break;
    case 'heaters.set':
      for (const panel of selectedPanels(params.panels)) next.heaters.panels[panel] = params.mode;
      next.heaters.mode = sharedSetting(next.heaters.panels);
      break;
    case 'floor.deploy':
      next.floor = 'deployed';
      break;
    case 'floor.retract':
      next.floor = 'retracted';
      break;
    case 'lights.set':
      next.lights = params.mode;
      break;
  }
  return next;
}
