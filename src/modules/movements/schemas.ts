import { type Static, Type } from 'typebox';
import { MOVEMENT_DIRECTIONS, MOVEMENT_REASONS } from '../../domain/movements.ts';
import { DateInput, DateTime, FARM_DAY_NOTE, Nullable, PageQuery, TypedText } from '../../http/schemas.ts';

/** The most animals one movement names (one transaction, one row each in the register's export). */
export const MAX_MOVED_ANIMALS = 1000;

/** The largest head count one movement records (a typo guard). */
export const MAX_HEAD_COUNT = 1_000_000;

const text = TypedText;

export const MovementSchema = Type.Object(
  {
    id: Type.String(),
    farm_id: Type.String(),
    direction: Type.String({ description: 'on or off the holding.' }),
    at: DateTime('When the animals moved.'),
    animal_ids: Nullable(
      Type.Array(Type.String(), { description: 'The animals moved; null: a mob by head count.' }),
    ),
    head_count: Type.Integer({ description: 'How many head moved (the animals named, or the count given).' }),
    species: Nullable(Type.String()),
    other_holding: Type.String({ description: 'The holding they came from or went to.' }),
    reason: Type.String({ description: `One of ${MOVEMENT_REASONS.join(', ')}.` }),
    transporter: Nullable(Type.String()),
    vehicle: Nullable(Type.String()),
    override_reason: Nullable(
      Type.String({ description: 'Why animals inside their meat withdrawal moved off anyway.' }),
    ),
    event_id: Nullable(
      Type.String({ description: 'The `movement` event it appears as in the farm event log.' }),
    ),
    created_at: DateTime(),
  },
  { $id: 'Movement', title: 'Movement' },
);

export const CreateMovementBody = Type.Object(
  {
    direction: Type.Enum(MOVEMENT_DIRECTIONS, { type: 'string', description: 'on or off the holding.' }),
    at: DateInput(`When the animals moved. ${FARM_DAY_NOTE}`),
    animal_ids: Type.Optional(
      Type.Array(text(100), {
        minItems: 1,
        maxItems: MAX_MOVED_ANIMALS,
        description:
          'The animals moved (or head_count): off marks them gone (sold, slaughtered, dead or moved_off), on marks them active.',
      }),
    ),
    head_count: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_HEAD_COUNT,
        description: 'A mob without EIDs (or animal_ids).',
      }),
    ),
    species: Type.Optional(text(100, 'What moved, for a head count.')),
    other_holding: text(200, 'The holding they came from or went to (its number, or name and address).'),
    reason: Type.Enum(MOVEMENT_REASONS, {
      type: 'string',
      description: `One of ${MOVEMENT_REASONS.join(', ')}.`,
    }),
    transporter: Type.Optional(text(200)),
    vehicle: Type.Optional(text(100, 'The vehicle, e.g. its registration.')),
    override_reason: Type.Optional(
      text(1000, 'Why animals inside their meat withdrawal move off anyway; kept on the movement.'),
    ),
  },
  { additionalProperties: false },
);

export const MovementListQuery = Type.Object(
  {
    ...PageQuery,
    since: Type.Optional(DateInput('Movements at or after this time.')),
    until: Type.Optional(DateInput('Movements before this time.')),
  },
  { additionalProperties: false },
);

export type Movement = Static<typeof MovementSchema>;
export type CreateMovementInput = Static<typeof CreateMovementBody>;
export interface MovementFilters {
  since?: number | undefined;
  until?: number | undefined;
}
