import { type Static, Type } from 'typebox';
import { TREATMENT_ROUTES } from '../../domain/treatments.ts';
import { DateInput, DateTime, FARM_DAY_NOTE, Nullable, PageQuery } from '../../http/schemas.ts';
import type { WithdrawalSourceSchema } from '../animals/schemas.ts';

/** The most animals one request treats (a group's, or a list): one treatment each, in one transaction. */
export const MAX_TREATED_ANIMALS = 1000;

/** The largest dose one animal is given at once, in any unit (a typo guard, not a clinical limit). */
export const MAX_DOSE = 1e6;

const CourseSchema = Type.Object(
  {
    doses: Type.Integer({ minimum: 1, maximum: 100, description: 'How many doses in the course.' }),
    every_hours: Type.Number({
      exclusiveMinimum: 0,
      maximum: 24 * 90,
      description:
        'Hours between doses; the withdrawal counts from the last (at + (doses − 1) × every_hours).',
    }),
  },
  { additionalProperties: false },
);

const RouteSchema = Type.Enum(TREATMENT_ROUTES, {
  type: 'string',
  description: `How it was given: ${TREATMENT_ROUTES.join(', ')}.`,
});

const WithdrawalUntil = Type.Object(
  {
    meat: Nullable(DateTime()),
    milk: Nullable(DateTime()),
    eggs: Nullable(DateTime()),
  },
  {
    description:
      'When each food is clear again after this treatment, in whole days from its last dose; null: no withdrawal for that food (licensed, and the label gives none). A zero period is the last dose time.',
  },
);

export const TreatmentSchema = Type.Object(
  {
    id: Type.String(),
    farm_id: Type.String(),
    animal_id: Type.String(),
    medicine_id: Type.String(),
    medicine: Type.String({ description: "The medicine's name when it was given." }),
    batch_id: Nullable(Type.String()),
    batch: Nullable(Type.String({ description: 'The batch (lot) number.' })),
    dose: Type.Number({ description: 'Per animal, per dose.' }),
    dose_unit: Type.String(),
    route: Type.String({ description: `One of ${TREATMENT_ROUTES.join(', ')}.` }),
    site: Nullable(Type.String()),
    at: DateTime('The first dose.'),
    course: Type.Object({ doses: Type.Integer(), every_hours: Type.Number() }),
    last_dose_at: DateTime('The course’s last dose, which the withdrawal counts from.'),
    reason: Nullable(Type.String({ description: 'Reason or diagnosis.' })),
    given_by: Nullable(Type.String()),
    vet: Nullable(Type.String({ description: 'The prescribing vet.' })),
    override_reason: Nullable(
      Type.String({ description: 'Why an expired batch, or more than its stock, was used anyway.' }),
    ),
    withdrawal_until: WithdrawalUntil,
    because: Type.Array(Type.Ref('WithdrawalSource'), { description: 'The rule behind each food’s date.' }),
    event_id: Nullable(
      Type.String({ description: 'The `treatment` event it appears as in the farm event log.' }),
    ),
    created_at: DateTime(),
  },
  { $id: 'Treatment', title: 'Treatment' },
);

const text = (maxLength: number, description?: string) =>
  Type.String({ minLength: 1, maxLength, ...(description ? { description } : {}) });

export const CreateTreatmentBody = Type.Object(
  {
    medicine_id: text(100),
    batch_id: Type.Optional(
      text(100, 'The batch used: its stock goes down; an expired one needs override_reason.'),
    ),
    animal_ids: Type.Optional(
      Type.Array(text(100), {
        minItems: 1,
        maxItems: MAX_TREATED_ANIMALS,
        description: 'The animals treated (or group_id): one treatment each.',
      }),
    ),
    group_id: Type.Optional(
      text(100, 'A group: each of its active animals gets a treatment (or animal_ids).'),
    ),
    dose: Type.Number({ exclusiveMinimum: 0, maximum: MAX_DOSE, description: 'Per animal, per dose.' }),
    dose_unit: text(
      20,
      "The unit of the dose: the medicine's unit when a batch is given (its stock is in it).",
    ),
    route: RouteSchema,
    site: Type.Optional(text(100, 'Where on the animal, e.g. left neck.')),
    at: Type.Optional(DateInput(`The first dose; default now. ${FARM_DAY_NOTE}`)),
    course: Type.Optional(CourseSchema),
    reason: Type.Optional(text(1000, 'Reason or diagnosis.')),
    given_by: Type.Optional(text(200)),
    vet: Type.Optional(text(200, 'The prescribing vet.')),
    override_reason: Type.Optional(
      text(
        1000,
        'Why an expired batch, or more than the batch holds, is used anyway; kept on each treatment.',
      ),
    ),
  },
  { additionalProperties: false },
);

const given = CreateTreatmentBody.properties;

/**
 * What a `treatment` farm event's data is read as once it names a `medicine_id` and a `dose`: the treatments
 * route's members (route default `other`, dose_unit default the medicine's unit); other members stay as given.
 */
export const TreatmentEventData = Type.Object(
  {
    medicine_id: given.medicine_id,
    batch_id: given.batch_id,
    dose: given.dose,
    dose_unit: Type.Optional(given.dose_unit),
    route: Type.Optional(given.route),
    site: given.site,
    course: given.course,
    reason: given.reason,
    given_by: given.given_by,
    vet: given.vet,
  },
  { additionalProperties: true },
);

export const TreatmentListQuery = Type.Object(
  {
    ...PageQuery,
    animal_id: Type.Optional(text(100, 'Treatments of this animal.')),
    medicine_id: Type.Optional(text(100, 'Treatments with this medicine.')),
  },
  { additionalProperties: false },
);

export const AnimalTreatmentsQuery = Type.Object({ ...PageQuery }, { additionalProperties: false });

export const TreatmentsCreatedSchema = Type.Object(
  { data: Type.Array(Type.Ref('Treatment'), { description: 'One treatment per animal.' }) },
  { $id: 'TreatmentsCreated', title: 'TreatmentsCreated', additionalProperties: false },
);

export type Treatment = Omit<Static<typeof TreatmentSchema>, 'because'> & {
  because: Array<Static<typeof WithdrawalSourceSchema>>;
};
export type CreateTreatmentInput = Static<typeof CreateTreatmentBody>;
export type TreatmentEventDataInput = Static<typeof TreatmentEventData>;
export type TreatmentListInput = Static<typeof TreatmentListQuery>;
export interface TreatmentFilters {
  animal_id?: string | undefined;
  medicine_id?: string | undefined;
}
