import { type Static, Type } from 'typebox';
import { DateInput, DateTime, Nullable, PageQuery } from '../../http/schemas.ts';
import { OccupantsSchema } from '../grazing/schemas.ts';

const GEOMETRY_DESCRIPTION =
  'The paddock outline, stored and returned as given (GeoJSON Polygon or MultiPolygon recommended).';

export const PaddockSchema = Type.Object(
  {
    id: Type.String(),
    farm_id: Type.String(),
    name: Type.String(),
    acres: Nullable(Type.Number()),
    geometry: Nullable(Type.Record(Type.String(), Type.Unknown(), { description: GEOMETRY_DESCRIPTION })),
    rest_days_target: Nullable(Type.Number({ description: 'Days of rest wanted between grazings.' })),
    last_grazed_at: Nullable(
      DateTime(
        'When animals last left the paddock: the later of the value a person set and the end of its last recorded stay (moves move it forward).',
      ),
    ),
    created_at: DateTime(),
    occupied_by: OccupantsSchema,
    rest_days: Nullable(
      Type.Integer({
        description:
          'Whole days since the paddock was last left (read-only); null while anything is in it, or when it never was grazed.',
      }),
    ),
  },
  { $id: 'Paddock', title: 'Paddock' },
);

const fields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  acres: Nullable(Type.Number({ minimum: 0 })),
  geometry: Nullable(Type.Record(Type.String(), Type.Unknown(), { description: GEOMETRY_DESCRIPTION })),
  rest_days_target: Nullable(Type.Number({ minimum: 0 })),
  last_grazed_at: Nullable(DateInput('When animals last left the paddock.')),
};

export const CreatePaddockBody = Type.Object(
  {
    name: fields.name,
    acres: Type.Optional(fields.acres),
    geometry: Type.Optional(fields.geometry),
    rest_days_target: Type.Optional(fields.rest_days_target),
    last_grazed_at: Type.Optional(fields.last_grazed_at),
  },
  { additionalProperties: false },
);

/** Any of the create body's members; PATCH changes only those given. */
export const UpdatePaddockBody = Type.Partial(CreatePaddockBody, { additionalProperties: false });

export const PaddockListQuery = Type.Object(PageQuery, { additionalProperties: false });

export type Paddock = Static<typeof PaddockSchema>;
export type CreatePaddockInput = Static<typeof CreatePaddockBody>;
export type UpdatePaddockInput = Static<typeof UpdatePaddockBody>;
