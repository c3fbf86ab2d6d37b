/** Device tools: list_devices, get_readings, house_status, house_command. */
import { Type } from 'typebox';
import { parsePage } from '../../../db/pagination.ts';
import { DEVICE_TYPE_DESCRIPTIONS, DEVICE_TYPES, validateDeviceCommand } from '../../../domain/devices.ts';
import { invalid } from '../../../domain/errors.ts';
import { HOUSE_COMMAND_NAMES, HOUSE_COMMANDS, paramsJsonSchema } from '../../../domain/house-commands.ts';
import { METRICS } from '../../../domain/metrics.ts';
import { Nullable } from '../../../http/schemas.ts';
import { CommandSchema } from '../../commands/schemas.ts';
import { queueCommand } from '../../commands/service.ts';
import { DeviceListQuery, DeviceSchema } from '../../devices/schemas.ts';
import { listDevices } from '../../devices/service.ts';
import { getFarm } from '../../farms/service.ts';
import { HouseSchema } from '../../houses/schemas.ts';
import { getHouse, getHouses, HOUSE_RECENT_COMMANDS, listHouseNames } from '../../houses/service.ts';
import {
  READINGS_DEFAULT_LIMIT,
  READINGS_MAX_LIMIT,
  ReadingSchema,
  ReadingsQuery,
} from '../../readings/schemas.ts';
import { getReadings } from '../../readings/service.ts';
import { confirmationNeeded } from '../safety.ts';
import { toJsonSchema } from '../schema.ts';
import {
  defineTool,
  FarmIdArg,
  PageArgs,
  PageOutput,
  pageResult,
  READ_ONLY,
  resolveFarm,
  type ToolContext,
  ToolRefusal,
} from '../tool.ts';

export const listDevicesTool = defineTool({
  name: 'list_devices',
  title: 'List devices',
  description: `Lists a farm's devices with their battery (%), last report time (last_seen_at), position and state. Types: ${DEVICE_TYPES.map((t) => `${t} (${DEVICE_TYPE_DESCRIPTIONS[t]})`).join('; ')} Filter by type, animal_id (the trackers on an animal) or group_id. A device whose last_seen_at is long ago has gone quiet. Newest first; when has_more is true, call again with before set to next_before.`,
  input: Type.Object(
    {
      farm_id: FarmIdArg,
      type: DeviceListQuery.properties.type,
      animal_id: DeviceListQuery.properties.animal_id,
      group_id: DeviceListQuery.properties.group_id,
      ...PageArgs,
    },
    { additionalProperties: false },
  ),
  output: PageOutput(DeviceSchema),
  annotations: READ_ONLY,
  async run(ctx, args) {
    const { farm_id, limit, before, ...filters } = args;
    const farm = await resolveFarm(ctx, farm_id);
    return pageResult(
      'list_devices',
      await listDevices(ctx.db, ctx.scope, farm.id, filters, parsePage({ limit, before })),
    );
  },
});

const METRIC_LIST = METRICS.map((m) => `${m.name} (${m.unit}, ${m.meaning})`).join('; ');

export const getReadingsTool = defineTool({
  name: 'get_readings',
  title: 'Get readings',
  description: `A time series of one device's readings, newest first: each reading has metric, value, unit and at. Give metric to get one series (devices may report any metric; the known ones are ${METRIC_LIST}) and since (ISO 8601) to start from a time, e.g. the last 24 hours. If has_more is true there are older readings in that window: call again with before set to next_before. For a long span (a week, a season) give interval (1m, 5m, 1h, 1d) and agg (avg, min, max, sum, count, last) to get one point per metric and bucket instead of every raw reading. Find device ids with list_devices, house_status or get_animal (trackers).`,
  input: Type.Object(
    {
      device_id: Type.String({ minLength: 1, description: 'The device (an id from list_devices).' }),
      metric: Type.Optional(
        Type.String({
          minLength: 1,
          description: 'Only this metric, e.g. climate.temp_c.',
          examples: METRICS.map((m) => m.name),
        }),
      ),
      since: Type.Optional(
        Type.String({ format: 'date-time', description: 'Only readings at or after this time (ISO 8601).' }),
      ),
      limit: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: READINGS_MAX_LIMIT,
          description: `How many readings, 1 to ${READINGS_MAX_LIMIT} (default ${READINGS_DEFAULT_LIMIT}).`,
        }),
      ),
      before: ReadingsQuery.properties.before,
      interval: ReadingsQuery.properties.interval,
      agg: ReadingsQuery.properties.agg,
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    device_id: Type.String(),
    data: Type.Array(ReadingSchema),
    has_more: Type.Boolean({ description: 'True when older readings match too.' }),
    next_before: Nullable(Type.String({ description: 'Cursor for the next (older) page, or null.' })),
    next_page: Nullable(Type.String({ description: 'How to see more, or null.' })),
  }),
  annotations: READ_ONLY,
  async run(ctx, args) {
    const { device_id, ...options } = args;
    const series = await getReadings(ctx.db, ctx.scope, device_id, options);
    return {
      device_id,
      ...series,
      next_page:
        series.has_more && series.next_before
          ? `More readings are older than the oldest shown: call get_readings again with the same arguments and before="${series.next_before}".`
          : null,
    };
  },
});

