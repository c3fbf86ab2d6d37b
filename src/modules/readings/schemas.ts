import { type Static, Type } from 'typebox';
import { DateTime, Nullable } from '../../http/schemas.ts';

export const ReadingSchema = Type.Object(
  {
    metric: Type.String(),
    value: Type.Number(),
    unit: Nullable(Type.String({ description: 'As reported, or the catalog unit of a known metric.' })),
    at: DateTime('When the value was measured.'),
  },
  { $id: 'Reading', title: 'Reading' },
);

export const READINGS_DEFAULT_LIMIT = 100;
export const READINGS_MAX_LIMIT = 500;

export const ReadingsQuery = Type.Object(
  {
    metric: Type.Optional(Type.String({ minLength: 1, description: 'Only this metric.' })),
    since: Type.Optional(
      Type.String({ format: 'date-time', description: 'Only readings at or after this time.' }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: READINGS_MAX_LIMIT,
        description: `How many readings, 1 to ${READINGS_MAX_LIMIT} (default ${READINGS_DEFAULT_LIMIT}).`,
      }),
    ),
  },
  { additionalProperties: false },
);

export const ReadingListSchema = Type.Object({
  data: Type.Array(Type.Ref('Reading')),
  has_more: Type.Boolean({ description: 'True when older readings match too (narrow with since).' }),
});

export type Reading = Static<typeof ReadingSchema>;
export type ReadingsQueryInput = Static<typeof ReadingsQuery>;
