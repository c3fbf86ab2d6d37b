/**
 * Device types, the device events that open alerts, and the commands of devices other than houses.
 * The spec leaves tracker commands to the catalog; these definitions are that list.
 */

import { type CommandSpec, type CommandValidation, validateCommandFrom } from './command-params.ts';
import { DEVICE_TYPES, type DeviceType } from './device-types.ts';
import { validateHouseCommand } from './house-commands.ts';

// The list of types alone is device-types.ts (the console's devices page imports it without the commands).
export { DEVICE_TYPES, type DeviceType } from './device-types.ts';

export const DEVICE_TYPE_DESCRIPTIONS: Readonly<Record<DeviceType, string>> = Object.freeze({
  house: 'Solar mobile poultry house that moves itself to fresh grass; takes the house commands.',
  bolus: 'Rumen bolus reporting body temperature and rumination.',
  tag: 'Ear tag tracker reporting location and activity.',
  band: 'Leg or neck band tracker reporting location and activity.',
  guardian: 'Predator guardian unit that watches a flock or herd and can sound an alarm.',
  water: 'Water sensor or valve on a tank, trough or line.',
  weather: 'Weather station reporting temperature, humidity, rain and wind.',
  reader: 'EID reader or scale head that matches readings to animals by EID.',
  other: 'Any other device; it may report any metric and take any command.',
});

export function isDeviceType(value: unknown): value is DeviceType {
  return typeof value === 'string' && (DEVICE_TYPES as readonly string[]).includes(value);
}

export type AlarmSeverity = 'urgent' | 'watch';

export interface AlarmEventType {
  readonly type: string;
  readonly severity: AlarmSeverity;
  /** Alert title. */
  readonly title: string;
  readonly description: string;
}

/** Device-reported event types that open an alert as soon as they arrive. */
export const ALARM_EVENT_TYPES: readonly AlarmEventType[] = Object.freeze([
  {
    type: 'predator.detected',
    severity: 'urgent',
    title: 'Predator detected',
    description: 'A vision pod or guardian saw a predator near the animals.',
  },
  {
    type: 'safety_edge.stop',
    severity: 'urgent',
    title: 'Safety edge stopped the house',
    description: 'The safety edge of a house touched something and stopped the drive.',
  },
  {
    type: 'door.jammed',
    severity: 'watch',
    title: 'Pop door jammed',
    description: 'A pop door did not finish opening or closing.',
  },
]);

export const ALARM_EVENT_BY_TYPE: ReadonlyMap<string, AlarmEventType> = new Map(
  ALARM_EVENT_TYPES.map((e) => [e.type, e]),
);

const TRACKER_COMMANDS: readonly CommandSpec[] = Object.freeze([
  { name: 'locate', description: 'Asks the tracker to report its position now.', params: [] },
  {
    name: 'set_report_interval',
    description: 'Sets how often the tracker reports.',
    params: [
      {
        name: 'seconds',
        type: 'integer',
        required: true,
        description: 'Seconds between reports, 60 (one minute) to 86400 (one day).',
        min: 60,
        max: 86400,
      },
    ],
  },
]);

/**
 * Commands per device type, for the types that have a fixed set. Houses have the house commands;
 * types left out here (weather, reader, other) take any command name.
 */
export const DEVICE_COMMANDS: Readonly<Partial<Record<DeviceType, readonly CommandSpec[]>>> = Object.freeze({
  bolus: TRACKER_COMMANDS,
  tag: TRACKER_COMMANDS,
  band: TRACKER_COMMANDS,
  guardian: [
    {
      name: 'alarm.sound',
      description: 'Sounds the guardian alarm to drive a predator off.',
      params: [
        {
          name: 'seconds',
          type: 'integer',
          required: false,
          description: 'How long to sound, 1-300 seconds; default 30.',
          min: 1,
          max: 300,
          default: 30,
        },
      ],
    },
    { name: 'alarm.silence', description: 'Silences the guardian alarm.', params: [] },
  ],
  water: [
    {
      name: 'valve.set',
      description: 'Opens or closes the water valve.',
      params: [
        {
          name: 'position',
          type: 'enum',
          required: true,
          description: 'Valve position.',
          enum: ['open', 'closed'],
        },
      ],
    },
  ],
});

const FREE_COMMAND_NAME_MAX = 100;

/**
 * Validates a command for a device of `deviceType`: house commands for houses, the fixed sets above
 * for the types that have one, and for the rest any non-empty command name with object params
 * (stored as sent), since such devices define their own commands.
 */
export function validateDeviceCommand(
  deviceType: string,
  command: string,
  params: unknown,
): CommandValidation {
  if (deviceType === 'house') return validateHouseCommand(command, params);
  const specs = isDeviceType(deviceType) ? DEVICE_COMMANDS[deviceType] : undefined;
  if (specs) return validateCommandFrom(specs, `${deviceType} device`, command, params);

  if (typeof command !== 'string' || command.trim() === '' || command.length > FREE_COMMAND_NAME_MAX) {
    return {
      ok: false,
      param: 'command',
      message: `command must be a non-empty name of at most ${FREE_COMMAND_NAME_MAX} characters.`,
    };
  }
  if (params === undefined || params === null) return { ok: true, params: {} };
  if (typeof params !== 'object' || Array.isArray(params)) {
    return { ok: false, param: 'params', message: `params of ${command} must be an object.` };
  }
  return { ok: true, params: { ...params } };
}
