import { type Static, Type } from 'typebox';
import { WEIGHT_SOURCES } from '../../domain/weights.ts';
import { DateInput, DateTime, FARM_DAY_NOTE, Nullable, PageQuery } from '../../http/schemas.ts';
import { SESSION_FORMATS } from './formats.ts';

const source = Type.Enum(WEIGHT_SOURCES, {
  type: 'string',
  description:
    'Where the weight came from: event (a `weight` event logged by a client), scale (a scale head’s weight.kg reading matched by EID), session (a weigh-session import), chute (the chute page or the record_weight tool).',
});

export const WeightEntrySchema = Type.Object(
  {
    at: DateTime('When the animal was weighed.'),
    kg: Type.Number(),
    gain_kg_per_day: Nullable(
      Type.Number({
        description:
          'Gain since the weight before, kg per day; null for the first weight, or one less than a day after the one before.',
      }),
    ),
    source,
    event_id: Type.String({ description: 'The `weight` event it is in the farm event log.' }),
    session_id: Nullable(Type.String({ description: 'The weigh session it was imported with.' })),
  },
  { $id: 'WeightEntry', title: 'WeightEntry' },
);

export const AnimalWeightsSchema = Type.Object(
  {
    animal_id: Type.String(),
    data: Type.Array(Type.Ref('WeightEntry'), { description: 'The weights in the period, newest first.' }),
    adg_kg_per_day: Nullable(
      Type.Number({
        description:
          'Average daily gain over the period: from its first weight to its last. null with fewer than two weights a day apart.',
      }),
    ),
    projected_kg: Nullable(
      Type.Number({
        description:
          'The latest weight carried forward to today at the latest gain, never more than 90 days past the latest weight.',
      }),
    ),
    projected_at: Nullable(
      DateTime('The moment the projection is for: now, or 90 days after the latest weight.'),
    ),
  },
  { $id: 'AnimalWeights', title: 'AnimalWeights' },
);