/** house_status's paging members: a page's (`has_more`, `next_before`, `next_page`), its houses as `houses`. */
const { data: _houses, ...HOUSE_PAGING } = PageOutput(HouseSchema).properties;

export const houseStatusTool = defineTool({
  name: 'house_status',
  title: 'House status',
  description: `Every mobile poultry house on a farm (or one, with house_id): its state (the 14 pop doors and their schedule, the move: stepping or stopped, metres per day, heading, target paddock; spine height, climate mode and target, awnings, fans, heaters, the winter floor, lights), latest_readings keyed by metric (feed.bin_pct, water.tank_pct, climate.temp_c, climate.nh3_ppm, power.battery_pct, power.solar_w, birds.inside…, each with value, unit and time) and its last ${HOUSE_RECENT_COMMANDS} commands with their status. Use it before house_command, and to check a command's result. Houses come oldest first, a page at a time: when has_more is true there are more houses, so call again with before set to next_before.`,
  input: Type.Object(
    {
      farm_id: FarmIdArg,
      house_id: Type.Optional(
        Type.String({ minLength: 1, description: 'Only this house (a device id of type house).' }),
      ),
      limit: PageArgs.limit,
      before: Type.Optional(
        Type.String({
          minLength: 1,
          description:
            'Paging cursor: pass the next_before value of the previous result to get the next houses (they come oldest first).',
        }),
      ),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    farm_id: Type.String(),
    houses: Type.Array(HouseSchema),
    ...HOUSE_PAGING,
  }),
  annotations: READ_ONLY,
  async run(ctx, args) {
    if (args.house_id !== undefined) {
      const house = await getHouse(ctx.db, ctx.scope, args.house_id);
      if (args.farm_id !== undefined && args.farm_id !== house.farm_id) {
        throw invalid('house_id', `house_id "${args.house_id}" is not on farm "${args.farm_id}".`);
      }
      return { farm_id: house.farm_id, houses: [house], has_more: false, next_before: null, next_page: null };
    }
    const farm = await resolveFarm(ctx, args.farm_id);
    const page = await getHouses(
      ctx.db,
      ctx.scope,
      farm.id,
      parsePage({ limit: args.limit, before: args.before }),
    );
    const { data, ...paging } = pageResult('house_status', page);
    return { farm_id: farm.id, houses: data, ...paging };
  },
});

const sentence = (text: string): string => text.replace(/\.$/, '');

function paramsText(spec: (typeof HOUSE_COMMANDS)[number]): string {
  if (spec.params.length === 0) return 'none';
  return spec.params
    .map((p) => {
      const values = p.enum ? ` (one of: ${p.enum.join(', ')})` : '';
      return `${p.name}${p.required ? '' : ' (optional)'}: ${sentence(p.description)}${values}`;
    })
    .join('; ');
}

const COMMAND_LINES = HOUSE_COMMANDS.map(
  (c) =>
    `- ${c.name}: ${sentence(c.description)}. Params: ${paramsText(c)}.${c.caution ? ` ${c.caution}` : ''}`,
).join('\n');

