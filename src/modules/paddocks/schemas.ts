import { type Static, Type } from 'typebox';
import { DateInput, DateTime, Nullable, PageQuery } from '../../http/schemas.ts';
import { OccupantsSchema } from '../stays/schemas.ts';

const GEOMETRY_DESCRIPTION =
  'The paddock outline: a GeoJSON Polygon or MultiPolygon in WGS 84 ([longitude, latitude]), or a Feature holding one (its geometry is kept). Rings must be closed, not cross themselves, and enclose an area. Stored as {type, coordinates}.';

export const PaddockSchema = Type.Object(
  {
    id: Type.String(),
    farm_id: Type.String(),
    name: Type.String(),
    acres: Nullable(
      Type.Number({ description: 'The area as given, or computed from the geometry when not given.' }),
    ),
    drawn_acres: Nullable(
      Type.Number({
        description:
          'Read-only: the geodesic area of the geometry in acres (null without one), to compare with acres.',
      }),
    ),
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

export const PaddockImportBody = Type.Object(
  {
    content: Type.String({
      minLength: 1,
      description:
        'The file as text: GeoJSON (a FeatureCollection, a Feature or a geometry), KML (Google Earth) or GPX (a GPS track).',
    }),
    format: Type.Optional(
      Type.Enum(['geojson', 'kml', 'gpx'], {
        type: 'string',
        description: 'The file format; told from the content when absent.',
      }),
    ),
    dry_run: Type.Optional(
      Type.Boolean({ description: 'Answer the preview (what each feature would become), storing nothing.' }),
    ),
  },
  { additionalProperties: false },
);

export const PaddockPreviewSchema = Type.Object({
  index: Type.Integer({ description: "The feature's place in the file, from 0." }),
  name: Type.String({
    description: 'The name the paddock would get (the feature’s name, else "Paddock N").',
  }),
  acres: Nullable(Type.Number({ description: 'The computed area of the outline.' })),
  geometry: Nullable(
    Type.Record(Type.String(), Type.Unknown(), { description: 'The outline as it would be stored.' }),
  ),
  action: Type.Enum(['create', 'skip', 'refuse'], {
    type: 'string',
    description:
      'create; skip (not an area, such as a pin or an open line: left out, the rest is imported); refuse (an area whose outline fails the check: the import is refused until it is fixed).',
  }),
  problem: Nullable(Type.String({ description: 'Why it is skipped or refused.' })),
});

export const PaddockPreviewList = Type.Object({
  dry_run: Type.Literal(true),
  data: Type.Array(PaddockPreviewSchema),
});

export const ImportedPaddockList = Type.Object({
  dry_run: Type.Literal(false),
  data: Type.Array(Type.Ref('Paddock')),
});

export const PaddockListQuery = Type.Object(PageQuery, { additionalProperties: false });

export type Paddock = Static<typeof PaddockSchema>;
export type CreatePaddockInput = Static<typeof CreatePaddockBody>;
export type UpdatePaddockInput = Static<typeof UpdatePaddockBody>;
export type PaddockImportInput = Static<typeof PaddockImportBody>;
export type PaddockPreview = Static<typeof PaddockPreviewSchema>;
