import { type Static, Type } from 'typebox';
import { DEVICE_TYPES } from '../../domain/devices.ts';
import { DateTime, Nullable, PageQuery } from '../../http/schemas.ts';
import { NETWORK_SERVER_NAMES, NETWORK_SERVERS } from './network-servers.ts';

const servers = Object.entries(NETWORK_SERVERS);

const Name = Type.String({ minLength: 1, maxLength: 200 });
const ApiUrl = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: `The network server's API address (${servers.map(([, s]) => `${s.label}: ${s.apiUrlExample}`).join('; ')}). A public address unless FARMSTEAD_WEBHOOK_ALLOW_PRIVATE=1.`,
});
const ApiKey = Type.String({
  minLength: 1,
  maxLength: 2000,
  description: 'The API key or token Farmstead sends downlinks with (Bearer). Never returned.',
});
const RemoteName = (what: string) =>
  Type.String({
    minLength: 1,
    maxLength: 100,
    pattern: '^[a-z0-9](?:[-]?[a-z0-9]){1,35}$',
    description: what,
  });

export const MappingEntrySchema = Type.Object(
  {
    metric: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: 'The reading this field becomes.' }),
    ),
    set: Type.Optional(
      Type.Enum(['battery', 'lat', 'lon'], {
        description: "The device's battery (%), latitude or longitude.",
      }),
    ),
    event: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'A device event of this type whenever the field is set (e.g. predator.detected).',
      }),
    ),
    when: Type.Optional(
      Type.Union([Type.String({ maxLength: 200 }), Type.Number(), Type.Boolean()], {
        description: 'For an event: the value that fires it (default: any set value).',
      }),
    ),
    ignore: Type.Optional(Type.Boolean({ description: 'Keep nothing of this field.' })),
    scale: Type.Optional(Type.Number({ description: 'value × scale + offset (default 1).' })),
    offset: Type.Optional(Type.Number({ description: 'Added after scaling (default 0).' })),
  },
  { additionalProperties: false },
);

export const MappingSchema = Type.Record(Type.String({ minLength: 1, maxLength: 200 }), MappingEntrySchema, {
  maxProperties: 200,
  description:
    'Per path in the decoded payload (dots between members: gps.latitude), what it becomes. Numeric fields not named are kept as lorawan.<path> readings.',
});

export const EncoderEntrySchema = Type.Object(
  {
    f_port: Type.Integer({ minimum: 1, maximum: 223, description: 'LoRaWAN application port.' }),
    confirmed: Type.Optional(Type.Boolean({ description: 'Ask the device to acknowledge (default true).' })),
    hex: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 512,
        description: 'Payload as hex; {name:u8|u16|u24|u32} puts in a parameter, {name} its hex from values.',
      }),
    ),
    object: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description:
          'An object for the device profile\'s encoder; a string "{name}" is replaced by the parameter.',
      }),
    ),
    values: Type.Optional(
      Type.Record(Type.String(), Type.Record(Type.String(), Type.String({ pattern: '^([0-9a-fA-F]{2})+$' }))),
    ),
  },
  { additionalProperties: false },
);

export const EncoderSchema = Type.Record(Type.String({ minLength: 1, maxLength: 100 }), EncoderEntrySchema, {
  maxProperties: 100,
  description: 'Per command name, the downlink that carries it.',
});

export const DefaultSchema = Type.Object(
  {
    device_name: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'Device names it applies to; * matches anything.',
      }),
    ),
    profile: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: "ChirpStack's device profile name or The Things Stack's model id.",
      }),
    ),
    preset: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    mapping: Type.Optional(MappingSchema),
    encoder: Type.Optional(EncoderSchema),
  },
  { additionalProperties: false },
);

const Defaults = Type.Array(DefaultSchema, {
  maxItems: 50,
  description:
    'Integration-wide mappings for devices without their own: the first whose device_name pattern and profile both match (an absent one matches all).',
});

export const IntegrationSchema = Type.Object(
  {
    id: Type.String(),
    farm_id: Type.String(),
    type: Type.Enum(NETWORK_SERVER_NAMES),
    name: Type.String(),
    uplink_url: Type.String({
      description:
        'Paste into the network server: ChirpStack HTTP integration endpoint / TTS webhook base URL.',
    }),
    secret_prefix: Type.String({ description: 'The first characters of the uplink secret.' }),
    secret: Type.Optional(
      Type.String({
        description:
          'The uplink secret (lwi_…), returned only on create and rotation: the server sends `Authorization: Bearer <secret>`.',
      }),
    ),
    api_url: Nullable(Type.String()),
    api_key_set: Type.Boolean({ description: 'Whether an API key is stored (it is never returned).' }),
    application_id: Nullable(Type.String()),
    webhook_id: Nullable(Type.String()),
    defaults: Defaults,
    created_at: DateTime(),
  },
  { $id: 'Integration', title: 'Integration' },
);

export const CreateIntegrationBody = Type.Object(
  {
    type: Type.Enum(NETWORK_SERVER_NAMES, {
      description: `The network server: ${servers.map(([name, s]) => `${name} (${s.label})`).join(', ')}.`,
    }),
    name: Name,
    api_url: Type.Optional(ApiUrl),
    api_key: Type.Optional(ApiKey),
    application_id: Type.Optional(RemoteName('The Things Stack application id (ttn).')),
    webhook_id: Type.Optional(RemoteName('The Things Stack webhook id (ttn).')),
    defaults: Type.Optional(Defaults),
  },
  { additionalProperties: false },
);