export const WeightsQuery = Type.Object(
  {
    since: Type.Optional(DateInput('The period starts here (inclusive). Default: the first weight.')),
    until: Type.Optional(DateInput('The period ends here (exclusive). Default: now.')),
    days: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 3650,
        description: 'The last n days (instead of since): a period ending now.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const GroupWeightsQuery = Type.Object(
  {
    since: Type.Optional(DateInput('Only weights at or after this time count as an animal’s latest.')),
  },
  { additionalProperties: false },
);

const AnimalGain = Type.Object({
  animal_id: Type.String(),
  name: Nullable(Type.String()),
  tag: Nullable(Type.String()),
  kg: Type.Number({ description: 'Its latest weight.' }),
  at: DateTime('When it was weighed.'),
  gain_kg_per_day: Nullable(Type.Number({ description: 'Its gain since the weight before.' })),
});

export const GroupWeightsSchema = Type.Object(
  {
    group_id: Type.String(),
    head: Type.Integer({ description: 'Active animals in the group.' }),
    head_weighed: Type.Integer({ description: 'Of them, those with a weight (since `since`).' }),
    mean_kg: Nullable(Type.Number()),
    min_kg: Nullable(Type.Number()),
    max_kg: Nullable(Type.Number()),
    spread_kg: Nullable(Type.Number({ description: 'max_kg − min_kg.' })),
    sd_kg: Nullable(Type.Number({ description: 'Standard deviation of the latest weights.' })),
    mean_adg_kg_per_day: Nullable(
      Type.Number({ description: 'The mean of each weighed animal’s gain since its weight before.' }),
    ),
    last_weighed_at: Nullable(DateTime('The group’s most recent weight.')),
    lowest_gain: Type.Array(AnimalGain, {
      description: 'The five animals gaining least (lowest gain first; those without a gain left out).',
    }),
  },
  { $id: 'GroupWeights', title: 'GroupWeights' },
);

export const RecordWeightBody = Type.Object(
  {
    kg: Type.Number({ exclusiveMinimum: 0, maximum: 5000 }),
    at: Type.Optional(DateInput(`When it was weighed. Default: now. ${FARM_DAY_NOTE}`)),
    source: Type.Optional(
      Type.Enum(['chute', 'event'], {
        type: 'string',
        description: 'chute (default): weighed at the race; event: entered later.',
      }),
    ),
    note: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  },
  { additionalProperties: false },
);

export type WeightEntry = Static<typeof WeightEntrySchema>;
export type AnimalWeights = Static<typeof AnimalWeightsSchema>;
export type GroupWeights = Static<typeof GroupWeightsSchema>;
export type WeightsQueryInput = Static<typeof WeightsQuery>;
export type RecordWeightInput = Static<typeof RecordWeightBody>;

// Weigh sessions.

const Column = Type.String({ minLength: 1, maxLength: 200 });

export const SessionMapping = Type.Object(
  {
    eid: Type.Optional(Column),
    tag: Type.Optional(Column),
    kg: Type.Optional(Column),
    date: Type.Optional(Column),
    time: Type.Optional(Column),
    traits: Type.Optional(
      Type.Record(Type.String({ minLength: 1, maxLength: 100 }), Column, {
        description:
          'Extra traits to keep with each weight: {trait name: column}, e.g. {"condition_score": "BCS"}.',
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      'Which column holds what (header names as in the file). A dry run answers the mapping it read; send it back, corrected, to confirm it.',
  },
);

export const ImportSessionBody = Type.Object(
  {
    content: Type.String({ minLength: 1, description: 'The session file’s text (CSV).' }),
    format: Type.Optional(
      Type.Enum(SESSION_FORMATS, {
        type: 'string',
        description:
          'datamars (Datamars Livestock / Tru-Test XR5000, ID5000, EziWeigh CSV), gallagher (TW/TSi session CSV) or csv (any, with a mapping). Default: read from the header.',
      }),
    ),
    mapping: Type.Optional(SessionMapping),
    dry_run: Type.Optional(Type.Boolean({ description: 'Check and preview only; store nothing.' })),
    unit: Type.Optional(
      Type.Enum(['kg', 'lb'], {
        type: 'string',
        description: 'The weights’ unit. Default: from the header, else kg.',
      }),
    ),
    date_order: Type.Optional(
      Type.Enum(['dmy', 'mdy'], {
        type: 'string',
        description: 'How a date like 03/04/2026 reads: dmy (default: NZ, AU, UK, IE) or mdy (US).',
      }),
    ),
    at: Type.Optional(DateInput(`When rows without a date were weighed. Default: now. ${FARM_DAY_NOTE}`)),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    create_unmatched: Type.Optional(
      Type.Boolean({
        description: 'Create an animal for each unmatched row (its EID or tag), of `species`.',
      }),
    ),
    species: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    group_id: Type.Optional(Type.String({ minLength: 1, description: 'The group created animals join.' })),
  },
  { additionalProperties: false },
);

const RowRef = Type.Object({
  row: Type.Integer({ description: 'The row’s line number in the file.' }),
  eid: Nullable(Type.String()),
  tag: Nullable(Type.String()),
  kg: Nullable(Type.Number()),
  animal_id: Nullable(Type.String()),
  reason: Type.String(),
});

export const SessionPreviewSchema = Type.Object(
  {
    dry_run: Type.Literal(true),
    format: Type.String(),
    mapping: SessionMapping,
    unit: Type.String(),
    rows: Type.Integer({ description: 'Data rows read.' }),
    matched: Type.Integer({
      description: 'Rows matched to an animal (by EID in any ISO form, then by visual tag).',
    }),
    matched_by_eid: Type.Integer(),
    matched_by_tag: Type.Integer(),
    unmatched: Type.Array(RowRef, {
      description: 'Rows naming no animal of the farm (create_unmatched creates them).',
    }),
    duplicates: Type.Array(RowRef, {
      description:
        'Rows repeating an animal already in the file, or a weight already stored (same animal, time and kg).',
    }),
    refused: Type.Array(RowRef, {
      description: 'Rows without a usable weight, id or date, or with a weight impossible for the species.',
    }),
    imported_as: Nullable(
      Type.String({
        description:
          'The session this same file was imported as already (importing it again stores nothing).',
      }),
    ),
  },
  { $id: 'WeighSessionPreview', title: 'WeighSessionPreview' },
);

export const WeighSessionSchema = Type.Object(
  {
    id: Type.String(),
    farm_id: Type.String(),
    name: Nullable(Type.String()),
    format: Type.String(),
    at: DateTime('When the session was weighed (its earliest row).'),
    rows: Type.Integer(),
    head_count: Type.Integer({ description: 'Animals weighed (weights stored).' }),
    created_animals: Type.Integer(),
    mean_kg: Nullable(Type.Number()),
    min_kg: Nullable(Type.Number()),
    max_kg: Nullable(Type.Number()),
    adg_kg_per_day: Nullable(
      Type.Number({
        description:
          'The mean gain of the session’s animals since each one’s weight before it (for a herd weighed in sessions: since the previous session).',
      }),
    ),
    previous_session_id: Nullable(Type.String()),
    histogram: Type.Array(
      Type.Object({ from_kg: Type.Number(), to_kg: Type.Number(), count: Type.Integer() }),
      { description: 'The weights counted in bins of a round width (from inclusive, to exclusive).' },
    ),
    file_hash: Type.String({ description: 'SHA-256 of the file: the same file imports nothing twice.' }),
    created_at: DateTime(),
  },
  { $id: 'WeighSession', title: 'WeighSession' },
);

export const ImportedSessionSchema = Type.Object(
  {
    ...WeighSessionSchema.properties,
    already_imported: Type.Boolean({
      description: 'true: this file was imported before (the session is that one); nothing was stored now.',
    }),
    unmatched: Type.Array(RowRef),
    duplicates: Type.Array(RowRef),
    refused: Type.Array(RowRef),
  },
  { $id: 'ImportedWeighSession', title: 'ImportedWeighSession' },
);

export const SessionListQuery = Type.Object({ ...PageQuery }, { additionalProperties: false });

export type SessionMappingInput = Static<typeof SessionMapping>;
export type ImportSessionInput = Static<typeof ImportSessionBody>;
export type SessionRowRef = Static<typeof RowRef>;
export type SessionPreview = Static<typeof SessionPreviewSchema>;
export type WeighSession = Static<typeof WeighSessionSchema>;
export type ImportedSession = Static<typeof ImportedSessionSchema>;
