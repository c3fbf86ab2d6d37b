import { type Static, Type } from 'typebox';
import { DateTime, Nullable, PageQuery } from '../../http/schemas.ts';

export const HouseSchema = Type.Object(
  {
    id: Type.String({ description: 'The house device id.' }),
    farm_id: Type.String(),
    type: Type.String({ description: 'Always house.' }),
    name: Type.String(),
    serial: Nullable(Type.String()),
    animal_id: Nullable(Type.String()),
    group_id: Nullable(Type.String({ description: 'The flock the house holds.' })),
    firmware: Nullable(Type.String()),
    lat: Nullable(Type.Number()),
    lon: Nullable(Type.Number()),
    paddock_id: Nullable(
      Type.String({ description: 'The paddock the house stands in, from its last position (read-only).' }),
    ),
    battery: Nullable(Type.Number()),
    state: Type.Record(Type.String(), Type.Unknown(), {
      description: 'The house state object (schema in GET /v1/catalog, `house_state_schema`).',
    }),
    key_prefix: Type.String(),
    last_seen_at: Nullable(DateTime()),
    created_at: DateTime(),
    latest_readings: Type.Record(Type.String(), Type.Ref('Reading'), {
      description: 'The latest reading of every metric the house has reported, keyed by metric.',
    }),
    recent_commands: Type.Array(Type.Ref('Command'), { description: 'The last 10 commands, newest first.' }),
  },
  { $id: 'House', title: 'House' },
);

/** Houses page oldest first (House 1 before House 2), so `before` continues after a page's last house. */
export const HouseListQuery = Type.Object(
  {
    limit: PageQuery.limit,
    before: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'The `next_before` cursor of the previous page: houses page oldest first, so the next page holds the houses created after it.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const HouseListSchema = Type.Object({
  data: Type.Array(Type.Ref('House'), { description: 'Oldest first (House 1 before House 2).' }),
  has_more: Type.Boolean({
    description:
      'True when more houses remain (a farm of many houses or of large states); pass next_before as before.',
  }),
  next_before: Nullable(Type.String({ description: 'Cursor for the next page, or null.' })),
});

export type House = Static<typeof HouseSchema>;
