import { type Static, Type } from 'typebox';
import { BREEDING_STATES } from '../../domain/breeding.ts';
import { ANIMAL_STATUSES } from '../../domain/statuses.ts';
import { WITHDRAWAL_RULES } from '../../domain/withdrawal.ts';
import { DateInput, DateTime, Nullable, PageQuery } from '../../http/schemas.ts';

const FoodSchema = Type.Union([Type.Literal('meat'), Type.Literal('milk'), Type.Literal('eggs')]);

export const WithdrawalSourceSchema = Type.Object(
  {
    food: FoodSchema,
    until: DateTime('When this food is clear again.'),
    days: Type.Integer({ description: 'Whole days after the last dose (rounded up).' }),
    rule: Type.Enum(WITHDRAWAL_RULES, {
      type: 'string',
      description:
        "label: the label's period for the species; cascade: off-label, the label's longest period for that food × the factor; cascade_minimum: off-label, the fixed minimum (no label period for that food, or milk's where the label says zero).",
    }),
    organic: Type.Boolean({ description: 'Doubled: an organic farm or animal.' }),
    treatment_id: Type.String(),
    medicine_id: Type.String(),
    medicine: Type.String({ description: "The medicine's name." }),
    batch_id: Nullable(Type.String()),
    batch: Nullable(Type.String({ description: 'The batch (lot) number.' })),
  },
  { $id: 'WithdrawalSource', title: 'WithdrawalSource', additionalProperties: false },
);

export const AnimalWithdrawalSchema = Type.Object(
  {
    meat_until: Nullable(DateTime('Its meat may not enter the food chain before this; null: clear.')),
    milk_until: Nullable(DateTime('Its milk is withheld until this; null: clear.')),
    eggs_until: Nullable(DateTime('Its eggs are withheld until this; null: clear.')),
    because: Type.Array(Type.Ref('WithdrawalSource'), {
      description: 'The treatment, medicine, batch and rule behind each end still ahead.',
    }),
  },
  {
    $id: 'AnimalWithdrawal',
    title: 'AnimalWithdrawal',
    description:
      "The animal's withdrawal from its treatments (docs/records.md): a sale, slaughter or status change to sold or slaughtered inside the meat withdrawal is refused with 409 withdrawal_active unless override_reason is given.",
  },
);

export const AnimalBreedingSchema = Type.Object(
  {
    state: Type.Enum(BREEDING_STATES, { type: 'string' }),
    due_date: Nullable(Type.String({ format: 'date' })),
    next_heat_expected: Nullable(Type.String({ format: 'date' })),
    pregnancy_check_due: Nullable(
      Type.String({ format: 'date', description: 'Bred 35-60 days ago, unchecked: since this day.' }),
    ),
  },
  // Described in docs/records.md: the Animal is inlined in three of MCP's default tools.
  { $id: 'AnimalBreeding', title: 'AnimalBreeding' },
);

export const AnimalSchema = Type.Object(
  {
    id: Type.String(),
    farm_id: Type.String(),
    species: Type.String(),
    name: Nullable(Type.String()),
    tag: Nullable(Type.String({ description: 'Visual ear tag.' })),
    eid: Nullable(
      Type.String({
        description:
          "Electronic id; unique among the account's animals in this mode. An ISO 11784 number given in any reader's form (`982 000001088420`, `LA 982 000001088420`, `982.000001088420`) is stored as its 15 digits; anything else is kept as given.",
      }),
    ),
    eid_format: Nullable(
      Type.Union([Type.Literal('iso11784'), Type.Literal('other')], {
        description:
          '`iso11784` when `eid` is an ISO 11784 number (15 digits: a country or manufacturer code, then a national id of at most 274877906943); `other` when it is kept as given; null without an eid.',
      }),
    ),
    sex: Nullable(Type.String()),
    breed: Nullable(Type.String()),
    birth_date: Nullable(DateTime('Date of birth; a date given alone is midnight UTC.')),
    group_id: Nullable(Type.String()),
    paddock_id: Nullable(Type.String()),
    status: Type.String({ description: `Known values: ${ANIMAL_STATUSES.join(', ')} (default active).` }),
    notes: Nullable(Type.String()),
    fields: Type.Record(Type.String(), Type.Unknown(), { description: 'Free-form custom fields.' }),
    withdrawal: Type.Ref('AnimalWithdrawal'),
    dam_id: Nullable(Type.String()),
    sire_id: Nullable(Type.String()),
    sire_name: Nullable(Type.String()),
    sire_registration: Nullable(Type.String()),
    breeding: Nullable(Type.Ref('AnimalBreeding')),
    created_at: DateTime(),
  },
  {
    $id: 'Animal',
    title: 'Animal',
    examples: [
      {
        id: 'ani_01kyct2fesc0xbda378g9ghyw3',
        farm_id: 'farm_01kyct2fdr20b7h8952h0m29dd',
        species: 'dog',
        name: 'Tess',
        tag: 'D2',
        eid: null,
        eid_format: null,
        sex: 'female',
        breed: 'Anatolian Shepherd',
        birth_date: '2024-03-17T00:00:00.000Z',
        group_id: null,
        paddock_id: 'pad_01kyct2fdw3fecrmq7xe9myg7a',
        status: 'active',
        notes: 'Livestock guardian dog with the layers.',
        fields: {},
        withdrawal: { meat_until: null, milk_until: null, eggs_until: null, because: [] },
        dam_id: null,
        sire_id: null,
        sire_name: null,
        sire_registration: null,
        breeding: null,
        created_at: '2026-07-25T14:15:09.017Z',
      },
    ],
  },
);

