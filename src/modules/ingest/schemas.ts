import { type Static, Type } from 'typebox';
import { DateInput } from '../../http/schemas.ts';
import type { Command } from '../commands/schemas.ts';
import type { RefusedEvent, RefusedReading } from './clock.ts';

/** Most device events one report may carry. */
export const MAX_EVENTS_PER_REPORT = 1_000;

const IngestReading = Type.Object(
  {
    metric: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'Any metric name, e.g. climate.temp_c.',
    }),
    value: Type.Number({ description: 'A finite number.' }),
    unit: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 50,
        description: 'Default: the catalog unit of a known metric.',
      }),
    ),
    at: Type.Optional(DateInput('When measured (default: receipt).')),
    eid: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description:
          "The animal's electronic id, for readings of an animal taken by a shared device (a scale head's weight.kg): the reading is also written to that animal's history.",
      }),
    ),
  },
  { additionalProperties: false },
);

const IngestEvent = Type.Object(
  {
    type: Type.String({
      minLength: 1,
      maxLength: 100,
      description:
        'predator.detected, safety_edge.stop and door.jammed open alerts; any other name is logged.',
    }),
    data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    at: Type.Optional(DateInput('When it happened (default: receipt).')),
  },
  { additionalProperties: false },
);

export const IngestBody = Type.Object(
  {
    at: Type.Optional(
      DateInput(
        "When the report was made (default: receipt): the time of its battery, lat, lon and firmware, and of its readings and events that give none. A report older than the device's last status leaves its battery, position and firmware as they are; its position still goes into the track, at this time.",
      ),
    ),
    readings: Type.Optional(
      Type.Array(IngestReading, { description: 'At most 1,000 per report (more is 413, nothing stored).' }),
    ),
    state: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description:
          'Merged into the stored state: objects key by key, other values replaced, null removes a key.',
      }),
    ),
    events: Type.Optional(Type.Array(IngestEvent, { maxItems: MAX_EVENTS_PER_REPORT })),
    battery: Type.Optional(
      Type.Number({ minimum: 0, maximum: 100, description: 'Battery charge, percent.' }),
    ),
    lat: Type.Optional(Type.Number({ minimum: -90, maximum: 90 })),
    lon: Type.Optional(Type.Number({ minimum: -180, maximum: 180 })),
    firmware: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  },
  { additionalProperties: false },
);

const Refusal = {
  at: Type.String({ format: 'date-time', description: 'The time as sent (UTC).' }),
  reason: Type.Literal('clock_ahead', {
    description:
      "Why it was not stored: clock_ahead, dated more than FARMSTEAD_MAX_CLOCK_SKEW_S (300 s by default) ahead of the server's clock.",
  }),
  message: Type.String({ description: 'The same, in words, with the times.' }),
};

export const RefusedReadingSchema = Type.Object(
  {
    index: Type.Integer({ minimum: 0, description: 'Its place in `readings` as sent (0 first).' }),
    metric: Type.String(),
    ...Refusal,
  },
  { title: 'RefusedReading' },
);

export const RefusedEventSchema = Type.Object(
  {
    index: Type.Integer({ minimum: 0, description: 'Its place in `events` as sent (0 first).' }),
    type: Type.String(),
    ...Refusal,
  },
  { title: 'RefusedEvent' },
);

export const IngestResponse = Type.Object({
  ok: Type.Boolean(),
  accepted: Type.Integer({
    description: 'Readings stored from this report (those listed in `refused` are not).',
  }),
  refused: Type.Optional(
    Type.Array(RefusedReadingSchema, {
      description:
        "Readings not stored, and why (present only when there are some): dated too far ahead of the server's clock. The report's other readings are stored, and the device gets a device.clock alert.",
    }),
  ),
  refused_events: Type.Optional(
    Type.Array(RefusedEventSchema, {
      description: 'Events not stored, and why (present only when there are some), as for `refused`.',
    }),
  ),
  commands: Type.Array(Type.Ref('Command'), {
    description: 'Commands waiting for the device; they are now delivered.',
  }),
  impossible_weights: Type.Optional(
    Type.Array(
      Type.Object({
        index: Type.Integer({ minimum: 0, description: 'Its place in `readings` as sent (0 first).' }),
        eid: Type.String(),
        message: Type.String({ description: "Why: the weight and the species' possible weights." }),
      }),
      {
        description:
          "weight.kg readings naming an animal by EID that cannot be its weight for its species (present only when there are some): stored as readings, but not as the animal's weight.",
      },
    ),
  ),
  unmatched_eids: Type.Optional(
    Type.Array(Type.String(), {
      description:
        'EIDs in this report that match no animal on the farm (their readings are stored all the same).',
    }),
  ),
});

export type IngestInput = Static<typeof IngestBody>;
export interface ImpossibleWeight {
  index: number;
  eid: string;
  message: string;
}
export interface IngestResult {
  ok: true;
  accepted: number;
  commands: Command[];
  unmatched_eids?: string[];
  impossible_weights?: ImpossibleWeight[];
  refused?: RefusedReading[];
  refused_events?: RefusedEvent[];
}
