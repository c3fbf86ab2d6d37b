import { type Static, Type } from 'typebox';
import { DateTime, Nullable, PageQuery } from '../../http/schemas.ts';

const Named = Type.Object({ id: Type.String(), name: Type.String() });

/** Who is in a paddock now (read-only, derived from the animals', groups' and houses' paddock_id). */
export const OccupantsSchema = Type.Object(
  {
    groups: Type.Array(Named, { description: 'Groups whose paddock_id is this paddock.' }),
    animals: Type.Array(
      Type.Object({ id: Type.String(), name: Nullable(Type.String()), tag: Nullable(Type.String()) }),
      { description: 'Animals whose own paddock_id is this paddock.' },
    ),
    houses: Type.Array(Named, { description: 'Houses whose last position is inside the paddock.' }),
  },
  { description: 'Who is in the paddock now (read-only).' },
);

export const GrazingStaySchema = Type.Object(
  {
    subject_type: Type.String({ description: 'animal, group or house.' }),
    subject_id: Type.String(),
    name: Type.String({ description: 'The subject’s name (an animal without one: its tag, else its id).' }),
    from: DateTime('When it entered the paddock.'),
    until: Nullable(DateTime('When it left; null while it is still there.')),
  },
  { $id: 'GrazingStay', title: 'GrazingStay' },
);

export const GrazingHistoryQuery = Type.Object(PageQuery, { additionalProperties: false });

export type Occupants = Static<typeof OccupantsSchema>;
export type GrazingStay = Static<typeof GrazingStaySchema>;
