/** The public catalog served at GET /v1/catalog (and by the get_catalog MCP tool). */

import { DEVICE_CLOCK_RULE, DEVICE_QUIET_RULE, INTAKE_DROP_RULE, WATER_LEAK_RULE } from './built-in-rules.ts';
import { type CommandSpec, type JsonSchema, type ParamSpec, paramsJsonSchema } from './command-params.ts';
import { ALARM_EVENT_TYPES, DEVICE_COMMANDS, DEVICE_TYPE_DESCRIPTIONS, DEVICE_TYPES } from './devices.ts';
import { HOUSE_COMMANDS } from './house-commands.ts';
import { HOUSE_STATE_JSON_SCHEMA } from './house-state.ts';
import { METRICS, unitOf } from './metrics.ts';
import { DEFAULT_RULES } from './rules.ts';
import { acceptedUnits } from './units.ts';
import { WEBHOOK_EVENT_DESCRIPTIONS, WEBHOOK_EVENTS } from './webhook-events.ts';

export const CATALOG_VERSION = '2026-10-18';

export interface CatalogCommand {
  name: string;
  description: string;
  caution?: string;
  params: ParamSpec[];
  params_schema: JsonSchema;
}

function catalogCommand(spec: CommandSpec): CatalogCommand {
  const out: CatalogCommand = {
    name: spec.name,
    description: spec.description,
    params: structuredClone(spec.params) as ParamSpec[],
    params_schema: paramsJsonSchema(spec),
  };
  if (spec.caution) out.caution = spec.caution;
  return out;
}

/**
 * Builds the catalog as plain JSON-serialisable data. A new object every call, so a caller may
 * decorate it without touching the shared definitions.
 */
export function buildCatalog() {
  const commands: Record<string, CatalogCommand[]> = { house: HOUSE_COMMANDS.map(catalogCommand) };
  for (const type of DEVICE_TYPES) {
    const specs = DEVICE_COMMANDS[type];
    if (specs) commands[type] = specs.map(catalogCommand);
  }
  return {
    version: CATALOG_VERSION,
    // accepted_units: the catalog's unit first, then those converted into it (units.ts).
    metrics: METRICS.map((m) => ({ ...m, accepted_units: acceptedUnits(m.unit) })),
    rules: catalogRules(),
    commands,
    device_types: DEVICE_TYPES.map((type) => ({
      type,
      description: DEVICE_TYPE_DESCRIPTIONS[type],
      // null: the type defines its own commands and any command name is accepted.
      commands: type === 'house' || DEVICE_COMMANDS[type] ? (commands[type]?.map((c) => c.name) ?? []) : null,
    })),
    webhook_events: WEBHOOK_EVENTS.map((name) => ({ name, description: WEBHOOK_EVENT_DESCRIPTIONS[name] })),
    device_alarm_events: ALARM_EVENT_TYPES.map((e) => ({ ...e })),
    house_state_schema: structuredClone(HOUSE_STATE_JSON_SCHEMA) as JsonSchema,
  };
}

export type Catalog = ReturnType<typeof buildCatalog>;

/**
 * Every built-in rule with its kind: threshold (a reading at a line), rate (a change within a window),
 * silence (no report for a while), rollup (a group's daily intake per head) and clock (a device dating its
 * data ahead of the server's clock). title and measure are
 * the wording of alerts, not part of the published rule.
 */
function catalogRules() {
  const { title: _t, measure: _m, device_types, ...leak } = WATER_LEAK_RULE;
  const { title: _qt, urgent_device_types, ...quiet } = DEVICE_QUIET_RULE;
  const { title: _it, metrics, ...intake } = INTAKE_DROP_RULE;
  return [
    ...DEFAULT_RULES.map(({ title: _title, measure: _measure, ...r }) => ({
      ...r,
      kind: 'threshold' as const,
      unit: unitOf(r.metric),
    })),
    {
      ...leak,
      // The engine runs it on the change over the window: watch at the change, clear at half of it.
      direction: 'low' as const,
      watch: leak.change,
      urgent: null,
      clear: leak.change / 2,
      device_types: [...device_types],
      unit: unitOf(leak.metric),
    },
    { ...quiet, urgent_device_types: [...urgent_device_types] },
    {
      ...intake,
      metrics: metrics.map(({ measure: _measure, ...m }) => ({ ...m, unit: unitOf(m.metric) })),
    },
    (({ title: _ct, ...clock }) => clock)(DEVICE_CLOCK_RULE),
  ];
}
