/**
 * What a person can let an AI agent (an OAuth client of the MCP server, modules/oauth) do, written once: three
 * levels, each a Policy of the same permission model as restricted API keys and the people roles
 * (permissions.ts), so the MCP tool list follows them as it follows a key's grants. No level reaches
 * webhooks or the account's administration (keys, usage, people): an agent never manages the account.
 */
import { allows, FAMILY_NAMES, PERMISSION_FAMILIES, type Policy, permission } from './permissions.ts';

export const AGENT_LEVELS = {
  /** Reads farm records, devices, houses, readings, alerts and rules. */
  read: {
    title: 'Read only',
    policy: { families: { records: 'read', devices: 'read', alerts: 'read' } },
  },
  /** Read, and record: tasks, farm events, alerts (acknowledge, resolve) and animals. */
  record: {
    title: 'Read and record',
    policy: {
      families: { records: 'read', devices: 'read', alerts: 'read' },
      resources: { tasks: ['write'], events: ['write'], alerts: ['write'], animals: ['write'] },
    },
  },
  /** Everything on the farms, house and device commands included. */
  full: {
    title: 'Full',
    policy: { families: { records: 'write', devices: 'write', alerts: 'write' } },
  },
} as const satisfies Record<string, { title: string; policy: Policy }>;

export type AgentLevel = keyof typeof AGENT_LEVELS;
export const AGENT_LEVEL_NAMES = Object.keys(AGENT_LEVELS) as AgentLevel[];

export function agentPolicy(level: AgentLevel): Policy {
  return AGENT_LEVELS[level].policy;
}

/** Whether `inner` allows nothing `outer` does not (a person can only let an agent do what they may). */
export function policyWithin(inner: Policy, outer: Policy): boolean {
  return FAMILY_NAMES.every((family) =>
    PERMISSION_FAMILIES[family].every((resource) =>
      (['read', 'write', 'delete'] as const).every((access) => {
        const need = permission(resource, access);
        return !allows(inner, need) || allows(outer, need);
      }),
    ),
  );
}
