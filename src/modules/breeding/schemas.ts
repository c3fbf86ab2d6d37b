import { type Static, Type } from 'typebox';
import { PREGNANCY_RESULTS, SERVICE_METHODS } from '../../domain/breeding.ts';
import { DateInput, FARM_DAY_NOTE, Nullable } from '../../http/schemas.ts';

const notes = Type.Optional(Type.String({ maxLength: 2000 }));
const id = (description: string) => Type.String({ minLength: 1, maxLength: 100, description });
const sire = {
  sire_id: Type.Optional(id('The sire, an animal of the account.')),
  sire_name: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'An outside sire by name.' }),
  ),
  sire_registration: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
};
const strict = { additionalProperties: false } as const;

/** The typed `data` of each breeding record (docs/records.md "Breeding"): checked when the event is logged. */
export const BREEDING_EVENT_DATA = {
  heat: Type.Object(
    {
      observed_by: Type.Optional(Type.Union([Type.Literal('eye'), Type.Literal('device')])),
      device_id: Type.Optional(id('The collar or pedometer that saw it.')),
      notes,
    },
    strict,
  ),
  service: Type.Object(
    {
      method: Type.Union(SERVICE_METHODS.map((m) => Type.Literal(m))),
      ...sire,
      straw: Type.Optional(
        Type.String({ minLength: 1, maxLength: 100, description: 'AI straw (batch) code.' }),
      ),
      technician: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
      until: Type.Optional(DateInput('bull_in: when the bull came out (the period is from `at`).')),
      notes,
    },
    strict,
  ),
  pregnancy_check: Type.Object(
    {
      result: Type.Union(PREGNANCY_RESULTS.map((r) => Type.Literal(r))),
      foetal_count: Type.Optional(Type.Integer({ minimum: 0, maximum: 8 })),
      days_pregnant: Type.Optional(Type.Integer({ minimum: 0, maximum: 400 })),
      method: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
      notes,
    },
    strict,
  ),
  birth: Type.Object(
    {
      offspring: Type.Array(
        Type.Object(
          {
            sex: Type.Union([Type.Literal('female'), Type.Literal('male')]),
            tag: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
            eid: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
            name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
            weight_kg: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 200 })),
            alive: Type.Boolean(),
          },
          strict,
        ),
        { minItems: 1, maxItems: 8 },
      ),
      ...sire,
      assisted: Type.Optional(Type.Boolean()),
      notes,
    },
    strict,
  ),
  abortion: Type.Object(
    { foetal_count: Type.Optional(Type.Integer({ minimum: 0, maximum: 8 })), cause: notes, notes },
    strict,
  ),
  weaning: Type.Object(
    { weight_kg: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 2000 })), notes },
    strict,
  ),
} as const;

export type ServiceData = Static<(typeof BREEDING_EVENT_DATA)['service']>;
export type BirthData = Static<(typeof BREEDING_EVENT_DATA)['birth']>;

export const PedigreeQuery = Type.Object(
  {
    generations: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 10,
        description: 'Ancestors and descendants this many generations out (default 3).',
      }),
    ),
  },
  strict,
);

const Relative = Type.Object({
  id: Type.String({ description: 'The animal, or `outside:<registration or name>` for an outside sire.' }),
  name: Nullable(Type.String()),
  tag: Nullable(Type.String()),
  sex: Nullable(Type.String()),
  birth_date: Nullable(Type.String()),
  dam_id: Nullable(Type.String()),
  sire_id: Nullable(Type.String({ description: 'Its sire: an animal id or `outside:…`.' })),
  generation: Type.Integer({ description: '1: a parent (or a child), 2: a grandparent (grandchild)…' }),
  inbreeding: Type.Number({ description: 'Its own coefficient, a fraction.' }),
});

export const PedigreeSchema = Type.Object(
  {
    animal: Type.Ref('Animal'),
    ancestors: Type.Array(Relative, { description: 'Nearest first; an outside sire has no parents.' }),
    descendants: Type.Array(Relative, { description: 'Children first.' }),
    inbreeding: Type.Number({
      description:
        "The animal's inbreeding coefficient over its whole recorded pedigree (a fraction: 0.25 for 25 %).",
    }),
  },
  { title: 'Pedigree' },
);

export const MatingCheckQuery = Type.Object(
  {
    sire_id: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'The proposed sire: an animal of the account.',
    }),
  },
  strict,
);

export const MatingCheckSchema = Type.Object(
  {
    dam_id: Type.String(),
    sire_id: Type.String(),
    offspring_inbreeding: Type.Number({ description: "The offspring's coefficient, a fraction." }),
    warning: Nullable(Type.String({ description: 'Set at 0.0625 (6.25 %) or more.' })),
  },
  { title: 'MatingCheck' },
);

export const DueDatesQuery = Type.Object(
  {
    from: Type.Optional(DateInput(`From this day (default today, on the farm). ${FARM_DAY_NOTE}`)),
    days: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 400, description: 'How many days ahead (default 60).' }),
    ),
    overdue: Type.Optional(
      Type.Boolean({ description: 'Also those due before `from` and not yet given birth (default true).' }),
    ),
  },
  strict,
);

export const DueDateSchema = Type.Object({
  animal_id: Type.String(),
  name: Nullable(Type.String()),
  tag: Nullable(Type.String()),
  species: Type.String(),
  state: Type.Union([Type.Literal('bred'), Type.Literal('pregnant')]),
  due_date: Type.String({ format: 'date' }),
  service_date: Nullable(Type.String({ format: 'date' })),
  overdue: Type.Boolean(),
});

export const DueDatesSchema = Type.Object(
  { data: Type.Array(DueDateSchema, { description: 'Soonest first.' }) },
  { title: 'DueDates' },
);

export type PedigreeInput = Static<typeof PedigreeQuery>;
export type Relative = Static<typeof Relative>;
export type DueDate = Static<typeof DueDateSchema>;
export type DueDatesInput = Static<typeof DueDatesQuery>;
