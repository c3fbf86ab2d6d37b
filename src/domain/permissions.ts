/**
 * The permission model, written once: what a restricted API key may do, and what the console's people
 * roles are built from. Every operation (REST route or MCP tool) needs one or more Permissions: a resource,
 * its family, and an access (`read`, `write`, or `delete`). A Policy grants them:
 *  - per family, `read` or `write` (write includes read and delete), as a restricted key is created with;
 *  - optionally per resource, exact accesses on top, so a role can say "writes tasks but not farms".
 */

/** Resource families and the resources in each (a family is what a restricted key is granted). */
export const PERMISSION_FAMILIES = {
  records: ['farms', 'animals', 'groups', 'paddocks', 'tasks', 'events', 'brief'],
  // integrations: a farm's LoRaWAN network servers, which bring device reports in and carry commands out.
  devices: ['devices', 'readings', 'commands', 'houses', 'integrations'],
  // rules: a farm's alert rules (its alerting settings), apart from alerts so a role can handle alerts
  // without changing the rules.
  alerts: ['alerts', 'rules'],
  webhooks: ['webhooks'],
  // The account's administration: API keys, usage, and the people who sign in to the console.
  keys: ['keys', 'usage', 'people'],
} as const satisfies Record<string, readonly string[]>;

export type PermissionFamily = keyof typeof PERMISSION_FAMILIES;
export type Resource = (typeof PERMISSION_FAMILIES)[PermissionFamily][number];
export const FAMILY_NAMES = Object.keys(PERMISSION_FAMILIES) as PermissionFamily[];

/** What an operation does to a resource. `delete` is apart so a role can write without deleting. */
export type Access = 'read' | 'write' | 'delete';
/** What a family grant allows: `read`, or `write` (read, write and delete). */
export type FamilyLevel = 'read' | 'write';

export interface Permission {
  family: PermissionFamily;
  resource: Resource;
  access: Access;
}

/** A key's family grants; a family left out is not granted at all. */
export type FamilyGrants = Partial<Record<PermissionFamily, FamilyLevel>>;

export interface Policy {
  families: FamilyGrants;
  /** Exact accesses on single resources, on top of the family grants (roles; keys use families only). */
  resources?: Partial<Record<Resource, readonly Access[]>>;
}

const FAMILY_OF = new Map<Resource, PermissionFamily>(
  FAMILY_NAMES.flatMap((family) => PERMISSION_FAMILIES[family].map((r) => [r as Resource, family] as const)),
);

export function familyOf(resource: Resource): PermissionFamily {
  const family = FAMILY_OF.get(resource);
  if (!family) throw new Error(`resource ${resource} is in no permission family`);
  return family;
}

export function permission(resource: Resource, access: Access): Permission {
  return { family: familyOf(resource), resource, access };
}

/** Every family at `write`: an unrestricted key, and the owner role. */
export const FULL_ACCESS: Readonly<FamilyGrants> = Object.freeze(
  Object.fromEntries(FAMILY_NAMES.map((f) => [f, 'write'])) as FamilyGrants,
);

export function allows(policy: Policy, need: Permission): boolean {
  const level = policy.families[need.family];
  if (level === 'write') return true;
  if (level === 'read' && need.access === 'read') return true;
  return policy.resources?.[need.resource]?.includes(need.access) ?? false;
}

/** The first permission the policy lacks, or null when it allows them all. */
export function missingPermission(policy: Policy, needs: readonly Permission[]): Permission | null {
  return needs.find((need) => !allows(policy, need)) ?? null;
}

/** How a missing permission is named in messages: `devices:write`, as a key's grants are written. */
export function describePermission(need: Permission): string {
  return `${need.family}:${need.access === 'read' ? 'read' : 'write'}`;
}

/** Whether grants `inner` are no broader than `outer` in every family (a key can only make lesser keys). */
export function grantsWithin(inner: FamilyGrants, outer: FamilyGrants): boolean {
  return FAMILY_NAMES.every((family) => {
    const want = inner[family];
    if (!want) return true;
    const have = outer[family];
    return have === 'write' || (have === 'read' && want === 'read');
  });
}

/** Every permission there is: each resource with each access. */
const EVERY_PERMISSION: readonly Permission[] = FAMILY_NAMES.flatMap((family) =>
  PERMISSION_FAMILIES[family].flatMap((resource) =>
    (['read', 'write', 'delete'] as const).map((access) => ({ family, resource, access })),
  ),
);

/**
 * Whether everything policy `inner` allows, `outer` allows too: a caller may hand out a role (invite a person
 * to it, move a person into or out of it) only when the role is no broader than itself, as a key may only
 * make lesser keys (grantsWithin).
 */
export function policyWithin(inner: Policy, outer: Policy): boolean {
  return EVERY_PERMISSION.every((need) => !allows(inner, need) || allows(outer, need));
}

/**
 * The console's people roles, as presets of this model: the one place the roles are written (enforced by
 * the auth hook for every request from a session; docs/people.md shows them). Owner: everything. Crew:
 * reads every farm record, device, alert and rule; acknowledges and resolves alerts; adds, edits and
 * completes tasks; logs and edits farm events; sends device and house commands. No keys, usage, people,
 * webhooks, farm settings or alert rules, and no deletes.
 */
export const ROLE_PRESETS = {
  owner: { families: FULL_ACCESS },
  crew: {
    families: { records: 'read', devices: 'read', alerts: 'read' },
    resources: { alerts: ['write'], tasks: ['write'], events: ['write'], commands: ['write'] },
  },
} as const satisfies Record<string, Policy>;

export type RoleName = keyof typeof ROLE_PRESETS;
export const ROLE_NAMES = Object.keys(ROLE_PRESETS) as RoleName[];

/** How a permission a role lacks is named: `tasks:delete`, the resource and the access. */
export function describeResourcePermission(need: Permission): string {
  return `${need.resource}:${need.access}`;
}
