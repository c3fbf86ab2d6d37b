/** Alert tools: list_alerts, update_alert. */
import { Type } from 'typebox';
import { ALERT_STATUS_FILTERS } from '../../../domain/statuses.ts';
import { AlertSchema } from '../../alerts/schemas.ts';
import { acknowledgeAlert, listAlerts, resolveAlert } from '../../alerts/service.ts';
import { RuleSchema } from '../../rules/schemas.ts';
import { listRules } from '../../rules/service.ts';
import { defineTool, FarmIdArg, PageArgs, PageOutput, pageResult, READ_ONLY, resolveFarm } from '../tool.ts';

export const listAlertsTool = defineTool({
  name: 'list_alerts',
  title: 'List alerts',
  description:
    "A farm's alerts, most urgent first; by default the active ones (status: open, acknowledged, resolved or all). Each names its rule, reason and subject. Use list_rules to explain a rule.",
  input: Type.Object(
    {
      farm_id: FarmIdArg,
      status: Type.Optional(
        Type.Enum(ALERT_STATUS_FILTERS, {
          type: 'string',
          description: 'active (open and acknowledged; the default), open, acknowledged, resolved or all.',
        }),
      ),
      ...PageArgs,
    },
    { additionalProperties: false },
  ),
  output: PageOutput(AlertSchema),
  annotations: READ_ONLY,
  async run(ctx, args) {
    const { farm_id, status, ...page } = args;
    const farm = await resolveFarm(ctx, farm_id);
    return pageResult(
      'list_alerts',
      await listAlerts(ctx.db, ctx.scope, farm.id, status ? { status } : {}, page),
    );
  },
});

export const updateAlertTool = defineTool({
  name: 'update_alert',
  title: 'Acknowledge or resolve alert',
  description:
    'Acknowledge an alert (someone is on it) or resolve it (dealt with; cannot be undone). Repeating the same action changes nothing.',
  input: Type.Object(
    {
      alert_id: Type.String({ minLength: 1, description: 'The alert (an id from list_alerts).' }),
      action: Type.Enum(['acknowledge', 'resolve'], {
        type: 'string',
        description: 'acknowledge (someone is on it) or resolve (dealt with).',
      }),
    },
    { additionalProperties: false },
  ),
  output: AlertSchema,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async run(ctx, args) {
    return args.action === 'acknowledge'
      ? acknowledgeAlert(ctx.db, ctx.scope, args.alert_id)
      : resolveAlert(ctx.db, ctx.scope, args.alert_id);
  },
});

export const listRulesTool = defineTool({
  name: 'list_rules',
  title: 'List alert rules',
  description:
    "The alert rules in force on a farm (built-in with the farm's settings, then its own): metric, lines, scope, enabled. Use it to explain why an alert opened or what a farm watches.",
  input: Type.Object({ farm_id: FarmIdArg }, { additionalProperties: false }),
  output: Type.Object({ data: Type.Array(RuleSchema) }),
  annotations: READ_ONLY,
  async run(ctx, args) {
    const farm = await resolveFarm(ctx, args.farm_id);
    return listRules(ctx.db, ctx.scope, farm.id);
  },
});
