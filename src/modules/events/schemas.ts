import { type Static, Type } from 'typebox';
import { DateInput, DateTime, FARM_DAY_NOTE, Nullable, PageQuery } from '../../http/schemas.ts';

export const EventSchema = Type.Object(
  {
    id: Type.String(),
    farm_id: Type.String(),
    type: Type.String({ description: 'What happened, e.g. treatment, weight, move, birth.' }),
    subject_type: Nullable(
      Type.String({ description: 'animal, group, paddock, device, task, or another kind.' }),
    ),
    subject_id: Nullable(Type.String()),
    data: Type.Record(Type.String(), Type.Unknown()),
    at: DateTime('When it happened (UTC).'),
    created_at: DateTime(),
  },
  { $id: 'Event', title: 'Event' },
);

const fields = {
  type: Type.String({ minLength: 1, maxLength: 100 }),
  subject_type: Nullable(
    Type.String({
      minLength: 1,
      maxLength: 50,
      description:
        'animal, group, paddock, device or task (checked: the subject must exist on this farm); other kinds are stored as given. Inferred from the subject_id prefix when omitted.',
    }),
  ),
  subject_id: Nullable(Type.String({ minLength: 1, maxLength: 100 })),
  data: Type.Record(Type.String(), Type.Unknown()),
  at: DateInput(`When it happened; default now. ${FARM_DAY_NOTE}`),
};

export const CreateEventBody = Type.Object(
  {
    type: fields.type,
    subject_type: Type.Optional(fields.subject_type),
    subject_id: Type.Optional(fields.subject_id),
    data: Type.Optional(fields.data),
    at: Type.Optional(fields.at),
    override_reason: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1000,
        description:
          'Why a sale or slaughter inside a meat withdrawal goes ahead (else 409 withdrawal_active); kept in data.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const UpdateEventBody = Type.Object(
  {
    type: Type.Optional(fields.type),
    subject_type: Type.Optional(fields.subject_type),
    subject_id: Type.Optional(fields.subject_id),
    data: Type.Optional(Nullable(fields.data)),
    at: Type.Optional(fields.at),
  },
  { additionalProperties: false },
);

export const EventListQuery = Type.Object(
  {
    ...PageQuery,
    type: Type.Optional(Type.String({ minLength: 1 })),
    subject_id: Type.Optional(Type.String({ minLength: 1 })),
    subject_type: Type.Optional(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);

export type FarmEvent = Static<typeof EventSchema>;
export type CreateEventInput = Static<typeof CreateEventBody>;
export type UpdateEventInput = Static<typeof UpdateEventBody>;
export interface EventFilters {
  type?: string | undefined;
  subject_id?: string | undefined;
  subject_type?: string | undefined;
}
