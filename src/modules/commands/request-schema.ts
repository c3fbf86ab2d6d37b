/**
 * The body of POST /v1/devices/{id}/commands as the OpenAPI document shows it: a `oneOf` with one
 * branch per command of the registry (src/domain), each fixing `command` and typing its `params`, so a
 * generated client knows every command's parameters. The route itself still checks the body with
 * QueueCommandBody and the commands service (its messages name the command and the parameter), so
 * this schema is for the document only and never reaches Ajv.
 */
import type { TSchema } from 'typebox';
import { type CommandSpec, type JsonSchema, paramsJsonSchema } from '../../domain/command-params.ts';
import { DEVICE_COMMANDS, DEVICE_TYPES } from '../../domain/devices.ts';
import { DOOR_COUNT, HEATER_PANEL_COUNT, HOUSE_COMMANDS } from '../../domain/house-commands.ts';
import { QueueCommandBody } from './schemas.ts';

const EXPIRES_IN_S = QueueCommandBody.properties.expires_in_s;
const REDELIVER_AFTER_S = QueueCommandBody.properties.redeliver_after_s;

/**
 * The params schema without `default`s: the server fills them in, but client generators read a default
 * as "always present" and would make the caller send it. Each description already names the default.
 */
function withoutDefaults(params: JsonSchema): JsonSchema {
  const properties = Object.fromEntries(
    Object.entries(params.properties as Record<string, JsonSchema>).map(([name, schema]) => {
      const { default: _filledByServer, ...rest } = schema;
      return [name, rest];
    }),
  );
  return { ...params, properties };
}

/** One branch: `command` fixed to the name, `params` as the registry describes them. */
function commandBranch(spec: CommandSpec, deviceTypes: readonly string[]): JsonSchema {
  const needsParams = spec.params.some((p) => p.required) || (spec.atLeastOneOf?.length ?? 0) > 0;
  const caution = spec.caution ? ` ${spec.caution}` : '';
  return {
    type: 'object',
    title: spec.name,
    description: `${spec.description} For devices of type ${deviceTypes.join(', ')}.${caution}`,
    required: needsParams ? ['command', 'params'] : ['command'],
    properties: {
      command: { type: 'string', const: spec.name },
      params: withoutDefaults(paramsJsonSchema(spec)),
      expires_in_s: EXPIRES_IN_S,
      redeliver_after_s: REDELIVER_AFTER_S,
    },
    additionalProperties: false,
  };
}

/** The device types that take each fixed command (trackers share one set). */
function deviceCommandTypes(): Map<CommandSpec, string[]> {
  const types = new Map<CommandSpec, string[]>();
  for (const type of DEVICE_TYPES) {
    for (const spec of DEVICE_COMMANDS[type] ?? []) types.set(spec, [...(types.get(spec) ?? []), type]);
  }
  return types;
}

const deviceCommands = deviceCommandTypes();

/** Every command name the registry knows; a free-form command may use none of them. */
const KNOWN_COMMAND_NAMES = [...HOUSE_COMMANDS, ...deviceCommands.keys()].map((spec) => spec.name);

/** Device types whose commands are not fixed: any command name, params stored as sent. */
const FREE_FORM_TYPES = DEVICE_TYPES.filter((type) => type !== 'house' && !DEVICE_COMMANDS[type]);

/** The house commands: name it as the body type of a house command to have its params checked. */
export const HouseCommandSchema: TSchema = {
  $id: 'HouseCommand',
  title: 'HouseCommand',
  description: `A command for a house, with its parameters (GET /v1/catalog lists the same). Pop doors are numbered 1-${DOOR_COUNT}, heater panels 1-${HEATER_PANEL_COUNT}.`,
  oneOf: HOUSE_COMMANDS.map((spec) => commandBranch(spec, ['house'])),
  examples: [
    { command: 'doors.open', params: { doors: 'all' } },
    { command: 'move.start', params: { meters_per_day: 18 } },
  ],
};

/** The fixed commands of the device types other than houses that have them (trackers, guardians, water). */
export const DeviceCommandSchema: TSchema = {
  $id: 'DeviceCommand',
  title: 'DeviceCommand',
  description:
    'A command for a tracker (bolus, tag, band), a guardian or a water device, with its parameters.',
  oneOf: [...deviceCommands].map(([spec, types]) => commandBranch(spec, types)),
  examples: [{ command: 'set_report_interval', params: { seconds: 900 } }],
};

/**
 * The three parts never overlap (the free-form part excludes the registry's names), so anyOf here
 * validates exactly as oneOf would; within each part `command` discriminates.
 */
export const CommandRequestSchema: TSchema = {
  $id: 'CommandRequest',
  title: 'CommandRequest',
  description: `A command for a device: a house command, a fixed command of the other device types that have them, or, for devices of type ${FREE_FORM_TYPES.join(', ')}, any other command name with params stored as sent. A command the device does not take is 400 naming \`command\`; a wrong parameter is 400 naming \`params.<name>\`.`,
  anyOf: [
    { $ref: 'HouseCommand' },
    { $ref: 'DeviceCommand' },
    {
      type: 'object',
      title: 'OtherCommand',
      description: `A command of a device of type ${FREE_FORM_TYPES.join(', ')}: such devices define their own commands; params are stored as sent.`,
      required: ['command'],
      properties: {
        command: {
          ...QueueCommandBody.properties.command,
          not: { enum: KNOWN_COMMAND_NAMES },
          description: 'Any command name the device understands (not one of the registry’s names).',
        },
        params: { type: 'object', additionalProperties: true, description: 'Stored as sent.' },
        expires_in_s: EXPIRES_IN_S,
        redeliver_after_s: REDELIVER_AFTER_S,
      },
      additionalProperties: false,
    },
  ],
};
