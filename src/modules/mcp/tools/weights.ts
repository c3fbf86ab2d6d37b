/**
 * The herd book's weight tools (issue 47), in the opt-in `herdbook` toolset: record_weight, animal_weights,
 * group_weights. The same service functions as GET/POST /v1/animals/{id}/weights and GET /v1/groups/{id}/weights.
 */
import { Type } from 'typebox';
import {
  AnimalWeightsSchema,
  GroupWeightsQuery,
  GroupWeightsSchema,
  RecordWeightBody,
  WeightsQuery,
} from '../../weights/schemas.ts';
import { getAnimalWeights, getGroupWeights, recordWeight } from '../../weights/service.ts';
import { defineTool, READ_ONLY } from '../tool.ts';

const AnimalId = Type.String({ minLength: 1, description: 'The animal (an id from find_animals).' });

const summary = (w: { data: unknown[]; adg_kg_per_day: number | null; projected_kg: number | null }) => {
  const [latest] = w.data as Array<{ kg: number; at: string; gain_kg_per_day: number | null }>;
  if (!latest) return 'No weights yet.';
  return [
    // The instant, not its UTC date: on a farm far from UTC that date is not the farm's day.
    `Latest ${latest.kg} kg at ${latest.at}; gain ${latest.gain_kg_per_day ?? '–'} kg/day.`,
    `ADG over the period ${w.adg_kg_per_day ?? '–'} kg/day; projected today ${w.projected_kg ?? '–'} kg.`,
  ].join(' ');
};

export const recordWeightTool = defineTool({
  name: 'record_weight',
  title: 'Record weight',
  description:
    'Records one weight (kg) of an animal, at now or `at`; a weight impossible for its species is refused. Answers its weights with gains. Retry with the same idempotency_key, never blindly.',
  input: Type.Object(
    { animal_id: AnimalId, ...RecordWeightBody.properties },
    { additionalProperties: false },
  ),
  output: AnimalWeightsSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  summary,
  async run(ctx, args) {
    const { animal_id, ...input } = args;
    return recordWeight(ctx.db, ctx.scope, animal_id, input);
  },
});

export const animalWeightsTool = defineTool({
  name: 'animal_weights',
  title: 'Animal weights and gain',
  description:
    "An animal's weights, newest first, each with its gain (kg/day) since the one before; the ADG over since/until or the last `days`, and the weight projected to today (at most 90 days on).",
  input: Type.Object({ animal_id: AnimalId, ...WeightsQuery.properties }, { additionalProperties: false }),
  output: AnimalWeightsSchema,
  annotations: READ_ONLY,
  summary,
  async run(ctx, args) {
    const { animal_id, ...query } = args;
    return getAnimalWeights(ctx.db, ctx.scope, animal_id, query);
  },
});

export const groupWeightsTool = defineTool({
  name: 'group_weights',
  title: 'Group weights',
  description:
    "A group's figures over each active animal's latest weight: head weighed, mean, min, max, spread, mean ADG, and the five gaining least.",
  input: Type.Object(
    {
      group_id: Type.String({ minLength: 1, description: 'The group (an id from list_groups).' }),
      ...GroupWeightsQuery.properties,
    },
    { additionalProperties: false },
  ),
  output: GroupWeightsSchema,
  annotations: READ_ONLY,
  summary: (g) =>
    `${g.head_weighed} of ${g.head} weighed; mean ${g.mean_kg ?? '–'} kg (${g.min_kg ?? '–'}–${g.max_kg ?? '–'}); mean ADG ${g.mean_adg_kg_per_day ?? '–'} kg/day.`,
  async run(ctx, args) {
    const { group_id, ...query } = args;
    return getGroupWeights(ctx.db, ctx.scope, group_id, query);
  },
});
