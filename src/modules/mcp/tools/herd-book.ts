/**
 * The herd book's tools (issue 46; the opt-in `herdbook` toolset, toolsets.ts): clear_to_sell, give_treatment
 * and list_medicines, over the services REST calls, with the key's scope.
 */
import { Type } from 'typebox';
import { parsePage } from '../../../db/pagination.ts';
import { DateInput, FARM_DAY_NOTE, Nullable } from '../../../http/schemas.ts';
import { AnimalWithdrawalSchema } from '../../animals/schemas.ts';
import type { AnimalWithdrawal } from '../../animals/withdrawal.ts';
import { MedicineSchema } from '../../medicines/schemas.ts';
import { listMedicines } from '../../medicines/service.ts';
import { CLEAR_ANIMALS_LISTED, clearToSell } from '../../treatments/clear-to-sell.ts';
import { CreateTreatmentBody, TreatmentSchema } from '../../treatments/schemas.ts';
import { createTreatments } from '../../treatments/service.ts';
import { defineTool, FarmIdArg, PageArgs, PageOutput, pageResult, READ_ONLY, resolveFarm } from '../tool.ts';

const ClearanceSchema = Type.Object({
  animal_id: Type.String(),
  name: Nullable(Type.String()),
  tag: Nullable(Type.String()),
  status: Type.String(),
  clear: Type.Boolean({ description: 'Clear of meat withdrawal at `at`: may be sold or slaughtered.' }),
  clear_from: Nullable(Type.String({ description: 'When its meat withdrawal ends; null when clear.' })),
  withdrawal: AnimalWithdrawalSchema,
});

export const clearToSellTool = defineTool({
  name: 'clear_to_sell',
  title: 'Clear to sell?',
  description:
    'Whether an animal, or each active animal of a group, is clear of meat withdrawal (may be sold or slaughtered) now or at `at`, and if not when it will be and which medicines hold it.',
  input: Type.Object(
    {
      animal_id: Type.Optional(Type.String({ minLength: 1, description: 'The animal, or group_id.' })),
      group_id: Type.Optional(Type.String({ minLength: 1, description: 'The group, or animal_id.' })),
      at: Type.Optional(DateInput(`Default now. ${FARM_DAY_NOTE}`)),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    farm_id: Type.String(),
    at: Type.String(),
    all_clear: Type.Boolean(),
    all_clear_from: Nullable(Type.String({ description: 'When the last animal is clear; null: all are.' })),
    not_clear: Type.Integer(),
    clear_count: Type.Integer(),
    animals: Type.Array(ClearanceSchema, {
      description: `Every animal not clear (latest first), then up to ${CLEAR_ANIMALS_LISTED} clear ones.`,
    }),
  }),
  annotations: READ_ONLY,
  summary: (out) => {
    const held = out.animals.filter((a) => !a.clear);
    const lines = [
      out.all_clear
        ? `All clear to sell at ${out.at} (${out.clear_count} ${out.clear_count === 1 ? 'animal' : 'animals'}).`
        : `${out.not_clear} not clear at ${out.at}; all clear from ${out.all_clear_from}.`,
      ...held.slice(0, 10).map((a) => {
        const meds = [
          ...new Set(
            (a.withdrawal.because as AnimalWithdrawal['because'])
              .filter((b) => b.food === 'meat')
              .map((b) => b.medicine),
          ),
        ];
        return `- ${a.name ?? a.tag ?? a.animal_id} (${a.animal_id}): clear from ${a.clear_from} (${meds.join(', ')})`;
      }),
    ];
    if (held.length > 10) lines.push(`- … ${held.length - 10} more`);
    lines.push('The full answer is in structuredContent.');
    return lines.join('\n');
  },
  async run(ctx, args) {
    return clearToSell(ctx.db, ctx.scope, { animal_id: args.animal_id, group_id: args.group_id }, args.at);
  },
});

// As with log_event, an agent may not override a refusal: an expired batch, or more than a batch holds, is a
// person's call, made over the API with override_reason (docs/records.md).
const { override_reason: _override, ...treatmentArgs } = CreateTreatmentBody.properties;

export const giveTreatmentTool = defineTool({
  name: 'give_treatment',
  title: 'Give treatment',
  description:
    'Records a medicine given to animals (animal_ids) or a group (group_id): one treatment each, with its withdrawal; a batch_id takes stock. list_medicines gives medicine and batch ids. Each call records again: retry with the same idempotency_key.',
  input: Type.Object({ farm_id: FarmIdArg, ...treatmentArgs }, { additionalProperties: false }),
  output: Type.Object({ data: Type.Array(TreatmentSchema, { description: 'One treatment per animal.' }) }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(ctx, args) {
    const { farm_id, ...input } = args;
    const farm = await resolveFarm(ctx, farm_id);
    return createTreatments(ctx.db, ctx.scope, farm.id, input);
  },
});

export const listMedicinesTool = defineTool({
  name: 'list_medicines',
  title: 'List medicines',
  description:
    "A farm's medicine cabinet: each medicine's label withdrawal (days for meat, milk, eggs), licensed species, and batches with stock and expiry.",
  input: Type.Object({ farm_id: FarmIdArg, ...PageArgs }, { additionalProperties: false }),
  output: PageOutput(MedicineSchema),
  annotations: READ_ONLY,
  async run(ctx, args) {
    const { farm_id, limit, before } = args;
    const farm = await resolveFarm(ctx, farm_id);
    return pageResult(
      'list_medicines',
      await listMedicines(ctx.db, ctx.scope, farm.id, parsePage({ limit, before })),
    );
  },
});
