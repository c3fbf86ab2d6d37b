import { type Static, Type } from 'typebox';
import { DateInput, DateTime, Nullable } from '../../http/schemas.ts';

export const TRACK_DEFAULT_LIMIT = 500;
export const TRACK_MAX_LIMIT = 2_000;

export const TrackQuery = Type.Object(
  {
    since: Type.Optional(
      DateInput('Only positions at or after this time. With it, a track longer than limit is thinned.'),
    ),
    until: Type.Optional(DateInput('Only positions at or before this time.')),
    before: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'Page backwards: the `next_before` of the previous page, or an ISO 8601 time (only positions strictly before it).',
      }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: TRACK_MAX_LIMIT,
        description: `How many positions, 1 to ${TRACK_MAX_LIMIT} (default ${TRACK_DEFAULT_LIMIT}).`,
      }),
    ),
    thin: Type.Optional(
      Type.Boolean({
        description:
          'With since (default true): a range holding more than limit positions answers limit of them, the first and last and evenly spaced between (docs/map.md). false: pages of every position instead.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const PositionSchema = Type.Object({
  lat: Type.Number(),
  lon: Type.Number(),
  at: DateTime('When the report carrying it arrived.'),
});

export const TrackSchema = Type.Object({
  data: Type.Array(PositionSchema, { description: 'Positions, newest first.' }),
  has_more: Type.Boolean({ description: 'True when older positions match too: pass next_before as before.' }),
  next_before: Nullable(Type.String({ description: 'Cursor for the next (older) page, or null.' })),
  thinned: Type.Boolean({
    description: 'True when the range held more than limit positions and these are a thinned selection.',
  }),
});

export type Position = Static<typeof PositionSchema>;
export type Track = Static<typeof TrackSchema>;
export type TrackOptions = Static<typeof TrackQuery>;