const text = (maxLength: number, description?: string) =>
  Nullable(Type.String({ minLength: 1, maxLength, ...(description ? { description } : {}) }));

const fields = {
  species: Type.String({
    minLength: 1,
    maxLength: 100,
    description: 'e.g. cattle, sheep, goat, pig, chicken.',
  }),
  name: text(200),
  tag: text(100),
  eid: text(100, 'Electronic id (ISO 11784: 15 digits); unique in the account.'),
  sex: text(50, 'e.g. female, male, castrated.'),
  breed: text(100),
  birth_date: Nullable(DateInput('Date of birth.')),
  group_id: text(100),
  paddock_id: text(100),
  status: Type.String({
    minLength: 1,
    maxLength: 50,
    description: `Known values: ${ANIMAL_STATUSES.join(', ')}; other values are kept as given. Default active.`,
  }),
  notes: Nullable(Type.String({ maxLength: 10_000 })),
  fields: Type.Record(Type.String(), Type.Unknown()),
  dam_id: text(100),
  sire_id: text(100),
  sire_name: text(200, 'An outside (AI) sire.'),
  sire_registration: text(100),
};

/** Dam and sire: checked against the herd (checkLineage), so the CSV import, which checks rows in bulk, leaves them out. */
export const LINEAGE_MEMBERS = ['dam_id', 'sire_id', 'sire_name', 'sire_registration'];

const lineage = {
  dam_id: Type.Optional(fields.dam_id),
  sire_id: Type.Optional(fields.sire_id),
  sire_name: Type.Optional(fields.sire_name),
  sire_registration: Type.Optional(fields.sire_registration),
};

export const CreateAnimalBody = Type.Object(
  {
    species: fields.species,
    name: Type.Optional(fields.name),
    tag: Type.Optional(fields.tag),
    eid: Type.Optional(fields.eid),
    sex: Type.Optional(fields.sex),
    breed: Type.Optional(fields.breed),
    birth_date: Type.Optional(fields.birth_date),
    group_id: Type.Optional(fields.group_id),
    paddock_id: Type.Optional(fields.paddock_id),
    status: Type.Optional(fields.status),
    notes: Type.Optional(fields.notes),
    fields: Type.Optional(fields.fields),
    ...lineage,
  },
  { additionalProperties: false },
);

export const UpdateAnimalBody = Type.Object(
  {
    species: Type.Optional(fields.species),
    name: Type.Optional(fields.name),
    tag: Type.Optional(fields.tag),
    eid: Type.Optional(fields.eid),
    sex: Type.Optional(fields.sex),
    breed: Type.Optional(fields.breed),
    birth_date: Type.Optional(fields.birth_date),
    group_id: Type.Optional(fields.group_id),
    paddock_id: Type.Optional(fields.paddock_id),
    status: Type.Optional(fields.status),
    notes: Type.Optional(fields.notes),
    ...lineage,
    override_reason: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1000,
        description:
          "Why a status change to sold or slaughtered goes ahead inside the meat withdrawal (else 409 withdrawal_active); kept in the animal's history and sent as withdrawal.overridden.",
      }),
    ),
    fields: Type.Optional(
      Nullable(
        Type.Record(Type.String(), Type.Unknown(), {
          description: 'Merged one level deep: a member set to null is removed; fields: null clears all.',
        }),
      ),
    ),
  },
  { additionalProperties: false },
);

