import { type Static, Type } from 'typebox';
import { Nullable } from '../../http/schemas.ts';

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

export type Occupants = Static<typeof OccupantsSchema>;
