import { type Static, Type } from 'typebox';
import {
  BUILT_IN_RULE_KINDS,
  INTAKE_DROP_RULE,
  MAX_WINDOW_S,
  MIN_WINDOW_S,
} from '../../domain/built-in-rules.ts';
import { DEVICE_TYPES } from '../../domain/devices.ts';
import { MAX_FOR_S } from '../../domain/rules.ts';
import { DateTime, Nullable } from '../../http/schemas.ts';

export const RULE_DIRECTIONS = ['above', 'below'] as const;
export const RULE_KINDS = ['threshold', 'rate'] as const;
export type RuleKind = (typeof RULE_KINDS)[number];

const KIND_WORDS =
  'threshold: a reading at or beyond a line (watch, urgent, clear). rate: the reading changed by `change` or more (signed, in the metric’s unit) within `window_s`; a watch alert that clears once the change over the window is back under half of it.';

const Kind = Type.Enum(RULE_KINDS, { type: 'string', description: KIND_WORDS });
export type RuleSide = (typeof RULE_DIRECTIONS)[number];

/** A listed rule may be of any built-in kind; a farm's own rules are threshold or rate rules. */
const ListedKind = Type.Enum(BUILT_IN_RULE_KINDS, {
  type: 'string',
  description: `${KIND_WORDS} silence (device.quiet): a device that sent no report for a while; see quiet_after_s. rollup (group.intake_drop): a group's daily water or feed per head against its own trailing 7-day median; see drop_pct. clock (device.clock): a device dating its readings or events ahead of the server's clock; only enabled.`,
});

const NOT_LINES = 'null for silence and roll-up rules, which have their own settings.';

const QuietAfter = Type.Object(
  Object.fromEntries(DEVICE_TYPES.map((t) => [t, Type.Integer({ minimum: 1 })])),
  {
    description:
      'Silence rules: by device type, the least silence in seconds that counts as quiet (a device waits 3 × its usual interval when that is longer). Set in settings.rules["device.quiet"].quiet_after_s. Null for other rules.',
  },
);

const DropPct = Type.Object(
  Object.fromEntries(INTAKE_DROP_RULE.metrics.map((m) => [m.metric, Type.Number()])),
  {
    description:
      'Roll-up rules: by metric, how far below its trailing 7-day median (in percent) a day’s intake per head opens the alert. Set in settings.rules["group.intake_drop"].drop_pct. Null for other rules.',
  },
);

const Direction = Type.Enum(RULE_DIRECTIONS, {
  type: 'string',
  description: 'above: a reading at or above a line crosses it; below: at or below.',
});

/** One rule of a farm's effective set: a default (with the farm's overrides) or a custom rule. */
export const RuleSchema = Type.Object(
  {
    id: Nullable(Type.String({ description: 'The custom rule id; null for a default rule.' })),
    farm_id: Type.String(),
    name: Type.String({ description: 'Alerts opened by this rule carry this name as `rule`.' }),
    source: Type.Enum(['default', 'custom'], {
      type: 'string',
      description:
        'default: one of the built-in rules (overridable in settings.rules); custom: the farm’s own.',
    }),
    kind: ListedKind,
    metric: Nullable(Type.String({ description: `The metric the rule reads; ${NOT_LINES}` })),
    direction: Nullable(Direction),
    watch: Nullable(Type.Number({ description: `The watch line; ${NOT_LINES}` })),
    urgent: Nullable(Type.Number()),
    clear: Nullable(Type.Number({ description: `The clear value; ${NOT_LINES}` })),
    device_type: Nullable(Type.String()),
    device_id: Nullable(Type.String()),
    group_id: Nullable(Type.String()),
    for_s: Nullable(Type.Integer()),
    change: Nullable(Type.Number({ description: 'Rate rules: the signed change within window_s.' })),
    window_s: Nullable(Type.Integer({ description: 'Rate rules: the window in seconds.' })),
    quiet_after_s: Nullable(QuietAfter),
    drop_pct: Nullable(DropPct),
    enabled: Type.Boolean({
      description:
        'A farm’s own rule: its enabled member. A built-in rule: false once settings.rules turns it off (water.leak, device.quiet, group.intake_drop); the seven threshold defaults are always on.',
    }),
    description: Nullable(Type.String()),
    created_at: Nullable(DateTime('Null for a default rule.')),
    updated_at: Nullable(DateTime('Null for a default rule.')),
  },
  { $id: 'Rule', title: 'Rule' },
);