const HouseCommandInput = Type.Object(
  {
    farm_id: FarmIdArg,
    house_id: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'The house (a device id from house_status). May be left out when the farm has exactly one house.',
      }),
    ),
    command: Type.Enum([...HOUSE_COMMAND_NAMES], {
      type: 'string',
      description: 'The house command to send.',
    }),
    params: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: 'The command’s parameters (see the command list); leave out for commands without any.',
      }),
    ),
    confirm: Type.Optional(
      Type.Boolean({
        description:
          'Set true only after the farmer agreed: required for move.start and move.to_paddock, and for doors.open after dark at the farm.',
      }),
    ),
  },
  { additionalProperties: false },
);

/** tools/list shows each command's params schema; the commands service checks them (as for REST). */
const ADVERTISED_HOUSE_COMMAND_INPUT = {
  ...toJsonSchema(HouseCommandInput),
  allOf: HOUSE_COMMANDS.map((spec) => ({
    if: { properties: { command: { const: spec.name } }, required: ['command'] },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword, not a promise.
    then: { properties: { params: paramsJsonSchema(spec) } },
  })),
};

async function resolveHouse(ctx: ToolContext, farmId: string | undefined, houseId: string | undefined) {
  if (houseId !== undefined) {
    const house = await getHouse(ctx.db, ctx.scope, houseId);
    if (farmId !== undefined && farmId !== house.farm_id) {
      throw invalid('house_id', `house_id "${houseId}" is not on farm "${farmId}".`);
    }
    return house;
  }
  const farm = await resolveFarm(ctx, farmId);
  const houses = await listHouseNames(ctx.db, ctx.scope, farm.id);
  const [only] = houses;
  if (only && houses.length === 1) return getHouse(ctx.db, ctx.scope, only.id);
  if (!only) throw new ToolRefusal(`The farm "${farm.name}" (${farm.id}) has no houses to command.`);
  throw new ToolRefusal(
    `house_id is required: the farm "${farm.name}" has ${houses.length} houses. Pass house_id as one of: ${houses
      .map((h) => `${h.id} (${h.name})`)
      .join(', ')}.`,
  );
}

export const houseCommandTool = defineTool({
  name: 'house_command',
  title: 'Send house command',
  description: `Sends a command to a mobile poultry house and returns the command. On the sample farm it is carried out at once (status done, result.simulated true, the house state changes); on a real farm it is queued (status queued) until the house next reports, and house_status shows when it is done or failed.

Safety: moving a house (move.start, move.to_paddock) always needs the farmer's OK, and so does opening pop doors (doors.open) after dark at the farm (between sunset and sunrise at the farm's coordinates, in its time zone). Without confirm: true such a call is refused with an explanation and the question to ask the farmer; only after they agree, call again with confirm: true. Never set confirm on your own.

Commands:
${COMMAND_LINES}`,
  input: HouseCommandInput,
  advertisedInput: ADVERTISED_HOUSE_COMMAND_INPUT,
  output: Type.Object({
    command: CommandSchema,
    house_id: Type.String(),
    house_name: Type.String(),
    note: Type.String({ description: 'What happens next.' }),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  async run(ctx, args) {
    const house = await resolveHouse(ctx, args.farm_id, args.house_id);
    // Same check REST runs (and the commands service runs again): never ask the farmer about a command that would fail anyway.
    const checked = validateDeviceCommand('house', args.command, args.params ?? {});
    if (!checked.ok) throw invalid(checked.param, checked.message);
    if (args.confirm !== true) {
      const farm = await getFarm(ctx.db, ctx.scope, house.farm_id);
      const reason = confirmationNeeded(args.command, house.name, farm, Date.now(), checked.params);
      if (reason) throw new ToolRefusal(reason);
    }
    const command = await queueCommand(
      ctx.db,
      ctx.scope,
      house.id,
      { command: args.command, ...(args.params !== undefined ? { params: args.params } : {}) },
      {
        defaultExpirySeconds: ctx.commandExpirySeconds,
        defaultRedeliverSeconds: ctx.commandRedeliverSeconds,
      },
    );
    const note =
      command.status === 'done'
        ? 'Sample farm: carried out at once (simulated); house_status shows the new state.'
        : `Queued: the house picks it up when it next reports; it expires unanswered at ${command.expires_at}. Check house_status for its status.`;
    return { command, house_id: house.id, house_name: house.name, note };
  },
});
