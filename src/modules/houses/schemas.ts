import { type Static, Type } from 'typebox';
import { DateTime, Nullable } from '../../http/schemas.ts';

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

export const HouseListSchema = Type.Object({ data: Type.Array(Type.Ref('House')) });

export type House = Static<typeof HouseSchema>;
