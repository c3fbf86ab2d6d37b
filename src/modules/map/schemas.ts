import { type Static, Type } from 'typebox';

const FEATURE_KINDS = ['paddock', 'device', 'alert', 'route'] as const;
export type FeatureKind = (typeof FEATURE_KINDS)[number];

export const MapFeatureSchema = Type.Object(
  {
    type: Type.Literal('Feature'),
    id: Type.String({ description: 'The record the feature shows (a route: its command).' }),
    geometry: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], {
      description:
        'GeoJSON: a paddock its Polygon or MultiPolygon (null when none is drawn, or the stored one cannot be drawn: then properties.geometry_problem says why), a device or an alert a Point, a route a LineString.',
    }),
    properties: Type.Record(Type.String(), Type.Unknown(), {
      description: `\`kind\` (${FEATURE_KINDS.join(', ')}) and the record's fields: a paddock the Paddock record (less its geometry); a device id, name, type, battery, last_seen_at, paddock_id, group_id, animal_id; an alert id, rule, severity, status, title, subject_type, subject_id, words (its title's and reason's message keys, as on the Alert); a route device_id, command_id, paddock_id, meters_per_day, distance_m, arrival_at (docs/map.md).`,
    }),
  },
  { $id: 'MapFeature', title: 'MapFeature' },
);

export const FarmMapSchema = Type.Object(
  {
    type: Type.Literal('FeatureCollection'),
    features: Type.Array(Type.Ref('MapFeature')),
  },
  { $id: 'FarmMap', title: 'FarmMap' },
);

export const FarmMapQuery = Type.Object(
  {
    download: Type.Optional(
      Type.Boolean({
        description:
          'true: the same answer as an attachment (`<farm>.geojson`, application/geo+json): the farm exported as GeoJSON.',
      }),
    ),
  },
  { additionalProperties: false },
);

export type MapFeature = Static<typeof MapFeatureSchema>;
export type FarmMap = { type: 'FeatureCollection'; features: MapFeature[] };
