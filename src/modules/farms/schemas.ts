import { type Static, Type } from 'typebox';
import { MAX_WINDOW_S, MIN_WINDOW_S } from '../../domain/built-in-rules.ts';
import { HOLDING_TYPES } from '../../domain/movements.ts';
import { JURISDICTIONS, MAX_WITHDRAWAL_DAYS } from '../../domain/withdrawal.ts';
import { DateTime, Nullable } from '../../http/schemas.ts';

const Rules = Type.Record(
  Type.String(),
  Type.Object(
    {
      watch: Type.Optional(Type.Number()),
      urgent: Type.Optional(Nullable(Type.Number())),
      clear: Type.Optional(Type.Number()),
      for_s: Type.Optional(
        Nullable(
          Type.Number({
            description: 'Seconds the condition must hold (by reading time) before an alert opens.',
          }),
        ),
      ),
      change: Type.Optional(
        Type.Number({
          description: 'water.leak: the fall (negative, in points) within window_s that opens it.',
        }),
      ),
      window_s: Type.Optional(
        Type.Integer({ description: `water.leak: the window in seconds (${MIN_WINDOW_S}–${MAX_WINDOW_S}).` }),
      ),
      quiet_after_s: Type.Optional(
        Type.Union([Type.Integer(), Type.Record(Type.String(), Type.Integer())], {
          description:
            'device.quiet: the least silence in seconds before a device counts as quiet (default 900; 900–604800), for every type or as an object by device type. A device is quiet after max(3 × its usual interval, this).',
        }),
      ),
      drop_pct: Type.Optional(
        Type.Union([Type.Number(), Type.Record(Type.String(), Type.Number())], {
          description:
            'group.intake_drop: how far below its trailing 7-day median, in percent, a day’s intake per head opens the alert (defaults 25 for water.used_l, 20 for feed.dispensed_kg; above 10 and at most 100), for both or as an object by metric.',
        }),
      ),
      enabled: Type.Optional(
        Type.Boolean({
          description: 'water.leak, device.quiet, group.intake_drop: false turns the rule off.',
        }),
      ),
    },
    { additionalProperties: false },
  ),
  {
    description:
      'Alert rule overrides keyed by rule name (see GET /v1/catalog for the rules): lines and for_s for threshold rules; change, window_s, for_s for water.leak; quiet_after_s for device.quiet; drop_pct for group.intake_drop; enabled for the last three. Turning one of those off resolves the alerts it opened.',
  },
);

const Withdrawal = Type.Object(
  {
    jurisdiction: Type.Optional(
      Type.Enum(JURISDICTIONS, {
        type: 'string',
        description:
          'Whose cascade rules apply off-label (default uk: VMR 2013 sch. 4 para 2; eu: Reg. 2019/6 art. 115; us and au have no statutory figure and use the EU numbers; custom: the cascade numbers given). docs/records.md.',
      }),
    ),
    organic: Type.Optional(
      Type.Boolean({ description: 'An organic farm: every withdrawal period is doubled.' }),
    ),
    cascade: Type.Optional(
      Type.Object(
        {
          factor: Type.Optional(Type.Number({ minimum: 1, maximum: 10 })),
          meat_days: Type.Optional(Type.Number({ minimum: 0, maximum: MAX_WITHDRAWAL_DAYS })),
          milk_days: Type.Optional(Type.Number({ minimum: 0, maximum: MAX_WITHDRAWAL_DAYS })),
          eggs_days: Type.Optional(Type.Number({ minimum: 0, maximum: MAX_WITHDRAWAL_DAYS })),
        },
        {
          additionalProperties: false,
          description:
            "The farm's own cascade numbers over its jurisdiction's: the factor on the label's longest period, and the minimum days where the label gives none (custom: all four).",
        },
      ),
    ),
  },
  { additionalProperties: false, description: "The herd book's withdrawal rules (docs/records.md)." },
);

export const FarmSettings = Type.Object(
  { rules: Type.Optional(Rules), withdrawal: Type.Optional(Withdrawal) },
  {
    additionalProperties: true,
    description:
      "`rules` overrides alert thresholds; `withdrawal` sets the herd book's withdrawal rules; other members are kept as given. PATCH merges members one level deep; a member set to null is removed.",
  },
);

export const FarmSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    mode: Type.Union([Type.Literal('live'), Type.Literal('test')]),
    timezone: Type.String({ description: 'IANA time zone, e.g. America/Chicago.' }),
    lat: Nullable(Type.Number()),
    lon: Nullable(Type.Number()),
    acres: Nullable(Type.Number()),
    sample: Type.Boolean(),
    settings: Type.Record(Type.String(), Type.Unknown()),
    holding: Type.Union([Type.Object({ number: Type.String(), type: Type.String() }), Type.Null()], {
      description: 'Holding number.',
    }),
    created_at: DateTime(),
  },
  {
    $id: 'Farm',
    title: 'Farm',
    examples: [
      {
        id: 'farm_01kyct2fdr20b7h8952h0m29dd',
        name: 'Willow Creek Farm',
        mode: 'live',
        timezone: 'America/Chicago',
        lat: 38.9517,
        lon: -92.3341,
        acres: 160,
        sample: false,
        settings: { rules: { 'house.heat': { watch: 31, urgent: 34, clear: 29 } } },
        holding: { number: '12/345/6789', type: 'cph' },
        created_at: '2026-07-25T14:15:08.984Z',
      },
    ],
  },
);

const fields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  timezone: Type.String({
    minLength: 1,
    description: 'IANA time zone; on create, default: the zone of lat/lon when both are given, else UTC.',
  }),
  lat: Nullable(Type.Number({ minimum: -90, maximum: 90 })),
  lon: Nullable(Type.Number({ minimum: -180, maximum: 180 })),
  acres: Nullable(Type.Number({ minimum: 0 })),
  holding: Type.Union(
    [
      Type.Object(
        {
          number: Type.String({ minLength: 1, maxLength: 100 }),
          type: Type.Enum(HOLDING_TYPES, { type: 'string' }),
        },
        { additionalProperties: false },
      ),
      Type.Null(),
    ],
    {
      description: `The holding number (the herd book's register): free text, and its type: ${HOLDING_TYPES.join(', ')} (CPH in the UK, PIC in Australia, herd number in Ireland, premises ID in the US). null clears it.`,
    },
  ),
};

export const CreateFarmBody = Type.Object(
  {
    name: fields.name,
    timezone: Type.Optional(fields.timezone),
    lat: Type.Optional(fields.lat),
    lon: Type.Optional(fields.lon),
    acres: Type.Optional(fields.acres),
    holding: Type.Optional(fields.holding),
    settings: Type.Optional(FarmSettings),
  },
  { additionalProperties: false },
);

export const UpdateFarmBody = Type.Object(
  {
    name: Type.Optional(fields.name),
    timezone: Type.Optional(fields.timezone),
    lat: Type.Optional(fields.lat),
    lon: Type.Optional(fields.lon),
    acres: Type.Optional(fields.acres),
    holding: Type.Optional(fields.holding),
    settings: Type.Optional(Nullable(FarmSettings)),
  },
  { additionalProperties: false },
);

export type Farm = Static<typeof FarmSchema>;
export type CreateFarmInput = Static<typeof CreateFarmBody>;
export type UpdateFarmInput = Static<typeof UpdateFarmBody>;
