/**
 * What each MCP tool needs, in the same permission model as the REST routes (src/domain/permissions.ts):
 * a key is offered only the tools it may use, so a read-only key sees no write tools and a key without
 * devices sees no house tools. A tool left out of tools/list cannot be called either.
 */
import { allows, type Permission, type Policy, permission } from '../../domain/permissions.ts';

const read = (...resources: Parameters<typeof permission>[0][]) =>
  resources.map((r) => permission(r, 'read'));

export const TOOL_NEEDS: Readonly<Record<string, readonly Permission[]>> = {
  list_farms: read('farms'),
  farm_brief: read('brief', 'alerts', 'devices'),
  list_alerts: read('alerts'),
  update_alert: [permission('alerts', 'write')],
  find_animals: read('animals'),
  // An animal comes with its history (farm events) and its trackers (devices).
  get_animal: read('animals', 'events', 'devices'),
  add_animal: [permission('animals', 'write')],
  log_event: [permission('events', 'write')],
  list_groups: read('groups'),
  list_paddocks: read('paddocks'),
  list_devices: read('devices'),
  get_readings: read('readings'),
  house_status: read('houses'),
  house_command: [permission('commands', 'write'), permission('houses', 'read')],
  list_tasks: read('tasks'),
  add_task: [permission('tasks', 'write')],
  complete_task: [permission('tasks', 'write')],
  get_catalog: [],
  list_rules: read('alerts'),
  // The herd book's records are animal records (app.ts: medicines and treatments under animals).
  clear_to_sell: read('animals', 'groups'),
  give_treatment: [permission('animals', 'write')],
  list_medicines: read('animals'),
  record_weight: [permission('events', 'write'), permission('animals', 'read')],
  animal_weights: read('animals'),
  group_weights: read('groups', 'animals'),
  due_dates: read('animals'),
  mating_check: read('animals'),
  get_pedigree: read('animals'),
};

/** Whether a key with this policy may use the tool (an unknown tool is never offered). */
export function toolAllowed(name: string, policy: Policy): boolean {
  const needs = TOOL_NEEDS[name];
  return needs?.every((need) => allows(policy, need)) ?? false;
}

/**
 * Whether a connection is offered the tool: its key's permissions allow it, it is in the toolsets the
 * connection asked for, and it changes nothing when the server runs read-only. Each only narrows.
 */
export function toolOffered(
  tool: { name: string; writes: boolean },
  ctx: { policy?: Policy; readOnly?: boolean; toolsets?: ReadonlySet<string> | null },
): boolean {
  if (ctx.policy && !toolAllowed(tool.name, ctx.policy)) return false;
  if (ctx.readOnly && tool.writes) return false;
  return !ctx.toolsets || ctx.toolsets.has(tool.name);
}
