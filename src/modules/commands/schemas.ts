import { type Static, Type } from 'typebox';
import { COMMAND_ANSWER_STATUSES, COMMAND_STATUSES } from '../../domain/statuses.ts';
import { DateTime, Nullable, PageQuery } from '../../http/schemas.ts';

/** Longest expiry a command may ask for: 30 days. */
export const MAX_COMMAND_EXPIRY_S = 30 * 86_400;

export const CommandSchema = Type.Object(
  {
    id: Type.String(),
    farm_id: Type.String(),
    device_id: Type.String(),
    command: Type.String({ description: 'Command name (see GET /v1/catalog for each device type).' }),
    params: Type.Record(Type.String(), Type.Unknown(), {
      description: 'As validated and stored, with defaults filled in.',
    }),
    status: Type.Enum([...COMMAND_STATUSES]),
    result: Nullable(
      Type.Record(Type.String(), Type.Unknown(), {
        description:
          'What the device answered; `{error: "expired"}` when it expired unanswered; `simulated: true` on the sample farm.',
      }),
    ),
    created_at: DateTime(),
    delivered_at: Nullable(DateTime('When the command was first handed to the device.')),
    done_at: Nullable(DateTime('When it finished (done or failed).')),
    expires_at: DateTime('A command still queued or delivered at this time becomes failed (expired).'),
    delivery_attempts: Type.Integer({
      minimum: 0,
      description:
        'How many times the command was handed to the device (ingest response, poll, MQTT); more than 1 means it was handed out again because no answer came. Devices de-duplicate by id.',
    }),
    redeliver_after_s: Type.Integer({
      minimum: 1,
      description: 'A command handed out and not answered within this many seconds is handed out again.',
    }),
  },
  {
    $id: 'Command',
    title: 'Command',
    examples: [
      {
        id: 'cmd_01m81srran8c6cjx23a6yw163h',
        farm_id: 'farm_01kyct2fdr20b7h8952h0m29dd',
        device_id: 'dev_01m379xkdt1y8q9xray6w7qzb0',
        command: 'doors.open',
        params: { doors: 'all' },
        status: 'queued',
        result: null,
        created_at: '2026-11-22T14:15:09.909Z',
        delivered_at: null,
        done_at: null,
        expires_at: '2026-11-23T14:15:09.909Z',
        delivery_attempts: 0,
        redeliver_after_s: 60,
      },
    ],
  },
);

export const QueueCommandBody = Type.Object(
  {
    command: Type.String({ minLength: 1, maxLength: 100, description: 'Command name, e.g. doors.open.' }),
    params: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), { description: 'Parameters of the command.' }),
    ),
    expires_in_s: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_COMMAND_EXPIRY_S,
        description:
          'Seconds until an unanswered command fails as expired (default: the server’s FARMSTEAD_COMMAND_EXPIRY_S setting).',
      }),
    ),
    redeliver_after_s: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_COMMAND_EXPIRY_S,
        description:
          'Seconds after which a command handed out and not answered is handed out again (default: the server’s FARMSTEAD_COMMAND_REDELIVER_S setting).',
      }),
    ),
  },
  { additionalProperties: false },
);

export const AnswerCommandBody = Type.Object(
  {
    status: Type.Enum([...COMMAND_ANSWER_STATUSES], { description: 'How the command ended.' }),
    result: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), { description: 'Anything the device reports back.' }),
    ),
  },
  { additionalProperties: false },
);

export const CommandListQuery = Type.Object(
  { ...PageQuery, status: Type.Optional(Type.Enum([...COMMAND_STATUSES])) },
  { additionalProperties: false },
);

export type Command = Static<typeof CommandSchema>;
export type QueueCommandInput = Static<typeof QueueCommandBody>;
export type AnswerCommandInput = Static<typeof AnswerCommandBody>;
