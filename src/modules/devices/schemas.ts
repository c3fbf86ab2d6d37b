import { type Static, Type } from 'typebox';
import { DEVICE_TYPES } from '../../domain/devices.ts';
import { DateTime, Nullable, PageQuery } from '../../http/schemas.ts';

export const DeviceTypeSchema = Type.Enum([...DEVICE_TYPES], {
  description: `Device type: ${DEVICE_TYPES.join(', ')}.`,
});

export const DeviceSchema = Type.Object(
  {
    id: Type.String(),
    farm_id: Type.String(),
    type: Type.String({ description: `One of ${DEVICE_TYPES.join(', ')}.` }),
    name: Type.String(),
    serial: Nullable(Type.String()),
    animal_id: Nullable(Type.String({ description: 'The animal wearing the device (trackers, boluses).' })),
    group_id: Nullable(Type.String({ description: 'The group the device serves (a house’s flock).' })),
    firmware: Nullable(Type.String()),
    lat: Nullable(Type.Number()),
    lon: Nullable(Type.Number()),
    paddock_id: Nullable(
      Type.String({
        description:
          'The paddock the device’s last position is in (read-only: point in polygon over the paddocks’ outlines); null without a position or outside every paddock.',
      }),
    ),
    battery: Nullable(Type.Number({ description: 'Battery charge in percent, as last reported.' })),
    state: Type.Record(Type.String(), Type.Unknown(), {
      description:
        'Merged from device reports. For a house: the house state object (schema in GET /v1/catalog, `house_state_schema`).',
    }),
    key_prefix: Type.String({ description: 'The first characters of the device key, for recognising it.' }),
    last_seen_at: Nullable(DateTime('When the device last reported or polled.')),
    created_at: DateTime(),
    device_key: Type.Optional(
      Type.String({ description: 'The device key (rd_…): returned only once, on create.' }),
    ),
  },
  {
    $id: 'Device',
    title: 'Device',
    examples: [
      {
        id: 'dev_01m379xkdt1y8q9xray6w7qzb0',
        farm_id: 'farm_01kyct2fdr20b7h8952h0m29dd',
        type: 'house',
        name: 'House 2',
        serial: 'MH-2207-0188',
        animal_id: null,
        group_id: 'grp_01m5ctn0dr9c9psj35qf84nbn7',
        firmware: '4.2.1',
        lat: 38.9468,
        lon: -92.3361,
        paddock_id: 'pad_01m2q5xk4d7r8s9t0v1w2x3y4z',
        battery: 73.2,
        state: { floor: 'retracted', lights: 'auto' },
        key_prefix: 'rd_7Kq2',
        last_seen_at: '2026-11-22T14:15:00.000Z',
        created_at: '2026-07-25T14:15:09.120Z',
      },
    ],
  },
);

export const DeviceKeySchema = Type.Object(
  {
    id: Type.String(),
    device_key: Type.String({ description: 'The new device key (rd_…), shown only in this response.' }),
    key_prefix: Type.String(),
  },
  { $id: 'DeviceKey', title: 'DeviceKey' },
);

const fields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  serial: Nullable(Type.String({ minLength: 1, maxLength: 200 })),
  animal_id: Nullable(Type.String({ minLength: 1, maxLength: 100, description: 'An animal on the farm.' })),
  group_id: Nullable(Type.String({ minLength: 1, maxLength: 100, description: 'A group on the farm.' })),
  firmware: Nullable(Type.String({ minLength: 1, maxLength: 100 })),
  lat: Nullable(Type.Number({ minimum: -90, maximum: 90 })),
  lon: Nullable(Type.Number({ minimum: -180, maximum: 180 })),
};

export const CreateDeviceBody = Type.Object(
  {
    type: DeviceTypeSchema,
    name: fields.name,
    serial: Type.Optional(fields.serial),
    animal_id: Type.Optional(fields.animal_id),
    group_id: Type.Optional(fields.group_id),
    firmware: Type.Optional(fields.firmware),
    lat: Type.Optional(fields.lat),
    lon: Type.Optional(fields.lon),
  },
  { additionalProperties: false },
);

/** Any of the create body's members; PATCH changes only those given. */
export const UpdateDeviceBody = Type.Partial(CreateDeviceBody, { additionalProperties: false });

export const DeviceListQuery = Type.Object(
  {
    ...PageQuery,
    type: Type.Optional(DeviceTypeSchema),
    animal_id: Type.Optional(Type.String({ minLength: 1 })),
    group_id: Type.Optional(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);

export type Device = Static<typeof DeviceSchema>;
export type CreateDeviceInput = Static<typeof CreateDeviceBody>;
export type UpdateDeviceInput = Static<typeof UpdateDeviceBody>;
export type DeviceListFilters = Omit<Static<typeof DeviceListQuery>, 'limit' | 'before'>;
