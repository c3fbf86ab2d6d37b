/** Device tools: list_devices, get_readings, house_status, house_command. */
import { Type } from 'typebox';
import { parsePage } from '../../../db/pagination.ts';
import { validateDeviceCommand } from '../../../domain/devices.ts';
import { invalid } from '../../../domain/errors.ts';
import { HOUSE_COMMAND_NAMES, HOUSE_COMMANDS } from '../../../domain/house-commands.ts';
import { Nullable } from '../../../http/schemas.ts';
import { CommandSchema } from '../../commands/schemas.ts';
import { queueCommand } from '../../commands/service.ts';
import { DeviceListQuery, DeviceSchema } from '../../devices/schemas.ts';
import { listDevices } from '../../devices/service.ts';
import { getFarm } from '../../farms/service.ts';
import { HouseSchema } from '../../houses/schemas.ts';
import { getHouse, getHouses, listHouseNames } from '../../houses/service.ts';
import {
  READING_AGGS,
  READING_INTERVAL_NAMES,
  READINGS_DEFAULT_LIMIT,
  READINGS_MAX_LIMIT,
  ReadingSchema,
} from '../../readings/schemas.ts';
import { getReadings, latestReadings } from '../../readings/service.ts';
import { confirmationNeeded } from '../safety.ts';
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
  description:
    "A farm's devices (houses, tanks, trackers, weather stations…) with battery, last report and state; filter by type, animal_id or group_id. An old last_seen_at means the device went quiet.",
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

export const getReadingsTool = defineTool({
  name: 'get_readings',
  title: 'Get readings',
  description:
    "One device's readings over time, newest first. Give metric for one series and since for a window; for a long span give interval and agg for one point per bucket. An unknown metric is answered with the metrics the device reports.",
  input: Type.Object(
    {
      device_id: Type.String({ minLength: 1, description: 'The device (an id from list_devices).' }),
      metric: Type.Optional(
        Type.String({
          minLength: 1,
          description: 'Only this metric, e.g. climate.temp_c (get_catalog lists them).',
        }),
      ),
      since: Type.Optional(
        Type.String({ format: 'date-time', description: 'Only readings at or after this time (ISO 8601).' }),
      ),
      limit: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: READINGS_MAX_LIMIT,
          description: `Default ${READINGS_DEFAULT_LIMIT}.`,
        }),
      ),
      before: Type.Optional(Type.String({ minLength: 1, description: 'next_before of the last page.' })),
      interval: Type.Optional(
        Type.Enum(READING_INTERVAL_NAMES, { type: 'string', description: 'Bucket width.' }),
      ),
      agg: Type.Optional(
        Type.Enum(READING_AGGS, { type: 'string', description: 'With interval (default avg).' }),
      ),
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
    if (options.metric !== undefined && series.data.length === 0 && options.before === undefined) {
      // An empty series for a metric the device never reported is a wrong name, not a quiet window.
      const reported = Object.keys((await latestReadings(ctx.db, [device_id]))[device_id] ?? {}).sort();
      if (!reported.includes(options.metric)) {
        throw invalid(
          'metric',
          reported.length > 0
            ? `device ${device_id} has never reported "${options.metric}". It reports: ${reported.join(', ')}.`
            : `device ${device_id} has not reported any readings yet.`,
        );
      }
    }
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
  description:
    "The mobile poultry houses of a farm (or one): doors, move, climate, feed and water readings and the last commands, oldest house first. Use it before house_command and to check a command's result.",
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

/** One line per command: its name and params (`?` optional, `[a|b]` the values); get_catalog has the rest. */
const COMMAND_LINES = HOUSE_COMMANDS.map((c) => {
  const params = c.params.map(
    (p) => `${p.name}${p.required ? '' : '?'}${p.enum ? `[${p.enum.join('|')}]` : ''}`,
  );
  return `${c.name}${params.length > 0 ? `(${params.join(', ')})` : ''}`;
}).join('; ');

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
        description: 'Its parameters (see the command list); none for commands without.',
      }),
    ),
    confirm: Type.Optional(
      Type.Boolean({
        description: 'True only after the farmer agreed: moving a house, doors.open after dark.',
      }),
    ),
  },
  { additionalProperties: false },
);

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
  description: `Sends a command to a mobile poultry house (check house_status first); the sample farm runs it at once, a real house when it next reports (house_status shows the result). Moving a house, or opening doors after dark, needs the farmer's OK: without confirm: true the call is refused with the question to ask; call again with confirm: true only after they agree, never on your own. Commands (params; get_catalog describes them): ${COMMAND_LINES}.`,
  input: HouseCommandInput,
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
