import { type Static, Type } from 'typebox';
import { FAMILY_NAMES, PERMISSION_FAMILIES } from '../../domain/permissions.ts';
import { DateTime, Nullable } from '../../http/schemas.ts';

const Mode = Type.Union([Type.Literal('live'), Type.Literal('test')]);
const Level = Type.Union([Type.Literal('none'), Type.Literal('read'), Type.Literal('write')]);

const familyDescription = (family: keyof typeof PERMISSION_FAMILIES) =>
  `${PERMISSION_FAMILIES[family].join(', ')}: none, read, or write (write includes read and delete).`;

export const KeyPermissionsSchema = Type.Object(
  Object.fromEntries(
    FAMILY_NAMES.map((f) => [f, Type.Union(Level.anyOf, { description: familyDescription(f) })]),
  ) as Record<(typeof FAMILY_NAMES)[number], typeof Level>,
  { additionalProperties: false },
);

export const KeySchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    mode: Mode,
    prefix: Type.String({ description: 'The first characters of the key, for recognising it.' }),
    key: Type.Optional(Type.String({ description: 'The full key: returned only once, on create.' })),
    farms: Nullable(
      Type.Array(Type.String(), { description: 'The farms this key is restricted to; null: every farm.' }),
    ),
    permissions: KeyPermissionsSchema,
    created_at: DateTime(),
    last_used_at: Nullable(DateTime('Updated at most about once a minute.')),
  },
  { $id: 'Key', title: 'Key' },
);

export const CreateKeyBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    mode: Type.Optional(Type.Union(Mode.anyOf, { description: "Default: the calling key's mode." })),
    farms: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
        minItems: 1,
        maxItems: 100,
        uniqueItems: true,
        description: "Restrict the key to these farms. Default: the calling key's farms (every farm).",
      }),
    ),
    permissions: Type.Optional(
      Type.Partial(KeyPermissionsSchema, {
        additionalProperties: false,
        description:
          "Restrict the key per resource family; a family left out is none. Default: the calling key's permissions.",
      }),
    ),
  },
  { additionalProperties: false },
);

export type Key = Static<typeof KeySchema>;
export type KeyPermissions = Static<typeof KeyPermissionsSchema>;
export type CreateKeyInput = Static<typeof CreateKeyBody>;
