/**
 * Every kind of record the service keeps: the prefix of its ids, the table it lives in, how messages
 * name it, and the MCP tool that lists its ids (null when no tool does). Ids, same-farm reference
 * checks, the scoped loader, not-found errors and MCP's hints all read this one table.
 */

interface RecordKindSpec {
  readonly prefix: string;
  readonly table: string;
  readonly noun: string;
  readonly listTool: string | null;
}

export const RECORD_KINDS = Object.freeze({
  account: { prefix: 'acct', table: 'accounts', noun: 'account', listTool: null },
  key: { prefix: 'key', table: 'api_keys', noun: 'key', listTool: null },
  farm: { prefix: 'farm', table: 'farms', noun: 'farm', listTool: 'list_farms' },
  animal: { prefix: 'ani', table: 'animals', noun: 'animal', listTool: 'find_animals' },
  group: { prefix: 'grp', table: 'animal_groups', noun: 'group', listTool: 'list_groups' },
  paddock: { prefix: 'pad', table: 'paddocks', noun: 'paddock', listTool: 'list_paddocks' },
  device: { prefix: 'dev', table: 'devices', noun: 'device', listTool: 'list_devices' },
  // A house is a device of type house; its own entry so errors and hints name it as such.
  house: { prefix: 'dev', table: 'devices', noun: 'house', listTool: 'house_status' },
  command: { prefix: 'cmd', table: 'commands', noun: 'command', listTool: null },
  alert: { prefix: 'alt', table: 'alerts', noun: 'alert', listTool: 'list_alerts' },
  task: { prefix: 'task', table: 'tasks', noun: 'task', listTool: 'list_tasks' },
  stay: { prefix: 'stay', table: 'grazing_stays', noun: 'grazing stay', listTool: null },
  event: { prefix: 'evt', table: 'farm_events', noun: 'event', listTool: 'get_animal (an animal’s history)' },
  webhook: { prefix: 'wh', table: 'webhooks', noun: 'webhook', listTool: null },
  delivery: { prefix: 'dlv', table: 'webhook_deliveries', noun: 'delivery', listTool: null },
  outbox: { prefix: 'msg', table: 'outbox', noun: 'outbox message', listTool: null },
  rule: { prefix: 'rule', table: 'rules', noun: 'rule', listTool: 'list_rules' },
  integration: { prefix: 'int', table: 'integrations', noun: 'integration', listTool: null },
  person: { prefix: 'per', table: 'people', noun: 'person', listTool: null },
  session: { prefix: 'ses', table: 'sessions', noun: 'session', listTool: null },
  setup: { prefix: 'set', table: 'setup_links', noun: 'setup link', listTool: null },
  push_subscription: {
    prefix: 'psub',
    table: 'push_subscriptions',
    noun: 'push subscription',
    listTool: null,
  },
  notification: { prefix: 'ntf', table: 'notifications', noun: 'notification', listTool: null },
  medicine: { prefix: 'med', table: 'medicines', noun: 'medicine', listTool: null },
  batch: { prefix: 'bat', table: 'medicine_batches', noun: 'medicine batch', listTool: null },
  treatment: { prefix: 'trt', table: 'treatments', noun: 'treatment', listTool: null },
  movement: { prefix: 'mov', table: 'movements', noun: 'movement', listTool: null },
  weigh_session: { prefix: 'wses', table: 'weigh_sessions', noun: 'weigh session', listTool: null },
} as const satisfies Record<string, RecordKindSpec>);

export type RecordKind = keyof typeof RECORD_KINDS;

/** Kinds a record's `subject_id` may name; their ids are checked to be on the same farm. */
export const SUBJECT_KINDS = ['animal', 'group', 'paddock', 'device', 'task', 'alert'] as const;
export type SubjectKind = (typeof SUBJECT_KINDS)[number];

export function isSubjectKind(value: string | null | undefined): value is SubjectKind {
  return typeof value === 'string' && (SUBJECT_KINDS as readonly string[]).includes(value);
}

const SUBJECT_KIND_BY_PREFIX: ReadonlyMap<string, SubjectKind> = new Map(
  SUBJECT_KINDS.map((kind) => [RECORD_KINDS[kind].prefix, kind]),
);

/** The subject kind an id names, from its prefix (`ani_…` is an animal), or null for a foreign id. */
export function subjectKindOfId(id: string): SubjectKind | null {
  const underscore = id.indexOf('_');
  if (underscore <= 0) return null;
  return SUBJECT_KIND_BY_PREFIX.get(id.slice(0, underscore)) ?? null;
}
