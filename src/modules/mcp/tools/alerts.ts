/** Alert tools: list_alerts, update_alert. */
import { Type } from 'typebox';
import {
  DEVICE_CLOCK_RULE,
  DEVICE_QUIET_RULE,
  INTAKE_DROP_RULE,
  WATER_LEAK_RULE,
} from '../../../domain/built-in-rules.ts';
import { DEFAULT_RULES } from '../../../domain/rules.ts';
import { ALERT_STATUS_FILTERS } from '../../../domain/statuses.ts';
import { AlertSchema } from '../../alerts/schemas.ts';
import { acknowledgeAlert, listAlerts, resolveAlert } from '../../alerts/service.ts';
import { RuleSchema } from '../../rules/schemas.ts';
import { listRules } from '../../rules/service.ts';
import { defineTool, FarmIdArg, PageArgs, PageOutput, pageResult, READ_ONLY, resolveFarm } from '../tool.ts';

export const listAlertsTool = defineTool({
  name: 'list_alerts',
  title: 'List alerts',
  description: `Lists a farm's alerts, most urgent first (urgent, then watch, then info; newest first within each). By default the active ones (open or acknowledged); status open, acknowledged, resolved or all to choose. Each alert has a title, a reason (the reading and the line it crossed, or the device event), its rule (${DEFAULT_RULES.map((r) => r.name).join(', ')}; ${WATER_LEAK_RULE.name}, a tank falling fast; ${DEVICE_QUIET_RULE.name}, a device that stopped reporting; ${INTAKE_DROP_RULE.name}, a group drinking or eating less per head than its 7-day median; ${DEVICE_CLOCK_RULE.name}, a device dating its readings ahead of the server's clock; one of the farm's own rules (see list_rules), or a device alarm such as predator.detected) and the subject (device, animal, or group for ${INTAKE_DROP_RULE.name}) it is about. When has_more is true, call again with before set to next_before.`,
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
    'Acknowledges an alert (someone is on it: open → acknowledged) or resolves it (dealt with: open or acknowledged → resolved, resolved_at set). Resolving cannot be undone; if the condition comes back the service opens a new alert. Repeating the same action changes nothing; a resolved alert cannot be acknowledged. Find alert ids with list_alerts or farm_brief.',
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
  description: `Lists the alert rules in force on a farm: first the built-in ones with the farm's settings.rules applied — the threshold defaults (${DEFAULT_RULES.map((r) => r.name).join(', ')}), the rate rule ${WATER_LEAK_RULE.name} (kind rate), ${DEVICE_QUIET_RULE.name} (kind silence: quiet_after_s by device type), ${INTAKE_DROP_RULE.name} (kind rollup: drop_pct by metric) and ${DEVICE_CLOCK_RULE.name} (kind clock: only enabled) — then the farm's own rules (source custom) in the order they were added. A threshold rule names its metric, direction (above: fires at or above the line; below: at or below), the watch and urgent lines and the clear value (an alert resolves back at or past it), its scope (device_type, device_id, group_id; null means every device) and for_s (seconds the condition must hold, by reading time, before an alert opens; null opens at once); a rate rule has change and window_s; silence and roll-up rules have null lines and their own settings. enabled is false for a rule the farm turned off. Use it to explain why an alert opened (its rule member names the rule) or to check what a farm watches.`,
  input: Type.Object({ farm_id: FarmIdArg }, { additionalProperties: false }),
  output: Type.Object({ data: Type.Array(RuleSchema) }),
  annotations: READ_ONLY,
  async run(ctx, args) {
    const farm = await resolveFarm(ctx, args.farm_id);
    return listRules(ctx.db, ctx.scope, farm.id);
  },
});
