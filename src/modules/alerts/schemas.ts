import { type Static, Type } from 'typebox';
import { ALERT_STATUS_FILTERS, ALERT_STATUSES } from '../../domain/statuses.ts';
import { DateInput, DateTime, Nullable, OPTIONAL_BODY, PageQuery } from '../../http/schemas.ts';

export const ALERT_SEVERITIES = ['urgent', 'watch', 'info'] as const;

/** An alert as the sample farm shows one (the Alert and Brief schemas' example). */
export const ALERT_EXAMPLE = {
  id: 'alt_01m81j18g0672fff714ps6m6qb',
  farm_id: 'farm_01kyct2fdr20b7h8952h0m29dd',
  severity: 'urgent',
  title: 'High ammonia in House 2',
  reason: 'Ammonia 26.5 ppm in House 2 — at or above the urgent line of 25 ppm',
  rule: 'house.ammonia',
  words: {
    title: {
      key: 'reading.title.in',
      params: { rule: 'High ammonia', subject: 'House 2' },
      terms: { rule: 'rule.house.ammonia.title' },
    },
    reason: {
      key: 'reading.high.urgent.in',
      params: { measure: 'Ammonia', value: '26.5 ppm', subject: 'House 2', line: '25 ppm' },
      terms: { measure: 'rule.house.ammonia.measure' },
    },
  },
  subject_type: 'device',
  subject_id: 'dev_01m379xkdt1y8q9xray6w7qzb0',
  status: 'open',
  created_at: '2026-11-22T12:00:00.000Z',
  updated_at: '2026-11-22T14:15:00.000Z',
  acknowledged_at: null,
  acknowledged_by: null,
  resolved_at: null,
};

const WordKey = Type.String({
  description: 'A message key of the alert words catalog, e.g. reading.high.urgent.in.',
});
const WordParams = Type.Record(Type.String(), Type.Union([Type.String(), Type.Number()]), {
  description:
    'The sentence’s parameters: names as the farm wrote them, quantities in the catalog’s units as the English reason writes them ("26.5 ppm"), ISO times; a name ending in _ms is a duration in milliseconds; count chooses the plural form.',
});

/** One sentence of an alert as a message key and its parameters (src/domain/alert-words.ts). */
const AlertWordSchema = Type.Object(
  {
    key: WordKey,
    params: WordParams,
    parts: Type.Optional(
      Type.Record(
        Type.String(),
        Type.Object({ key: WordKey, params: WordParams }, { additionalProperties: false }),
        {
          description:
            'Parameter → the parameter as a sentence of its own (an animal subject: animal.named with its name and tag, animal.tag, animal.eid, animal.untagged.group with its group, animal.untagged), written in the reader’s language in place of the parameter’s English text. Absent on alerts opened before parts existed.',
        },
      ),
    ),
    terms: Type.Optional(
      Type.Record(Type.String(), Type.String(), {
        description:
          'Parameter → term key (a built-in rule’s title or measure, an alarm’s name): the term in the reader’s language replaces the parameter’s English text.',
      }),
    ),
  },
  { additionalProperties: false },
);

/** An alert's `words` (the Alert schema's, and the acknowledge link's summary). */
export const AlertWordsSchema = Nullable(
  Type.Object(
    {
      title: AlertWordSchema,
      reason: AlertWordSchema,
      note: Type.Optional(AlertWordSchema),
    },
    {
      description:
        'The title and reason as message keys and parameters, so a client can write them in its reader’s language (the console and notifications do; docs/alerts.md). The English title and reason are unchanged. Null for alerts opened before words existed. `note`: a resolution’s note (resolved.*: the device reported again, a rule was disabled, deleted or changed, a device was deleted, intake back to normal), written after the reason with reason.with_note; the English reason ends with it (“— resolved: …”).',
    },
  ),
);

export const AlertSchema = Type.Object(
  {
    id: Type.String(),
    farm_id: Type.String(),
    severity: Type.Enum(ALERT_SEVERITIES, {
      type: 'string',
      description: 'urgent, watch or info; lists put urgent first.',
    }),
    title: Type.String({ description: 'Short headline naming the house, device or animal.' }),
    reason: Type.String({
      description:
        'Why the alert is open: the value with its unit and the line it crossed, or the device event.',
    }),
    rule: Type.String({
      description: 'The rule name (e.g. house.ammonia), or the device event type for device alarms.',
    }),
    subject_type: Type.String({
      description:
        '`animal` for a device attached to an animal, `group` for a group roll-up (group.intake_drop), else `device`.',
    }),
    subject_id: Type.String(),
    status: Type.Enum(ALERT_STATUSES, { type: 'string' }),
    created_at: DateTime(),
    updated_at: DateTime('Last change: escalation, a newer reading, acknowledgement or resolution.'),
    acknowledged_at: Nullable(DateTime()),
    acknowledged_by: Nullable(
      Type.String({
        description:
          'The person who acknowledged it, in the console or with a notification’s acknowledge link or button; null when an API key or an agent did, or not acknowledged.',
      }),
    ),
    resolved_at: Nullable(DateTime()),
    words: Type.Optional(AlertWordsSchema),
  },
  {
    $id: 'Alert',
    title: 'Alert',
    examples: [ALERT_EXAMPLE],
  },
);

export type Alert = Static<typeof AlertSchema>;

export const AlertListQuery = Type.Object(
  {
    ...PageQuery,
    before: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'The `next_before` cursor of the previous page, or an ISO 8601 time (alerts created strictly before it).',
      }),
    ),
    status: Type.Optional(
      Type.Enum(ALERT_STATUS_FILTERS, {
        type: 'string',
        description:
          '`active` (open and acknowledged; the default), `open`, `acknowledged`, `resolved` or `all`.',
      }),
    ),
  },
  { additionalProperties: false },
);

/**
 * POST /v1/alerts/{id}/acknowledge, whose body is optional: when the alert was seen, for an acknowledgement
 * made without signal and sent later (the field app sends the moment it was tapped).
 */
export const AcknowledgeAlertBody = Type.Object(
  {
    acknowledged_at: Type.Optional(
      DateInput(
        'When the alert was acknowledged, if before now (offline, sent later). Default: now. Kept between the alert’s created_at and now.',
      ),
    ),
  },
  { additionalProperties: false, ...OPTIONAL_BODY },
);
export type AcknowledgeAlertInput = Static<typeof AcknowledgeAlertBody>;