export const UpdateIntegrationBody = Type.Object(
  {
    name: Type.Optional(Name),
    api_url: Type.Optional(Nullable(ApiUrl)),
    api_key: Type.Optional(Nullable(ApiKey)),
    application_id: Type.Optional(Nullable(RemoteName('The Things Stack application id (ttn).'))),
    webhook_id: Type.Optional(Nullable(RemoteName('The Things Stack webhook id (ttn).'))),
    defaults: Type.Optional(Defaults),
  },
  { additionalProperties: false },
);

export const IntegrationListQuery = Type.Object({ ...PageQuery }, { additionalProperties: false });

const LastUplink = Nullable(
  Type.Object({
    at: DateTime('The network server time of the uplink.'),
    f_port: Nullable(Type.Integer()),
    f_cnt: Nullable(Type.Integer()),
    decoded: Nullable(Type.Record(Type.String(), Type.Unknown())),
    rssi: Nullable(Type.Number()),
    snr: Nullable(Type.Number()),
  }),
);

export const DeviceLinkSchema = Type.Object({
  device_id: Type.String(),
  integration_id: Type.String(),
  dev_eui: Type.String({ description: '16 lower-case hex digits.' }),
  remote_id: Nullable(Type.String({ description: "The network server's device id (The Things Stack)." })),
  preset: Nullable(Type.String()),
  mapping: Nullable(MappingSchema),
  encoder: Nullable(EncoderSchema),
  effective: Type.Object(
    {
      source: Type.Enum(['device', 'default', 'none']),
      mapping: MappingSchema,
      encoder: EncoderSchema,
    },
    { description: "What applies now: the device's own (its mapping, else its preset's), else a default." },
  ),
  last_uplink: LastUplink,
  preview: Type.Object(
    {
      readings: Type.Array(Type.Object({ metric: Type.String(), value: Type.Number() })),
      battery: Type.Optional(Type.Number()),
      lat: Type.Optional(Type.Number()),
      lon: Type.Optional(Type.Number()),
      events: Type.Array(
        Type.Object({ type: Type.String(), data: Type.Record(Type.String(), Type.Unknown()) }),
      ),
    },
    { description: 'The last uplink as the effective mapping stores it.' },
  ),
});

export const PutDeviceLinkBody = Type.Object(
  {
    integration_id: Type.String({ minLength: 1, maxLength: 100 }),
    dev_eui: Type.Optional(
      Type.String({ minLength: 16, maxLength: 20, description: "Default: from the device's serial." }),
    ),
    remote_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 100 }))),
    preset: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 100 }))),
    mapping: Type.Optional(Nullable(MappingSchema)),
    encoder: Type.Optional(Nullable(EncoderSchema)),
  },
  { additionalProperties: false },
);

export const PreviewBody = Type.Object(
  { mapping: MappingSchema },
  { additionalProperties: false, description: 'A mapping to try on the last uplink before saving it.' },
);

export const UnmatchedSchema = Type.Object({
  dev_eui: Type.String(),
  device_name: Nullable(Type.String()),
  profile: Nullable(Type.String()),
  decoded: Nullable(Type.Record(Type.String(), Type.Unknown())),
  f_port: Nullable(Type.Integer()),
  uplinks: Type.Integer({ description: 'Uplinks heard from it.' }),
  first_seen_at: DateTime(),
  last_seen_at: DateTime(),
});

export const AdoptBody = Type.Object(
  {
    type: Type.Optional(Type.Enum([...DEVICE_TYPES], { description: "Default: the preset's, else other." })),
    name: Type.Optional(Name),
    preset: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    mapping: Type.Optional(MappingSchema),
  },
  { additionalProperties: false },
);

export const EuiParams = Type.Object(
  { id: Type.String({ minLength: 1 }), eui: Type.String({ minLength: 1, maxLength: 32 }) },
  { additionalProperties: false },
);

export const UplinkQuery = Type.Object(
  {
    event: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 20,
        description:
          'ChirpStack names its event here (up, join, ack, txack, status, location are read; log, integration and any other are ignored).',
      }),
    ),
  },
  { additionalProperties: false },
);

export const UplinkResult = Type.Object({
  ok: Type.Boolean(),
  outcome: Type.Enum(['stored', 'duplicate', 'unmatched', 'downlink', 'ignored']),
  device_id: Type.Optional(Type.String()),
  accepted: Type.Optional(Type.Integer({ description: 'Readings stored.' })),
});

export const PresetSchema = Type.Object({
  name: Type.String(),
  title: Type.String(),
  device_type: Type.String(),
  source: Type.String({ description: 'Where the decoded field names come from.' }),
  mapping: MappingSchema,
  encoder: EncoderSchema,
});

export type Integration = Static<typeof IntegrationSchema>;
export type CreateIntegrationInput = Static<typeof CreateIntegrationBody>;
export type UpdateIntegrationInput = Static<typeof UpdateIntegrationBody>;
export type IntegrationDefault = Static<typeof DefaultSchema>;
export type DeviceLink = Static<typeof DeviceLinkSchema>;
export type PutDeviceLinkInput = Static<typeof PutDeviceLinkBody>;
export type Unmatched = Static<typeof UnmatchedSchema>;
export type AdoptInput = Static<typeof AdoptBody>;
export type UplinkOutcome = Static<typeof UplinkResult>;
