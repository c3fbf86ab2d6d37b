import { type Static, Type } from 'typebox';
import { DateInput, DateTime, Nullable } from '../../http/schemas.ts';

export const ReadingSchema = Type.Object(
  {
    metric: Type.String(),
    value: Type.Number(),
    unit: Nullable(
      Type.String({
        description:
          "For a catalog metric, the catalog's unit (a reading sent in another accepted unit is converted); for any other metric, as reported.",
      }),
    ),
    at: DateTime('When the value was measured (with interval: the start of the bucket, UTC).'),
    raw_value: Type.Optional(
      Type.Number({
        description:
          "The value as the device sent it, present only when it was converted into the catalog's unit (raw readings only, not points).",
      }),
    ),
    raw_unit: Type.Optional(
      Type.String({
        description: 'The unit the device sent, present with raw_value (e.g. °F for climate.temp_c).',
      }),
    ),
  },
  { $id: 'Reading', title: 'Reading' },
);

export const READINGS_DEFAULT_LIMIT = 100;
export const READINGS_MAX_LIMIT = 500;

/** Bucket widths of `interval`, in ms. Buckets start at multiples of the width since the epoch (UTC). */
export const READING_INTERVALS = {
  '1m': 60_000,
  '5m': 300_000,
  '1h': 3_600_000,
  '1d': 86_400_000,
} as const;
export type ReadingInterval = keyof typeof READING_INTERVALS;
export const READING_INTERVAL_NAMES = Object.keys(READING_INTERVALS) as ReadingInterval[];

export const READING_AGGS = ['avg', 'min', 'max', 'sum', 'count', 'last'] as const;
export type ReadingAgg = (typeof READING_AGGS)[number];

export const ReadingsQuery = Type.Object(
  {
    metric: Type.Optional(Type.String({ minLength: 1, description: 'Only this metric.' })),
    since: Type.Optional(DateInput('Only readings at or after this time.')),
    before: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'Page backwards: the `next_before` cursor of the previous page, or an ISO 8601 time (only readings strictly before it).',
      }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: READINGS_MAX_LIMIT,
        description: `How many readings (or points), 1 to ${READINGS_MAX_LIMIT} (default ${READINGS_DEFAULT_LIMIT}).`,
      }),
    ),
    interval: Type.Optional(
      Type.Enum(READING_INTERVAL_NAMES, {
        type: 'string',
        description:
          'Aggregate into buckets of this width (UTC, aligned to the epoch): one point per metric and bucket that has readings, `at` = the bucket start.',
      }),
    ),
    agg: Type.Optional(
      Type.Enum(READING_AGGS, {
        type: 'string',
        description:
          'With interval: how a bucket becomes one value (default avg). count has no unit; last is the latest reading in the bucket.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ReadingListSchema = Type.Object({
  data: Type.Array(Type.Ref('Reading')),
  has_more: Type.Boolean({
    description: 'True when older readings (or points) match too: pass next_before as before.',
  }),
  next_before: Nullable(Type.String({ description: 'Cursor for the next (older) page, or null.' })),
});

export type Reading = Static<typeof ReadingSchema>;
export type ReadingsQueryInput = Static<typeof ReadingsQuery>;
