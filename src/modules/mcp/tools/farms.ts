/** Farm-level tools: list_farms, farm_brief, get_catalog. */
import { Type } from 'typebox';
import { parsePage } from '../../../db/pagination.ts';
import { buildCatalog } from '../../../domain/catalog.ts';
import { LANGUAGES, type LanguageName } from '../../../domain/display-units.ts';
import { Nullable } from '../../../http/schemas.ts';
import { BriefSchema } from '../../brief/schemas.ts';
import { buildBrief } from '../../brief/service.ts';
import { FarmSchema } from '../../farms/schemas.ts';
import { listFarms } from '../../farms/service.ts';
import { findPersonById } from '../../people/repository.ts';
import {
  defineTool,
  FarmIdArg,
  PageArgs,
  PageOutput,
  pageResult,
  READ_ONLY,
  resolveFarm,
  type ToolContext,
} from '../tool.ts';

export const listFarmsTool = defineTool({
  name: 'list_farms',
  title: 'List farms',
  description:
    'Lists the farms this key can reach. Use it to find a farm_id; with one farm, other tools work without farm_id.',
  input: Type.Object({ ...PageArgs }, { additionalProperties: false }),
  output: PageOutput(FarmSchema),
  annotations: READ_ONLY,
  async run(ctx, args) {
    return pageResult('list_farms', await listFarms(ctx.db, ctx.scope, parsePage(args)));
  },
});

export const farmBriefTool = defineTool({
  name: 'farm_brief',
  title: 'Farm brief',
  description:
    'What needs attention on a farm, most urgent first: open alerts, tasks due, each house\'s feed, water, climate and doors, quiet devices. Start here for "how is the farm?". Written in language (default: your person\'s, else en).',
  input: Type.Object(
    {
      farm_id: FarmIdArg,
      language: Type.Optional(
        // Said in the tool's description: the default tool list has no bytes to spare (toolsets.ts).
        Type.Enum(LANGUAGES, { type: 'string' }),
      ),
    },
    { additionalProperties: false },
  ),
  output: BriefSchema,
  annotations: READ_ONLY,
  summary: (brief) =>
    [
      brief.headline,
      brief.text,
      ...brief.items.slice(0, 5).map((item) => `- ${item.severity}: ${item.title}`),
      'The ranked items, alerts, tasks and houses are in structuredContent.',
    ].join('\n'),
  async run(ctx, args) {
    const farm = await resolveFarm(ctx, args.farm_id);
    return buildBrief(ctx.db, ctx.scope, farm.id, Date.now(), args.language ?? (await ownLanguage(ctx)));
  },
});

/** The language of the person the credential speaks for (docs/mcp.md); English for an API key. */
async function ownLanguage(ctx: ToolContext): Promise<LanguageName> {
  const person = ctx.personId ? await findPersonById(ctx.db, ctx.personId) : undefined;
  return person?.language ?? 'en';
}

const CatalogOutput = Type.Object(
  {
    version: Type.String(),
    metrics: Type.Array(Type.Object({ name: Type.String(), unit: Type.String(), meaning: Type.String() }), {
      description: 'Metric names with their units and meaning.',
    }),
    rules: Type.Array(
      Type.Object(
        {
          name: Type.String(),
          kind: Type.String({
            description:
              'threshold: a reading at a line; rate: a change of `change` within `window_s`; silence: a device sends no report (device.quiet); rollup: a group’s daily intake per head (group.intake_drop).',
          }),
          metric: Type.Optional(Type.String()),
          direction: Type.Optional(Type.String({ description: 'high: fires at >= the line; low: at <=.' })),
          watch: Type.Optional(Type.Number()),
          urgent: Type.Optional(Nullable(Type.Number())),
          clear: Type.Optional(Type.Number()),
          unit: Type.Optional(Nullable(Type.String())),
          description: Type.String(),
        },
        { additionalProperties: true },
      ),
      { description: 'Built-in alert rules with their kinds (a farm may override them in settings.rules).' },
    ),
    commands: Type.Record(Type.String(), Type.Array(Type.Object({}, { additionalProperties: true })), {
      description: 'Commands per device type, each with params and a JSON Schema of its params.',
    }),
  },
  { additionalProperties: true },
);

export const getCatalogTool = defineTool({
  name: 'get_catalog',
  title: 'Catalog',
  description:
    'The catalog: every metric with its unit, the default alert rules, the commands of each device type with their params. Use it for valid metric and command names.',
  input: Type.Object({}, { additionalProperties: false }),
  output: CatalogOutput,
  annotations: READ_ONLY,
  async run() {
    return buildCatalog();
  },
});
