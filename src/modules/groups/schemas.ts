import { type Static, Type } from 'typebox';
import { DateInput, DateTime, Nullable, PageQuery } from '../../http/schemas.ts';

export const GROUP_KINDS = ['herd', 'flock', 'pen', 'litter'] as const;

const KIND_DESCRIPTION = `Known values: ${GROUP_KINDS.join(', ')}; other values are kept as given. Default flock for poultry and sheep, else herd.`;

export const GroupSchema = Type.Object(
  {
    id: Type.String(),
    farm_id: Type.String(),
    name: Type.String(),
    species: Type.String(),
    kind: Type.String({ description: KIND_DESCRIPTION }),
    head_count: Nullable(Type.Number()),
    hatch_date: Nullable(DateTime('Hatch or birth date; a date given alone is midnight UTC.')),
    paddock_id: Nullable(Type.String()),
    created_at: DateTime(),
  },
  { $id: 'Group', title: 'Group' },
);

const fields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  species: Type.String({ minLength: 1, maxLength: 100 }),
  kind: Type.String({ minLength: 1, maxLength: 50, description: KIND_DESCRIPTION }),
  head_count: Nullable(Type.Integer({ minimum: 0, description: 'Number of head, a whole number.' })),
  hatch_date: Nullable(DateInput('Hatch or birth date of the group.')),
  paddock_id: Nullable(Type.String({ minLength: 1, maxLength: 100 })),
};

export const CreateGroupBody = Type.Object(
  {
    name: fields.name,
    species: fields.species,
    kind: Type.Optional(fields.kind),
    head_count: Type.Optional(fields.head_count),
    hatch_date: Type.Optional(fields.hatch_date),
    paddock_id: Type.Optional(fields.paddock_id),
  },
  { additionalProperties: false },
);

/** Any of the create body's members; PATCH changes only those given. */
export const UpdateGroupBody = Type.Partial(CreateGroupBody, { additionalProperties: false });

export const GroupListQuery = Type.Object(
  {
    ...PageQuery,
    species: Type.Optional(Type.String({ minLength: 1, description: 'Exact species.' })),
    kind: Type.Optional(Type.String({ minLength: 1, description: 'Exact kind, e.g. herd.' })),
    paddock_id: Type.Optional(Type.String({ minLength: 1, description: 'Groups in this paddock.' })),
  },
  { additionalProperties: false },
);

export type Group = Static<typeof GroupSchema>;
export type CreateGroupInput = Static<typeof CreateGroupBody>;
export type UpdateGroupInput = Static<typeof UpdateGroupBody>;
export interface GroupFilters {
  species?: string | undefined;
  kind?: string | undefined;
  paddock_id?: string | undefined;
}
