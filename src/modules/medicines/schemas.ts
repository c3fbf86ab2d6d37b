import { type Static, Type } from 'typebox';
import { MAX_WITHDRAWAL_DAYS } from '../../domain/withdrawal.ts';
import { DateInput, DateTime, Nullable, PageQuery, TypedText } from '../../http/schemas.ts';

const days = (food: string) =>
  Type.Optional(
    Type.Number({
      minimum: 0,
      maximum: MAX_WITHDRAWAL_DAYS,
      description: `The label's ${food} withdrawal in days (0: zero withdrawal, recorded as zero; absent: the label gives none).`,
    }),
  );

export const LabelPeriodsSchema = Type.Object(
  { meat_days: days('meat'), milk_days: days('milk'), eggs_days: days('eggs') },
  { additionalProperties: false },
);

const SpeciesWithdrawal = Type.Record(Type.String({ minLength: 1, maxLength: 100 }), LabelPeriodsSchema, {
  description:
    "The label's periods for a species where they differ from `withdrawal` (keys: species, any case).",
  maxProperties: 50,
});

const LicensedSpecies = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
  maxItems: 50,
  description:
    'The species the medicine is licensed for; absent or null: every species. Given to a species not listed, it is off-label and the cascade sets its withdrawal.',
});

export const MedicineBatchSchema = Type.Object(
  {
    id: Type.String(),
    medicine_id: Type.String(),
    batch: Type.String({ description: 'Batch (lot) number.' }),
    expiry: DateTime(),
    expired: Type.Boolean({
      description: 'True once its expiry has passed: giving it needs override_reason.',
    }),
    quantity: Type.Number({ description: "Bought, in the medicine's unit." }),
    used: Type.Number({ description: 'Given so far: dose × doses of each course, per animal.' }),
    remaining: Type.Number({ description: 'quantity − used.' }),
    supplier: Nullable(Type.String()),
    purchased_at: Nullable(DateTime()),
    proof_of_purchase: Nullable(Type.String({ description: 'An invoice or receipt number.' })),
    created_at: DateTime(),
  },
  { $id: 'MedicineBatch', title: 'MedicineBatch' },
);

export const MedicineSchema = Type.Object(
  {
    id: Type.String(),
    farm_id: Type.String(),
    name: Type.String(),
    unit: Type.String({
      description: 'What a dose is counted in (ml, g, tablet, dose); stock is in it too.',
    }),
    active_ingredient: Nullable(Type.String()),
    form: Nullable(Type.String()),
    withdrawal: LabelPeriodsSchema,
    species_withdrawal: Nullable(SpeciesWithdrawal),
    licensed_species: Nullable(LicensedSpecies),
    low_stock_at: Nullable(
      Type.Number({
        description:
          "The brief lists the medicine as low once the stock left in its batches not yet expired is at or below this, in the medicine's unit; null: a fifth of what those batches held when bought.",
      }),
    ),
    batches: Type.Array(Type.Ref('MedicineBatch'), {
      description: 'Its batches, newest first, with their stock.',
    }),
    created_at: DateTime(),
  },
  {
    $id: 'Medicine',
    title: 'Medicine',
    examples: [
      {
        id: 'med_01kyct2fesc0xbda378g9ghyw3',
        farm_id: 'farm_01kyct2fdr20b7h8952h0m29dd',
        name: 'Pen & Strep',
        unit: 'ml',
        active_ingredient: 'procaine benzylpenicillin, dihydrostreptomycin',
        form: 'suspension for injection',
        withdrawal: { meat_days: 23, milk_days: 2.5 },
        species_withdrawal: { sheep: { meat_days: 18 } },
        licensed_species: ['cattle', 'sheep', 'pig'],
        low_stock_at: 100,
        batches: [],
        created_at: '2026-07-25T14:15:09.017Z',
      },
    ],
  },
);

const text = (maxLength: number) => TypedText(maxLength);

const LowStockAt = Nullable(
  Type.Number({
    minimum: 0,
    maximum: 1e9,
    description:
      "The stock line, in the medicine's unit, at or below which the brief lists it as low; null: a fifth of what its batches held when bought.",
  }),
);

export const CreateMedicineBody = Type.Object(
  {
    name: text(200),
    unit: text(20),
    active_ingredient: Type.Optional(Nullable(text(300))),
    form: Type.Optional(Nullable(text(100))),
    withdrawal: LabelPeriodsSchema,
    species_withdrawal: Type.Optional(Nullable(SpeciesWithdrawal)),
    licensed_species: Type.Optional(Nullable(LicensedSpecies)),
    low_stock_at: Type.Optional(LowStockAt),
  },
  { additionalProperties: false },
);

export const UpdateMedicineBody = Type.Object(
  {
    name: Type.Optional(text(200)),
    unit: Type.Optional(text(20)),
    active_ingredient: Type.Optional(Nullable(text(300))),
    form: Type.Optional(Nullable(text(100))),
    withdrawal: Type.Optional(LabelPeriodsSchema),
    species_withdrawal: Type.Optional(Nullable(SpeciesWithdrawal)),
    licensed_species: Type.Optional(Nullable(LicensedSpecies)),
    low_stock_at: Type.Optional(LowStockAt),
  },
  { additionalProperties: false },
);

export const CreateBatchBody = Type.Object(
  {
    batch: text(100),
    expiry: DateInput(
      "The label's expiry: a date alone is usable through that day in the farm's zone (it expires at the day's end there); a date-time is that instant.",
    ),
    quantity: Type.Number({
      exclusiveMinimum: 0,
      maximum: 1e9,
      description: "Bought, in the medicine's unit.",
    }),
    supplier: Type.Optional(Nullable(text(200))),
    purchased_at: Type.Optional(Nullable(DateInput('When it was bought.'))),
    proof_of_purchase: Type.Optional(Nullable(text(200))),
  },
  { additionalProperties: false },
);

export const MedicineListQuery = Type.Object({ ...PageQuery }, { additionalProperties: false });

export type MedicineBatch = Static<typeof MedicineBatchSchema>;
export type Medicine = Omit<Static<typeof MedicineSchema>, 'batches'> & { batches: MedicineBatch[] };
export type CreateMedicineInput = Static<typeof CreateMedicineBody>;
export type UpdateMedicineInput = Static<typeof UpdateMedicineBody>;
export type CreateBatchInput = Static<typeof CreateBatchBody>;
export type LabelPeriods = Static<typeof LabelPeriodsSchema>;