// 200 characters is more than any name, tag or EID; a longer `q` would only burden the LIKE scan.
const filter = (description: string) =>
  Type.Optional(Type.String({ minLength: 1, maxLength: 200, description }));

export const AnimalListQuery = Type.Object(
  {
    ...PageQuery,
    species: filter('Exact species.'),
    group_id: filter('Animals in this group.'),
    paddock_id: filter('Animals in this paddock.'),
    status: filter('Exact status, e.g. active.'),
    tag: filter('Exact tag.'),
    eid: filter("EID in any reader's form."),
    q: filter('Substring of name, tag, eid or breed, any case.'),
    withdrawal: Type.Optional(
      Type.Literal('active', {
        description: 'active: inside a meat, milk or eggs withdrawal.',
      }),
    ),
  },
  { additionalProperties: false },
);

/** How many animals one page of changes holds at most (the field app's refresh; docs/offline.md). */
export const MAX_CHANGES_PAGE = 1000;

export const AnimalChangesQuery = Type.Object(
  {
    since: Type.Optional(
      Type.String({
        pattern: '^[0-9]{1,16}$',
        description:
          'The `next_since` of an earlier answer: only animals changed and removed since then. Absent: every animal (the first download).',
      }),
    ),
    after: Type.Optional(
      Type.String({
        pattern: '^[0-9]{1,16}_[A-Za-z0-9_]{1,100}$',
        description: 'The `next_after` of the previous page of the same refresh.',
      }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_CHANGES_PAGE,
        description: `Page size, 1 to ${MAX_CHANGES_PAGE} (default ${MAX_CHANGES_PAGE}).`,
      }),
    ),
  },
  { additionalProperties: false },
);

export const AnimalChangesSchema = Type.Object(
  {
    data: Type.Array(Type.Ref('Animal'), { description: 'Animals added or changed, oldest change first.' }),
    full: Type.Boolean({
      description:
        'True when this refresh lists the whole herd (no `since`, or a `since` older than the 90 days deleted animals are remembered): replace what you hold with its pages. False: only what changed, with the deleted in `removed`.',
    }),
    removed: Type.Array(Type.String(), {
      description: 'Ids of animals deleted since `since` (on the first page of a refresh only; else empty).',
    }),
    has_more: Type.Boolean({ description: 'True when more changes remain; pass next_after as after.' }),
    next_after: Nullable(Type.String({ description: 'Cursor for the next page of this refresh, or null.' })),
    next_since: Type.String({
      description:
        "What to pass as `since` next time, once every page is read (the first page's value: the time this refresh began, less a minute for writes still committing).",
    }),
  },
  { $id: 'AnimalChanges', title: 'AnimalChanges' },
);

export type AnimalBreeding = Static<typeof AnimalBreedingSchema>;
export type Animal = Omit<Static<typeof AnimalSchema>, 'withdrawal' | 'breeding'> & {
  withdrawal: AnimalWithdrawal;
  breeding: AnimalBreeding | null;
};
export type AnimalWithdrawal = Omit<Static<typeof AnimalWithdrawalSchema>, 'because'> & {
  because: Array<Static<typeof WithdrawalSourceSchema>>;
};
export type AnimalChanges = Static<typeof AnimalChangesSchema>;
export type AnimalChangesInput = Static<typeof AnimalChangesQuery>;
export type CreateAnimalInput = Static<typeof CreateAnimalBody>;
export type UpdateAnimalInput = Static<typeof UpdateAnimalBody>;
export interface AnimalFilters {
  species?: string | undefined;
  group_id?: string | undefined;
  paddock_id?: string | undefined;
  status?: string | undefined;
  tag?: string | undefined;
  eid?: string | undefined;
  q?: string | undefined;
  /** `active`: still inside a meat, milk or eggs withdrawal at `now`. */
  withdrawal?: 'active' | undefined;
  now?: number | undefined;
  /** Exact breed (the MCP find_animals filter; REST searches breed with q). */
  breed?: string | undefined;
  /** species, breed and status match in any case (MCP: an agent writes "Cattle" or "angus"). */
  anyCase?: boolean | undefined;
}
