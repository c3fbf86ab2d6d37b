import { type Static, Type } from 'typebox';
import { DateTime, Nullable, PageQuery } from '../../http/schemas.ts';

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

export type GrazingStay = Static<typeof GrazingStaySchema>;
