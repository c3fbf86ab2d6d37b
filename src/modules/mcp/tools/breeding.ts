/**
 * The herd book's breeding tools (issue 47), in the opt-in `herdbook` toolset: due dates (the calving
 * calendar), a mating check before a service, and an animal's pedigree with its inbreeding. Each calls the
 * breeding service REST calls. Breeding records themselves are logged with log_event (heat, service,
 * pregnancy_check, birth with offspring, abortion, weaning).
 */
import { Type } from 'typebox';
import { dueDates } from '../../breeding/calendar.ts';
import { getPedigree, matingCheck } from '../../breeding/lineage.ts';
import { DueDatesQuery, DueDatesSchema, MatingCheckSchema, PedigreeSchema } from '../../breeding/schemas.ts';
import { defineTool, FarmIdArg, READ_ONLY, resolveFarm } from '../tool.ts';

export const dueDatesTool = defineTool({
  name: 'due_dates',
  title: 'Due dates',
  description:
    "The calving (lambing…) calendar: a farm's bred and pregnant females by due date, soonest first, and any overdue.",
  input: Type.Object({ farm_id: FarmIdArg, ...DueDatesQuery.properties }, { additionalProperties: false }),
  output: DueDatesSchema,
  annotations: READ_ONLY,
  async run(ctx, args) {
    const { farm_id, ...input } = args;
    const farm = await resolveFarm(ctx, farm_id);
    return dueDates(ctx.db, ctx.scope, farm.id, input);
  },
});

export const matingCheckTool = defineTool({
  name: 'mating_check',
  title: 'Mating check',
  description:
    "Before a service: the inbreeding coefficient a female's offspring by this sire would have (a fraction), and a warning at 6.25 % or more.",
  input: Type.Object(
    {
      female_id: Type.String({ minLength: 1, description: 'The female (an id from find_animals).' }),
      sire_id: Type.String({ minLength: 1, description: 'The proposed sire, an animal of the account.' }),
    },
    { additionalProperties: false },
  ),
  output: MatingCheckSchema,
  annotations: READ_ONLY,
  run: (ctx, args) => matingCheck(ctx.db, ctx.scope, args.female_id, args.sire_id, 'female_id'),
});

export const pedigreeTool = defineTool({
  name: 'get_pedigree',
  title: 'Pedigree',
  description:
    "An animal's ancestors and descendants to n generations (default 3), and its inbreeding coefficient.",
  input: Type.Object(
    {
      animal_id: Type.String({ minLength: 1, description: 'The animal (an id from find_animals).' }),
      generations: Type.Optional(Type.Integer({ minimum: 1, maximum: 10 })),
    },
    { additionalProperties: false },
  ),
  output: PedigreeSchema,
  annotations: READ_ONLY,
  run: (ctx, args) => getPedigree(ctx.db, ctx.scope, args.animal_id, { generations: args.generations }),
});

/** The breeding tools, for the `herdbook` toolset (opt-in: they stay out of the default tools/list). */
export const BREEDING_TOOLS = [dueDatesTool, matingCheckTool, pedigreeTool];
