import { type Static, Type } from 'typebox';
import { DateTime, Nullable } from '../../http/schemas.ts';

export const KeySchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    mode: Type.Union([Type.Literal('live'), Type.Literal('test')]),
    prefix: Type.String({ description: 'The first characters of the key, for recognising it.' }),
    key: Type.Optional(Type.String({ description: 'The full key: returned only once, on create.' })),
    created_at: DateTime(),
    last_used_at: Nullable(DateTime('Updated at most about once a minute.')),
  },
  { $id: 'Key', title: 'Key' },
);

export const CreateKeyBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    mode: Type.Optional(
      Type.Union([Type.Literal('live'), Type.Literal('test')], {
        description: "Default: the calling key's mode.",
      }),
    ),
  },
  { additionalProperties: false },
);

export type Key = Static<typeof KeySchema>;
export type CreateKeyInput = Static<typeof CreateKeyBody>;