const fields = {
  name: Type.String({
    minLength: 1,
    maxLength: 100,
    pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$',
    description: 'Unique on the farm and not a default rule name; letters, digits, dot, dash, underscore.',
  }),
  metric: Type.String({ minLength: 1, maxLength: 100, description: 'Any metric name a device reports.' }),
  direction: Direction,
  watch: Type.Number({ description: 'A reading at or beyond this opens a watch alert.' }),
  urgent: Nullable(Type.Number({ description: 'At or beyond this the alert is urgent; null for none.' })),
  clear: Type.Number({ description: 'Back at or past this (on the safe side of watch) the alert resolves.' }),
  device_type: Nullable(
    Type.Enum(DEVICE_TYPES, { type: 'string', description: 'Only devices of this type.' }),
  ),
  device_id: Nullable(Type.String({ minLength: 1, maxLength: 100, description: 'Only this device.' })),
  group_id: Nullable(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'Only devices in this group, or worn by animals in it.',
    }),
  ),
  for_s: Nullable(
    Type.Integer({
      minimum: 1,
      maximum: MAX_FOR_S,
      description: 'Seconds the condition must hold (every reading, by reading time) before the alert opens.',
    }),
  ),
  change: Type.Number({
    description: 'Rate rules: the signed change in the metric’s unit, e.g. -30 for a fall of 30 (not 0).',
  }),
  window_s: Type.Integer({
    minimum: MIN_WINDOW_S,
    maximum: MAX_WINDOW_S,
    description: 'Rate rules: the window in seconds.',
  }),
  enabled: Type.Boolean({ description: 'A disabled rule opens nothing; disabling resolves its alerts.' }),
};

export const CreateRuleBody = Type.Object(
  {
    name: fields.name,
    kind: Type.Optional(Kind),
    metric: fields.metric,
    direction: Type.Optional(fields.direction),
    watch: Type.Optional(fields.watch),
    urgent: Type.Optional(fields.urgent),
    clear: Type.Optional(fields.clear),
    change: Type.Optional(fields.change),
    window_s: Type.Optional(fields.window_s),
    device_type: Type.Optional(fields.device_type),
    device_id: Type.Optional(fields.device_id),
    group_id: Type.Optional(fields.group_id),
    for_s: Type.Optional(fields.for_s),
    enabled: Type.Optional(fields.enabled),
  },
  { additionalProperties: false },
);

export const UpdateRuleBody = Type.Object(
  {
    name: Type.Optional(fields.name),
    metric: Type.Optional(fields.metric),
    direction: Type.Optional(fields.direction),
    watch: Type.Optional(fields.watch),
    urgent: Type.Optional(fields.urgent),
    clear: Type.Optional(fields.clear),
    device_type: Type.Optional(fields.device_type),
    device_id: Type.Optional(fields.device_id),
    group_id: Type.Optional(fields.group_id),
    for_s: Type.Optional(fields.for_s),
    change: Type.Optional(fields.change),
    window_s: Type.Optional(fields.window_s),
    enabled: Type.Optional(fields.enabled),
  },
  { additionalProperties: false },
);

export type Rule = Static<typeof RuleSchema>;
export type CreateRuleInput = Static<typeof CreateRuleBody>;
export type UpdateRuleInput = Static<typeof UpdateRuleBody>;
